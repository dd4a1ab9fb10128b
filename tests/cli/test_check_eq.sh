#!/bin/sh
# `stablehlo.custom_call @check.eq(%actual, %expected) : (T, T) -> tensor<i1>`,
# the check of StableHLO's older testdata generation. Contract
# (docs/format.md, "The older check.eq"), as stablehlo-translate --interpret runs
# it: integer and i1 elements must be equal; floats and complex numbers are
# compared as check.expect_almost_eq with tolerance 1e-4 (absolute, in
# double); the result is true and a failing check fails the run (exit 1).
# Every verdict below is worked out by hand from that rule; each program
# runs on the reference and on the runtime.
# Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"
lib_init check_eq
need_plumb

# All of these pass:
#   f32: 1.00005 is 1.0000499486923218 in f32, 4.99e-5 from 1; -3.50009 is
#        -3.5000901222229004, 9.01e-5 from -3.5; -0 equals +0; NaN matches
#        NaN (another payload and sign too)
#   f16: 0.0001 and 0.00015 are 1.0001659e-4 and 1.4996529e-4, 4.99e-5 apart
#   complex<f32>: the real parts 4.99e-5 apart as above, the imaginary equal
#   i8, ui64 and i1: equal values, at the ends of their ranges
cat > "$tmp/pass.mlir" <<'EOM'
func.func public @main() -> tensor<i1> {
  %a = stablehlo.constant dense<[1.0, -3.5, 0.0, 0x7FC00000]> : tensor<4xf32>
  %b = stablehlo.constant dense<[1.00005, -3.50009, -0.0, 0xFFC00001]> : tensor<4xf32>
  %0 = stablehlo.custom_call @check.eq(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<i1>
  %h = stablehlo.constant dense<1.0e-4> : tensor<f16>
  %k = stablehlo.constant dense<1.5e-4> : tensor<f16>
  %1 = stablehlo.custom_call @check.eq(%h, %k) : (tensor<f16>, tensor<f16>) -> tensor<i1>
  %c = stablehlo.constant dense<[(1.0, 2.0)]> : tensor<1xcomplex<f32>>
  %d = stablehlo.constant dense<[(1.00005, 2.0)]> : tensor<1xcomplex<f32>>
  %2 = stablehlo.custom_call @check.eq(%c, %d) : (tensor<1xcomplex<f32>>, tensor<1xcomplex<f32>>) -> tensor<i1>
  %i = stablehlo.constant dense<[-128, 127]> : tensor<2xi8>
  %3 = stablehlo.custom_call @check.eq(%i, %i) : (tensor<2xi8>, tensor<2xi8>) -> tensor<i1>
  %u = stablehlo.constant dense<18446744073709551615> : tensor<ui64>
  %v = stablehlo.constant dense<18446744073709551615> : tensor<ui64>
  %4 = stablehlo.custom_call @check.eq(%u, %v) : (tensor<ui64>, tensor<ui64>) -> tensor<i1>
  %p = stablehlo.constant dense<[true, false]> : tensor<2xi1>
  %q = stablehlo.constant dense<[true, false]> : tensor<2xi1>
  %5 = "stablehlo.custom_call"(%p, %q) {call_target_name = "check.eq"} : (tensor<2xi1>, tensor<2xi1>) -> tensor<i1>
  %all = stablehlo.and %0, %5 : tensor<i1>
  return %all : tensor<i1>
}
EOM
expect_both "six check.eq that hold (f32, f16, complex, i8, ui64, generic-form i1); the result is true" \
    "tensor<i1> dense<true>" "$tmp/pass.mlir"

# fail1 TYPE ACTUAL EXPECTED N: a program whose one check.eq fails on N elements
fail1() {
    cat <<EOM
func.func public @main() -> tensor<i1> {
  %a = stablehlo.constant dense<$2> : $1
  %b = stablehlo.constant dense<$3> : $1
  %0 = stablehlo.custom_call @check.eq(%a, %b) : ($1, $1) -> tensor<i1>
  return %0 : tensor<i1>
}
EOM
}

# f32: 1.00011 is 1.0001100301742554, 1.1e-4 > 1e-4 from 1; 1e-5 and -1e-5
# are 2e-5 apart but of opposite signs; an infinity matches only itself
fail1 tensor\<3xf32\> "[1.0, 1.0e-5, 0x7F800000]" "[1.00011, -1.0e-5, 3.0e38]" > "$tmp/f32.mlir"
expect_fail "f32: just over 1e-4, opposite signs and inf against finite all fail" "$tmp/f32.mlir" \
    "3 of 3 elements differ"
# f16: the next f16 above 2 is 2 + 2^-9 = 2.001953125: one ulp, but 1.95e-3
# apart, so the tolerance is absolute, not in ulp
fail1 tensor\<f16\> "2.0" "2.001953125" > "$tmp/f16.mlir"
expect_fail "f16: one ulp above 2 is 1.95e-3 away and fails" "$tmp/f16.mlir" "tolerance 0.0001"
# bf16: 100.5 is a bf16 number (ulp 0.5 in [64, 128)), 0.5 away from 100
fail1 tensor\<bf16\> "100.0" "100.5" > "$tmp/bf16.mlir"
expect_fail "bf16: 100 against 100.5 fails" "$tmp/bf16.mlir" "1 of 1 elements differ"
# complex: the imaginary parts 2 and 2.0002 are 2e-4 apart
fail1 tensor\<1xcomplex\<f32\>\> "[(1.0, 2.0)]" "[(1.0, 2.0002)]" > "$tmp/c64.mlir"
expect_fail "complex<f32>: imaginary parts 2e-4 apart fail" "$tmp/c64.mlir" "check failed"
# integers are exact: 4 against 5, but also 4 against 4 elsewhere
fail1 tensor\<2xi32\> "[3, 4]" "[3, 5]" > "$tmp/i32.mlir"
expect_fail "i32: 4 against 5 fails on that element alone" "$tmp/i32.mlir" "1 of 2 elements differ"
fail1 tensor\<2xi1\> "[true, false]" "[true, true]" > "$tmp/i1.mlir"
expect_fail "i1: false against true fails" "$tmp/i1.mlir" "at [1]: got false"

# The canonical form is the current generation's: expect_almost_eq with
# tolerance 1e-4 for floats, expect_eq for integers, and a constant true
# for the result; it verifies, formats to itself and runs the same.
run "$PLUMB" fmt "$tmp/pass.mlir"
if [ "$rc" = 0 ] && [ "$(grep -c 'check.expect_almost_eq(.*tolerance = 0.0001' "$tmp/out")" = 3 ] &&
    [ "$(grep -c 'check.expect_eq(' "$tmp/out")" = 3 ] &&
    [ "$(grep -c 'constant dense<true> : tensor<i1>' "$tmp/out")" = 6 ]; then ok "fmt writes 3 almost_eq, 3 expect_eq, 6 constant true"
else fail "fmt writes 3 almost_eq, 3 expect_eq, 6 constant true"; fi
cp "$tmp/out" "$tmp/once.mlir"
run "$PLUMB" fmt "$tmp/once.mlir"
if [ "$rc" = 0 ] && cmp -s "$tmp/out" "$tmp/once.mlir"; then ok "fmt is idempotent on it"; else fail "fmt is idempotent on it"; fi
expect_both "the canonical form runs and passes" "tensor<i1> dense<true>" "$tmp/once.mlir"
fail1 tensor\<f16\> "2.0" "2.001953125" > "$tmp/f16.mlir"
"$PLUMB" fmt "$tmp/f16.mlir" > "$tmp/f16once.mlir" 2> "$tmp/err"
expect_fail "the canonical form of a failing check.eq still fails" "$tmp/f16once.mlir" "1 of 1 elements differ"

# Malformed uses are refused with the reason
cat > "$tmp/bad_result.mlir" <<'EOM'
func.func public @main(%a: tensor<2xf32>) -> tensor<2xi1> {
  %0 = stablehlo.custom_call @check.eq(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  return %0 : tensor<2xi1>
}
EOM
expect_refused "a result other than tensor<i1>" "$tmp/bad_result.mlir" "'@check.eq' has one result, of type tensor<i1>"
cat > "$tmp/bad_arity.mlir" <<'EOM'
func.func public @main(%a: tensor<2xf32>) -> tensor<i1> {
  %0 = stablehlo.custom_call @check.eq(%a, %a, %a) : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<i1>
  return %0 : tensor<i1>
}
EOM
expect_refused "three operands" "$tmp/bad_arity.mlir" "'@check.eq' takes 2 operands (actual, expected), found 3"
cat > "$tmp/bad_types.mlir" <<'EOM'
func.func public @main(%a: tensor<2xf32>, %b: tensor<2xf16>) -> tensor<i1> {
  %0 = stablehlo.custom_call @check.eq(%a, %b) : (tensor<2xf32>, tensor<2xf16>) -> tensor<i1>
  return %0 : tensor<i1>
}
EOM
expect_refused "operands of two element types" "$tmp/bad_types.mlir" "both operands have one type"
cat > "$tmp/bad_noname.mlir" <<'EOM'
func.func public @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  stablehlo.custom_call @check.eq(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<i1>
  return %a : tensor<2xf32>
}
EOM
expect_refused "a result without a name" "$tmp/bad_noname.mlir" "'@check.eq' has 1 result but 0 values are defined"
finish
