#!/bin/sh
# `check.expect_is_close %actual, %expected, %abs_error, %samples : T, T, E, S`,
# the check of one generation of StableHLO's math tests (stablehlo/tests/
# math/asin_*.mlir at openxla/stablehlo 22a1351): each element of actual
# must be within abs_error of expected, or equal to it (an infinity), or a
# NaN where expected is one; plumb reads it as those comparisons and a
# check.expect_eq_const of their result (docs/format.md). Every verdict
# below is worked out by hand from that rule; each program runs on the
# reference and on the runtime. Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"
lib_init check_is_close
need_plumb

# actual = x + y = [1.25, 0.75, inf, nan, +0] (-0 + 0 = +0 in round to
# nearest). |1.25 - 1.2| = 0.04999999999999982 in f64 <= 0.0625; 0.75 is
# exact; inf equals inf; NaN where NaN is expected; +0 equals -0.
cat > "$tmp/pass.mlir" <<'EOM'
func.func @main() {
  %x = stablehlo.constant dense<[1.0, 0.5, 0x7FF0000000000000, 0x7FF8000000000000, -0.0]> : tensor<5xf64>
  %y = stablehlo.constant dense<[0.25, 0.25, 1.0, 1.0, 0.0]> : tensor<5xf64>
  %a = stablehlo.add %x, %y : tensor<5xf64>
  %e = stablehlo.constant dense<[1.2, 0.75, 0x7FF0000000000000, 0x7FF8000000000000, -0.0]> : tensor<5xf64>
  %err = stablehlo.constant dense<[0.0625, 0.0, 0.0, 0.0, 0.0]> : tensor<5xf64>
  check.expect_is_close %a, %e, %err, %x : tensor<5xf64>, tensor<5xf64>, tensor<5xf64>, tensor<5xf64>
  func.return
}
EOM
both_pass "f64: within the bound, equal, equal infinities, NaN for NaN, +0 for -0" "$tmp/pass.mlir"

# 0.05 > 0.04; |inf - (-inf)| = inf > 0 and they differ; NaN against 1.0
# fails whatever the bound (1e300); 0.75 and +0/-0 still hold: 3 of 5.
cat > "$tmp/fail.mlir" <<'EOM'
func.func @main() {
  %x = stablehlo.constant dense<[1.0, 0.5, 0x7FF0000000000000, 0x7FF8000000000000, -0.0]> : tensor<5xf64>
  %y = stablehlo.constant dense<[0.25, 0.25, 1.0, 1.0, 0.0]> : tensor<5xf64>
  %a = stablehlo.add %x, %y : tensor<5xf64>
  %e = stablehlo.constant dense<[1.2, 0.75, 0xFFF0000000000000, 1.0, 0.0]> : tensor<5xf64>
  %err = stablehlo.constant dense<[0.04, 0.0, 0.0, 1.0e300, 0.0]> : tensor<5xf64>
  check.expect_is_close %a, %e, %err, %x : tensor<5xf64>, tensor<5xf64>, tensor<5xf64>, tensor<5xf64>
  func.return
}
EOM
expect_fail "f64: over the bound, opposite infinities, NaN for a number fail" "$tmp/fail.mlir" "3 of 5 elements differ"
run "$PLUMB" run "$tmp/fail.mlir"
if grep -qF "fail.mlir:7:3: check failed" "$tmp/err" && grep -qF "at [0]" "$tmp/err" && grep -qF "at [2]" "$tmp/err" &&
   grep -qF "at [3]" "$tmp/err" && ! grep -qF "at [1]" "$tmp/err"; then ok "failing elements named by index at the op's line and column"
else fail "failing elements named by index at the op's line and column"; fi

# complex<f32>, generic form: |(3, 4) - (3, 4.5)| = |(0, -0.5)| = 0.5, the
# modulus, against an f32 bound: 0.5 holds, 0.25 does not.
for bound in 0.5 0.25; do
cat > "$tmp/c_$bound.mlir" <<EOM
"builtin.module"() ({
  "func.func"() <{function_type = () -> (), sym_name = "main"}> ({
    %0 = "stablehlo.constant"() <{value = dense<[(3.0, 4.0), (1.0, 1.0)]> : tensor<2xcomplex<f32>>}> : () -> tensor<2xcomplex<f32>>
    %1 = "stablehlo.constant"() <{value = dense<[(3.0, 4.5), (1.0, 1.0)]> : tensor<2xcomplex<f32>>}> : () -> tensor<2xcomplex<f32>>
    %2 = "stablehlo.constant"() <{value = dense<[$bound, 0.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
    "check.expect_is_close"(%0, %1, %2, %0) : (tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>, tensor<2xf32>, tensor<2xcomplex<f32>>) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()
EOM
done
both_pass "complex<f32>, generic form: modulus 0.5 within 0.5" "$tmp/c_0.5.mlir"
expect_fail "complex<f32>, generic form: modulus 0.5 over 0.25" "$tmp/c_0.25.mlir" "1 of 2 elements differ"

# plumb fmt writes the comparisons it reads, and that text runs the same
run "$PLUMB" fmt "$tmp/pass.mlir"
if [ "$rc" = 0 ] && grep -qF "stablehlo.compare LE" "$tmp/out" && grep -qF "check.expect_eq_const" "$tmp/out"; then
    cp "$tmp/out" "$tmp/pass_fmt.mlir"
    ok "fmt writes the comparisons and the check"
    both_pass "the formatted text passes" "$tmp/pass_fmt.mlir"
else fail "fmt writes the comparisons and the check: exit $rc"; fi

# refusals name the op, the operand and its line and column
refuse() {
    printf 'func.func @main() {\n  %%a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf64>\n  %%f = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>\n  %%i = stablehlo.constant dense<[1, 2]> : tensor<2xi32>\n  %s\n  func.return\n}\n' "$2" > "$tmp/r.mlir"
    run "$PLUMB" verify "$tmp/r.mlir"
    if [ "$rc" != 0 ] && grep -qF "$3" "$tmp/err"; then ok "$1"
    else fail "$1: exit $rc, want an error with '$3'"; fi
}
refuse "three operands refused" "check.expect_is_close %a, %a, %a : tensor<2xf64>, tensor<2xf64>, tensor<2xf64>" \
    "r.mlir:5:3: error: 'check.expect_is_close' takes 4 operands (actual, expected, abs_error, samples), found 3"
refuse "an abs_error of another type refused at its operand" \
    "check.expect_is_close %a, %a, %f, %a : tensor<2xf64>, tensor<2xf64>, tensor<2xf32>, tensor<2xf64>" \
    "r.mlir:5:33: error: operand 2 (abs_error) of 'check.expect_is_close' needs type tensor<2xf64>"
refuse "integer elements refused" "check.expect_is_close %i, %i, %a, %i : tensor<2xi32>, tensor<2xi32>, tensor<2xf64>, tensor<2xi32>" \
    "r.mlir:5:25: error: operand 0 (actual) of 'check.expect_is_close' needs a floating-point or complex element type"
refuse "a result refused" "%r = check.expect_is_close %a, %a, %a, %a : tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>" \
    "'check.expect_is_close' has no results, but 1 value is defined"
# A short text can name a huge shape (here a callee's argument type): the
# per-element verdict is sized like the literal dense<true> of that shape,
# overflow-safe and against the per-literal limit (16 GiB by default),
# before anything is allocated; before, 10^11 elements were allocated and a
# product past 2^63 overflowed int64 (clang UBSan, ir/parse.c).
huge() {
    printf 'func.func @f(%%a: %s) {\n  check.expect_is_close %%a, %%a, %%a, %%a : %s, %s, %s, %s\n  func.return\n}\nfunc.func @main() {\n  func.return\n}\n' \
        "$2" "$2" "$2" "$2" "$2" > "$tmp/h.mlir"
    run "$PLUMB" verify "$tmp/h.mlir"
    if [ "$rc" != 0 ] && grep -qF "$3" "$tmp/err" && ! grep -qF "Sanitizer" "$tmp/err"; then ok "$1"
    else fail "$1: exit $rc, want an error with '$3'"; fi
}
huge "10^11 elements refused before allocation" "tensor<100000000000xf32>" \
    "h.mlir:2:25: error: 'check.expect_is_close' on tensor<100000000000xf32>: its per-element verdict (i1, one byte each): tensor of 100000000000 bytes exceeds the limit"
huge "an element count past 2^64 refused" "tensor<4294967296x4294967296x4294967296xf32>" \
    "h.mlir:2:25: error: 'check.expect_is_close' on tensor<4294967296x4294967296x4294967296xf32>: its per-element verdict (i1, one byte each): element count overflows 64 bits"
finish
