#!/bin/sh
# The float digits of the interpreter's print format, as LLVM's
# APFloat::toString(precision 6) computes them: v = S * 10^exp (S = M * 5^-E
# for v = M * 2^E, M odd), then AdjustToPrecision drops
# (bits(S) - 20) * 59 / 196 low decimal digits of S by truncation before the
# half-up rounding to 6 digits. Worked out by hand:
#   f16 0.0999755859375 = 819 * 2^-13: S = 819 * 5^13 = 999755859375, 40 bits,
#     6 digits truncated: 999755 -> 9.997550e-02 (rounding the exact digits
#     would give 9.997560e-02);
#   f16 3.140625 * 3.140625 = 9.86376953125 rounds to 9.8671875 = 1263 * 2^-7:
#     S = 98671875, 27 bits, 2 digits truncated: 986718 -> 9.867180e+00
#     (not 9.867190e+00);
#   bf16 0.10009765625 = 205 * 2^-11: S = 10009765625, 34 bits, 4 digits
#     truncated: 1000976, rounded half up to 6 digits: 1.000980e-01.
# StableHLO's first-generation interpreter tests expect exactly these lines
# (interpret_constant.mlir, interpret_multiply.mlir); before, plumb rounded
# the exact digits and failed them.
. "$(dirname "$0")/lib.sh"
lib_init apfloat_digits
need_plumb

cat > "$tmp/p.mlir" <<'EOM'
// RUN: stablehlo-interpreter --interpret -split-input-file %s | FileCheck %s

// CHECK-LABEL: Evaluated results of function: digits
func.func @digits() -> (tensor<2xf16>, tensor<bf16>) {
  %0 = stablehlo.constant dense<[0.1, 3.140625]> : tensor<2xf16>
  %1 = stablehlo.constant dense<[1.0, 3.140625]> : tensor<2xf16>
  %2 = stablehlo.multiply %0, %1 : tensor<2xf16>
  %3 = stablehlo.constant dense<0.1> : tensor<bf16>
  func.return %2, %3 : tensor<2xf16>, tensor<bf16>
  // CHECK-NEXT: tensor<2xf16>
  // CHECK-NEXT: 9.997550e-02 : f16
  // CHECK-NEXT: 9.867180e+00 : f16
  // CHECK-NEXT: tensor<bf16>
  // CHECK-NEXT: 1.000980e-01 : bf16
}
EOM
for be in ref runtime; do
    run "$PLUMB" run --backend "$be" "$tmp/p.mlir"
    if [ "$rc" = 0 ] && grep -q 'RUN 1: ok' "$tmp/out"; then ok "APFloat's digits in the first generation's format ($be)"
    else fail "APFloat's digits in the first generation's format ($be): exit $rc"; fi
done

# The current format (stablehlo-translate --interpret, FileCheck) prints the
# same digits.
cat > "$tmp/q.mlir" <<'EOM'
// RUN: stablehlo-translate --interpret %s | FileCheck %s

func.func @main() -> tensor<2xf16> {
  %0 = stablehlo.constant dense<[0.1, 3.140625]> : tensor<2xf16>
  %1 = stablehlo.constant dense<[1.0, 3.140625]> : tensor<2xf16>
  %2 = stablehlo.multiply %0, %1 : tensor<2xf16>
  func.return %2 : tensor<2xf16>
  // CHECK: tensor<2xf16> {
  // CHECK-NEXT: [9.997550e-02, 9.867180e+00]
}
EOM
for be in ref runtime; do
    run "$PLUMB" run --backend "$be" "$tmp/q.mlir"
    if [ "$rc" = 0 ] && grep -q 'RUN 1: ok' "$tmp/out"; then ok "APFloat's digits in the current format ($be)"
    else fail "APFloat's digits in the current format ($be): exit $rc"; cat "$tmp/out" "$tmp/err" | head -5; fi
done
finish
