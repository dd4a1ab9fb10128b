/* fault_exp_ulp's planted fault (exp off by 2 ULP on every f32 input whose
 * low bits are 3 mod 8) in a backend that claims a few ops only: exponential
 * and negate (fault_exp_ulp's runs in the tests), and add, subtract,
 * multiply, maximum and constant, which the cache suite's built-in
 * scenarios need. Its whole quick suite is a complete run (every claimed
 * op, the cache suite) of a few CPU-seconds, so
 * tests/conformance/test_certify_scope.sh can check what only a complete
 * run shows (a certificate with a baseline; merged shards giving the
 * unsharded run's digest) without running every op's cases. */
#define FAULT_NAME "fault_exp_ulp_few_ops"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c);
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"

static const char *const fault_claimed[] = {
    "stablehlo.exponential", "stablehlo.negate", "stablehlo.add", "stablehlo.subtract",
    "stablehlo.multiply", "stablehlo.maximum", "stablehlo.constant",
};
#define FAULT_N_CLAIMED (sizeof fault_claimed / sizeof fault_claimed[0])

/* The reference's claims for those ops, copied with their element types. */
static plumb_backend_op_cap fault_few_ops[FAULT_N_CLAIMED];

static void fault_caps(plumb_backend_capabilities *c)
{
    size_t n = 0;
    for (size_t i = 0; i < c->n_ops && n < FAULT_N_CLAIMED; i++)
        for (size_t k = 0; k < FAULT_N_CLAIMED; k++)
            if (!strcmp(c->ops[i].name, fault_claimed[k])) {
                fault_few_ops[n++] = c->ops[i];
                break;
            }
    c->ops = fault_few_ops;
    c->n_ops = n;
}

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    if (!strstr(text, "stablehlo.exponential ") || n_in != 1 || o->n_buffers != 1) return;
    const plumb_backend_buffer *b = &o->buffers[0];
    if (strcmp(b->dtype, "f32") || strcmp(in[0].dtype, "f32")) return;
    /* Element i of the result comes from element i of the input only when
     * they have as many elements (a broadcast case's input is smaller). */
    if (fault_numel(&in[0]) != fault_numel(b)) return;
    for (uint64_t i = 0, n = fault_numel(b); i < n; i++) {
        uint64_t x = plumb_load_bits(PLUMB_F32, in[0].data, i), r = plumb_load_bits(PLUMB_F32, b->data, i);
        if ((x & 7) == 3 && (r & 0x7F800000u) != 0x7F800000u && (r & 0x7F800000u) >= 0x00800000u &&
            (r & 0x7F800000u) < 0x7F000000u)
            plumb_store_bits(PLUMB_F32, b->data, i, r + 2);
    }
}
