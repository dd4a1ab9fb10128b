#!/bin/sh
# Planted faults: certifying each fault backend must fail, with a report that
# names the op, the case and the reason, and must still report every other
# case (some pass). Ends with "N passed, N failed".
BUILD=${BUILD:-build}
PLUMB=${PLUMB:-$BUILD/plumb}
pass=0
fail=0
skip=0
# Under the sanitizers (make asan: SANITIZED=yes, SANITIZER=gcc or clang)
# each planted fault runs under one of the two, alternately (gcc the 1st,
# 3rd, ..., clang the 2nd, 4th, ...); make check runs every one on every CI
# run. What a fault's run executes besides its plugin is its op's quick
# cases through the reference or the runtime, which both sanitizers run on
# every case in test_certify_scope.sh's whole runtime run (the runtime, and
# the reference as the checker), and certify's failure report, which both
# run in test_certify_scope.sh's fault_exp_ulp runs; so each plugin and each
# fault's own failure lines are checked by one sanitizer, not two. Under
# ASan these runs cost 1-17 CPU-s each (the 7 convert faults ~17: a fork
# per 16 cases to rerun it in a fresh process, ~20 ms each under ASan;
# sanitized builds now fork about 5 times less, conformance/runner.c's
# few_forks). fault_fresh_instance runs under both (expect_always). CI
# makes clang's sanitized run only (docs/ci.md "One sanitized run"), so
# there gcc's share runs in make check alone.
n=0
share=
if [ "${SANITIZED:-no}" = yes ]; then
    case ${SANITIZER:-} in gcc) share=1 ;; clang) share=0 ;; esac
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
plugin() { # $1 = fault name; builds it if the Makefile rule has not
    so="$BUILD/plugins/$1.so"
    if [ ! -f "$so" ]; then
        mkdir -p "$BUILD/plugins"
        ${CC:-cc} -std=c11 -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L -fPIC -Iinclude -O1 -shared \
            -o "$so" "tests/conformance/plugins/$1.c" "$BUILD/libplumb.a" \
            -lxxhash -lmpfr -lgmp -lgsl -lgslcblas -lm -lpthread -ldl || return 1
    fi
    echo "$so"
}
expect() { # $1 fault, $2 ops, $3 case id prefix, $4 reason text, $5 suite (default quick)
    n=$((n + 1))
    if [ -n "$share" ] && [ $((n % 2)) != "$share" ]; then skip=$((skip + 1)); return; fi
    so=$(plugin "$1") || { echo "FAIL $1: cannot build"; fail=$((fail + 1)); return; }
    out="$tmp/$1.txt"
    t0=$(date +%s)
    "$PLUMB" certify --backend "$so" --ops "$2" --suite "${5:-quick}" --jobs 1 --timeout 20 --out "$tmp/$1" > "$out" 2>&1
    rc=$?
    secs=$(($(date +%s) - t0))
    echo "$secs $1 ($2)" >> "$tmp/seconds"
    if [ "$rc" = 0 ]; then echo "FAIL $1: certify passed"; fail=$((fail + 1)); return; fi
    if ! grep -q "$3.*$4" "$out"; then
        echo "FAIL $1: no line naming case '$3' and reason '$4'"; tail -20 "$out"; fail=$((fail + 1)); return
    fi
    last=$(tail -n 1 "$out")
    passed=$(echo "$last" | sed -n 's/^certify: \([0-9]*\) passed.*/\1/p')
    if [ -z "$passed" ] || [ "$passed" = 0 ]; then
        echo "FAIL $1: other cases not reported: $last"; fail=$((fail + 1)); return
    fi
    echo "ok   $1: $last ($secs s)"
    pass=$((pass + 1))
}
# expect_always: as expect, under both sanitizers too (the alternation of
# the other faults is unchanged). For fault_fresh_instance: sanitized builds
# sample the fresh-instance rerun differently (conformance/runner.c,
# few_forks), so each sanitizer checks that its sample still catches it.
expect_always() {
    keep=$share
    share=
    expect "$@"
    share=$keep
}
expect fault_exp_ulp    exponential,negate   "exponential/f32/"        "error 2 ulp, bound 1 ulp"
expect fault_ftz        add,negate           "add/f32/odd/subnormal/"  "flushed to zero"
expect fault_f16_accum  reduce,negate        "reduce/f16/wide/"        "Σ|x|"
expect fault_broadcast  broadcast_in_dim,add "add/f32/broadcast/"      "exact class"
expect fault_stale      negate,add           "negate/"                 "parameter 0 (%arg0) of @main has type"
expect fault_crash      tanh,negate          "tanh/"                   "crash\|signal\|SIGSEGV"
# Faults that only the depth families catch or catch first (docs/conformance.md):
# crossed classes, format boundaries, binade sweeps, conversion midpoints.
expect fault_int_div_min    divide                "divide/i32/odd/cross/"                "got 0, want -2147483648"
expect fault_shift_mod      shift_left            "shift_left/i16/odd/cross/"            "exact class"
expect fault_ne_nan         compare               "compare/f32/odd/cross/"               "got 0, want 1"
expect fault_dot_flush      dot                   "dot/f32/odd/cross/"                   "f32 accumulator"
expect fault_reduce_init    reduce                "reduce/f32/odd/cross/"                "f32 accumulator"
expect fault_exp_early_inf  exponential           "exponential/f32/odd/threshold/"       "got 0x7f800000 (inf)"
expect fault_pow_early_inf  power                 "power/f32/odd/threshold/"             "got 0x7f800000 (inf)"
expect fault_logistic_naive logistic              "logistic/f32/odd/threshold/"          "flushed to zero"
expect fault_round_half     round_nearest_afz     "round_nearest_afz/f32/odd/threshold/" "inputs %x=0x3effffff"
expect fault_tanh_mid       tanh                  "tanh/f32/odd/binades/"                "error 3 ulp, bound 2 ulp"
expect fault_expm1_naive    exponential_minus_one "exponential_minus_one/f32/odd/binades/" "flushed to zero"
expect fault_double_round   convert               "convert/f64_to_f16/odd/midpoint/"     "exact class"
expect fault_f16_overflow   convert               "convert/f32_to_f16/odd/midpoint/"     "got 0x7c00 (inf), want 0x7bff"
# Special values, integer semantics and RNG faults (the cross family among the catchers).
expect fault_pad_nan        pad                   "pad/f32/odd/cross/"                   "want 0x7fc00005 (nan)"
expect fault_clamp_nan      clamp                 "clamp/f32/odd/cross/"                 "exact class"
expect fault_max_nan        maximum               "maximum/f32/odd/cross/"               "want 0x7fc00000 (nan)"
expect fault_min_zero_sign  minimum               "minimum/f32/odd/cross/"               "want 0x80000000 (-0)"
expect fault_rem_sign       remainder             "remainder/i32/odd/cross/"             "exact class"
expect fault_abs_intmin     abs                   "abs/i32/odd/boundary/"                "got 2147483647, want -2147483648"
expect fault_sqrt_negzero   sqrt                  "sqrt/f32/odd/special/"                "want 0x80000000 (-0)"
expect fault_sign_nan       sign                  "sign/f32/odd/special/"                "want 0x7fc00000 (nan)"
expect fault_rng_state      rng_bit_generator,negate "rng_bit_generator/"                "exact class"
expect fault_atan2_zero     atan2                 "atan2/f32/odd/cross/"                 "want 0x40490fdb"
expect fault_cbrt_neg       cbrt                  "cbrt/f32/odd/binades/"                "got 0x7fc00000 (nan)"
expect fault_convert_sat    convert               "convert/i32_to_i8/odd/boundary/"      "exact class"
expect fault_scatter_race   scatter               "scatter/f32/odd/cross/"               "f32 accumulator"
expect fault_dot_daz_fast   dot_general,dot       "dot_general/bf16/odd/opcross/subnormal_large" "accumulator"
expect fault_add_overflow_tie add                 "add/f32/odd/threshold/"               "want 0x7f800000 (inf)"
# The runner protects inputs and repeats cases of a backend that declares
# determinism; the cache suite's scenarios catch caches that serve the wrong
# executable (docs/certify.md).
expect fault_writes_input     multiply,negate     "multiply/"                  "modified input 0"
expect fault_nondeterministic multiply,negate     "multiply/"                  "not deterministic: output 0"
expect_always fault_fresh_instance multiply,negate     "multiply/"                  "a fresh instance in a separate process"
expect fault_cache_stale_const add,negate         "constant value (scalar)"    "got 0x3fc00000 (1.5), want 0xc0100000 (-2.25)"
expect fault_cache_evict      add,negate          "return to earlier programs" "got 0x43960000 (300), want 0x42c80000 (100)"
# Polymorphic results with the right bytes but the dims swapped (the dyn_* and dynamic-op cases).
expect fault_dyn_shape        dynamic_reshape,negate "dynamic_reshape/f32/dyn_odd/" "the backend returned tensor<7x3xf32>, the program declares tensor<3x?xf32"
# A reduction over a `?` dim that loops to its bound, reading padding: only the dyn_* reduce cases see it.
expect fault_dyn_reduce_bound reduce,add        "reduce/f32/dyn_0/"          "got 0x3e3c3c3c (0.183823526), want 0x00000000 (0)"
# Claims bounded polymorphism, builds one executable per size at execute time.
expect fault_poly_per_size    add,negate          "polymorphic dimension"      "20 compiles for 24 runs of one program at 20 distinct sizes, expected exactly 1"
# Op set v2: convolution's padding order and feature groups (the shape
# classes "dilated", whose padding is [[2, 1]], and "groups", G = 2).
expect fault_conv_pad_swap    convolution         "convolution/f32/dilated/"   "f32 accumulator"
expect fault_conv_group       convolution         "convolution/f32/groups/"    "f32 accumulator"
# Padding filled with 0: only min/max/multiply windows that reach into the
# padding show it; the padmax_neg / padmin_pos cases (3x3 padding 1 over
# all-negative values under maximum, all-positive under minimum) do in both suites.
expect fault_window_pad_init  reduce_window       "reduce_window/f32/padmax_neg/" "exact class"
expect fault_fft_noscale      fft                 "fft/f32/ifft1/"             "exceeds"
# The small types (issue 20): conversions into FP8/FP6/FP4 and the FNUZ
# formats' zero, caught by the midpoint family of conformance/gen_types.c
# (neighbours of every midpoint, -0); the f8E4M3FN top binade, whose
# patterns a checker classifying the IEEE way would take for NaNs.
expect fault_fp8_truncate     convert             "convert/f32_to_f8E4M3FN/odd/midpoint/"  "want 0x01 (0.001953125)"
expect fault_fnuz_negzero     convert             "convert/f32_to_f8E5M2FNUZ/odd/midpoint/" "got 0x80 (nan), want 0x00 (0)"
expect fault_fp8_fn_top       convert             "convert/f32_to_f8E4M3FN/"               "want 0x7"
# reduce_precision with no mantissa bit on an FNUZ format: a tie rounded on
# the pattern (even bias) instead of the f32 value (gen_sweeps.c's every_e5m0)
expect fault_rp_fnuz_tie      reduce_precision    "reduce_precision/f8E4M3FNUZ/odd/every_e5m0/" "got 0x10 (0.015625), want 0x08"
# Batch norm (docs/spec/batchnorm.md): the unbiased variance (divided by
# N - 1) in batch_norm_training's batch_var, outside the two-pass bound in
# every class but the constant one (variance 0).
expect fault_bn_unbiased      batch_norm_training "batch_norm_training/f32/r2_f0/normal/" "batch_var element"
# Sub-byte integer dot_general (docs/spec/types.md): sums saturated to the
# i2/i4/ui2/ui4 range instead of wrapping modulo 2^w; the small types'
# "odd" 7x13 . 13x5 products overflow the width in most elements.
expect fault_i4_dot_sat       dot_general         "dot_general/i4/odd/patterns/"           "exact class"
# Complex (docs/spec/complex.md): the complex family's multiply cases
# (componentwise bound) see a dropped cross term.
expect fault_cmul_cross       multiply            "multiply/complex<f32>/odd/normal/"      "shown: the imaginary part"
# ... and the complex-ops family's ordered compares see an order on the real
# parts alone (ties in the real part decided wrongly).
expect fault_ccmp_real        compare             "compare/complex<f.*>/L[TE]/ties/"       "exact class"
# ... and the complex sums-and-dots family's matrix-vector and matrix-matrix
# dot_general cases see a dropped ai·bi term in the real part.
expect fault_cdot_drop        dot_general         "dot_general/complex<f.*>/m[vm]/"        "real part: error"
# ... and the conv-types family's complex "odd" convolutions see a kernel
# conjugated (a correlation routine used for convolution).
expect fault_cconv_conj       convolution         "convolution/complex<f.*>/odd/"          "part: error"
# ... and the linalg types family's complex cases see a Cholesky factor
# computed as L L^T (no conjugate in the column update) and an ADJOINT solve
# run as TRANSPOSE (docs/spec/linalg.md).
expect fault_cchol_noconj     cholesky            "cholesky/complex<f.*>/lower/spd/"       "residual"
expect fault_ctrsm_adjoint    triangular_solve    "triangular_solve/complex<f.*>/right_lower_adjoint/" "Higham Thm 8.5 and"
# dot_general's algorithm (docs/spec/dotalg.md): a backend that ignores it
# (no rounding of the operands to bf16) fails the algorithm family's case.
expect fault_dotalg_noround   dot_general         "dot_general/f32/odd/alg_bf16_bf16_f32/" "f32 accumulator"
# A split algorithm (x3, x6) run as one pass: outside the split's bound.
expect fault_dotalg_onepass   dot_general         "dot_general/f32/odd/alg_bf16_bf16_f32_x3/" "bound"
# The small types through the ops their table rows do not name (gen.c's
# gen_lowp_ops): a reduce_window add on FP8/FP6/FP4 that rounds the running
# sum to the format after every element, and a gather on i4/ui4 that keeps
# three bits of each nibble. Neither had a case before that family.
expect fault_lowp_window_steps reduce_window      "reduce_window/f4E2M1FN/pool3/patterns/" "bound 0 ulp (exact class)"
expect fault_subint_gather_mask gather            "gather/i4/odd/patterns/"                "bound 0 (exact class)"
# ... and the complex more-ops family's reduce with a multiply body sees a
# product that drops the bc term of its imaginary part.
expect fault_cprod_cross       reduce             "reduce/complex<f.*>/d1/unit/"           "normwise error"
# FP8/FP6/FP4 dots (ABI 1.4 accum_small): a convolution that rounds its sum
# to the format after every product while declaring f32 sees the
# conv-types family's 27-term f8E4M3FN sums differ from the correctly
# rounded ones far more often than an f32 accumulator allows.
expect fault_fp8_conv_accum   convolution         "convolution/f8E4M3FN/odd/finite/"       "f32 accumulator"
# f8E8M0FNU batch norm (docs/spec/batchnorm.md, "Small formats"): results
# rounded toward zero (the wide value's exponent kept) instead of to
# nearest, outside the roundings of the wide result's enclosure
# (conformance/e8m0_judge.h) wherever its significand is 1.5 or more.
expect fault_e8m0_bn_truncate batch_norm_inference "batch_norm_inference/f8E8M0FNU/r2_f0/patterns/" "rounds once to f8E8M0FNU patterns"
# complex<f64> -> complex<f32> convert (gen_cconvert.c) with the imaginary
# part truncated toward zero: the special values' inf becomes the largest
# finite f32, exact class.
expect fault_cconvert_trunc   convert             "convert/complex<f64>_to_complex<f32>/odd/special/" "got 0x7f7fffff"
# chlo.mulhi (docs/spec/elementwise.md) on signed types computed as the
# unsigned high half: the crossed classes' negative operands show it.
expect fault_mulhi_unsigned   mulhi               "chlo.mulhi/i8/odd/cross/"               "exact class"
# chlo.scan (docs/spec/control.md "scan") with is_reverse writing each
# step's output in step order: the reverse class's output comes out
# reversed along the scan dimension.
expect fault_scan_reverse_order scan              "chlo.scan/i1/reverse/"                  "exact class"
# The sizes family (conformance/gen_sizes.c, docs/certify.md "What certify
# catches"): a parallel split that leaves the last partial 65,536-element
# chunk of a result past 2^20 elements unwritten; a parallel add-reduce
# that adds its init once per chunk; a blocked GEMM that skips its last
# partial 64-row panel; select reading a scalar predicate as false;
# concatenate stopping at a size-0 operand; f16 iota counted in f16
# (sticks at 2048); bitcast_convert across widths in big-endian lane order.
expect fault_par_tail           add,transpose     "add/f32/big2d/"                      "got 0x00000000 (0)"
expect fault_reduce_init_chunks reduce            "reduce/f32/big2d_all/"               "f32 accumulator"
expect fault_gemm_edge_rows     dot_general       "dot_general/f32/blocked/"            "f32 accumulator"
expect fault_select_scalar_pred select            "select/f32/scalar_pred/pred_true/"   "exact class"
expect fault_concat_empty_stop  concatenate       "concatenate/f32/empty_mid/"          "exact class"
expect fault_iota_f16_count     iota              "iota/f16/long/"                      "got 0x6800 (2048), want 0x6801 (2050)"
expect fault_bitcast_lanes      bitcast_convert   "bitcast_convert/f32_to_ui16/widths/" "exact class"
# ... and its layout cases: a batched transpose of 16-bit elements ([0, 2, 1],
# [0, 1, 3, 2]) that writes batch 0 into every batch.
expect fault_transpose_batched16 transpose        "transpose/f16/layout/perm_0_2_1/"    "exact class"
# Regression guards for classes the older families already catch and no
# planted fault had: i1 results as 0xFF masks (the ABI's i1 is one byte, 0
# or 1), and a compile cache whose key leaves out compare's direction.
expect fault_i1_mask            compare           "compare/f32/odd/"                    "got 255, want 1"
expect fault_cache_cmp_dir      compare           "compare/f32/odd/"                    "exact class"
# chlo.ragged_dot (docs/spec/ragged_dot.md) with the first group's end one
# index late (every later group starting a row late): the noncontract
# class's row 3 comes from group 0's rhs instead of group 2's.
expect fault_ragged_boundary ragged_dot           "chlo.ragged_dot/i32/noncontract/"        "exact class"
# The sizes family's third pass (conformance/gen_sizes.c, docs/certify.md):
# dot_general with lhs's batch dim in the middle read batch-major; rank 5/6
# transposes done as a copy; a case index past the last branch taken modulo
# the branch count; max/min reduces of rows past 1024 dropping the tail;
# rank-3 concatenate along dim 0 placing operands at k times the first's
# rows; reduce_window windows stepped by the window instead of a larger
# stride; 64-bit and ui32 start indices read as i32; gather ignoring
# operand_batching_dims; descending sorts of long rows off by one at the end.
expect fault_dot_batch_mid      dot_general       "dot_general/i32/batch_mid/"          "exact class"
expect fault_transpose_rank5    transpose         "transpose/f32/rank5/"                "exact class"
expect fault_case_index_wrap    case              "case/f32/index_past/index_3/"        "exact class"
expect fault_reduce_max_tail    reduce            "reduce/f32/wide_max/"                "want 0x461c4000 (10000)"
expect fault_concat_rank3       concatenate       "concatenate/i16/rank3_dim0/"         "exact class"
expect fault_window_stride_gap  reduce_window     "reduce_window/f32/gaps/"             "exact class"
expect fault_dyn_index_i32      dynamic_slice,dynamic_update_slice "dynamic_slice/f32/index_types/ui32/" "exact class"
expect fault_gather_batch0      gather            "gather/f32/batching/"                "exact class"
expect fault_sort_desc_wide     sort              "sort/i32/wide_desc/"                 "exact class"
# Where the time goes: a fault's run is every quick case of its op(s), so
# the faults of the ops with the most (and dearest) cases lead: convert
# (8,765 cases, 7 faults) and dot_general (6 faults; the reference's dot
# runs twice a case, as the backend and for the checker, with MPFR error
# bounds), about two thirds of the CPU time (docs/ci.md).
[ -f "$tmp/seconds" ] && echo "slowest faults (s): $(sort -rn "$tmp/seconds" | head -n 8 | awk '{printf "%s%s %s", (NR > 1 ? ", " : ""), $2, $1}')"
if [ "$skip" != 0 ]; then
    echo "skipped: $skip of the planted faults are the other sanitizer's share ($SANITIZER runs every other one); make check runs them all"
    echo "$pass passed, $fail failed, $skip skipped"
else
    echo "$pass passed, $fail failed"
fi
[ "$fail" = 0 ]
