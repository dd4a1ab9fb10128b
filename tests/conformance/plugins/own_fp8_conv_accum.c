/* Test backend: fault_fp8_conv_accum's convolution (the running sum rounded
 * to the FP8/FP6/FP4 format after every product), but declaring what it
 * does: every small format accumulates in itself (ABI 1.4 accum_small).
 * Certification then judges those sums by the format's own gamma(K), void
 * for K >= 1/u, and the certificate names the formats as a limitation
 * (tests/conformance/test_small_accum.sh). */
#define FP8ACC_DECLARE_OWN 1
#include "fault_fp8_conv_accum.c"
