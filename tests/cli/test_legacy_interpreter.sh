#!/bin/sh
# The first generation of StableHLO's interpreter tests (stablehlo/tests/
# interpret_*.mlir as interpret_add.mlir was written): `stablehlo-interpreter
# --interpret -split-input-file %s | FileCheck %s`, each case's results
# printed after "Evaluated results of function: NAME" as the type, then one
# element per line with its type (complex parts typed too), matched with
# CHECK-LABEL and CHECK-NEXT. plumb runs such a line and
# prints that format (cli_interp_print_legacy). Every expected line below is
# worked out by hand: 7 + 1 wraps to -8 in i4; 2^24 + 1 is not an f32, the
# sum rounds to 2^24 = 16777216, whose 6-digit form 1.677722e+07 reads back
# as 16777220 (another f32) and whose shortest form 16777216 has no '.', so
# MLIR's float printer writes its bits, 0x4B800000; 1/3 in f32 is
# 0x3EAAAAAB (3 / 9 here), 0.333333343 in 9 digits; (1 + 2i) + (0.5 - 2i) is 1.5 + 0i.
# Each program runs on the reference and on the runtime.
# Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"
lib_init legacy_interpreter
need_plumb

cat > "$tmp/good.mlir" <<'EOM'
// RUN: stablehlo-interpreter --interpret -split-input-file %s | FileCheck %s

// CHECK-LABEL: Evaluated results of function: add_i4
func.func @add_i4() -> tensor<2xi4> {
  %0 = stablehlo.constant dense<[7, -3]> : tensor<2xi4>
  %1 = stablehlo.constant dense<[1, 2]> : tensor<2xi4>
  %2 = stablehlo.add %0, %1 : tensor<2xi4>
  func.return %2 : tensor<2xi4>
  // CHECK-NEXT: tensor<2xi4>
  // CHECK-NEXT: -8 : i4
  // CHECK-NEXT: -1 : i4
}

// -----

// CHECK-LABEL: Evaluated results of function: floats
func.func @floats() -> (tensor<2xf32>, tensor<complex<f64>>, tensor<complex<f32>>) {
  %0 = stablehlo.constant dense<[16777216.0, 1.0]> : tensor<2xf32>
  %1 = stablehlo.constant dense<[1.0, 3.0]> : tensor<2xf32>
  %2 = stablehlo.add %0, %1 : tensor<2xf32>
  %3 = stablehlo.constant dense<[1.0, 9.0]> : tensor<2xf32>
  %4 = stablehlo.divide %1, %3 : tensor<2xf32>
  %5 = stablehlo.slice %2 [0:1] : (tensor<2xf32>) -> tensor<1xf32>
  %6 = stablehlo.slice %4 [1:2] : (tensor<2xf32>) -> tensor<1xf32>
  %7 = stablehlo.concatenate %5, %6, dim = 0 : (tensor<1xf32>, tensor<1xf32>) -> tensor<2xf32>
  %a = stablehlo.constant dense<(1.0, 2.0)> : tensor<complex<f64>>
  %b = stablehlo.constant dense<(0.5, -2.0)> : tensor<complex<f64>>
  %c = stablehlo.add %a, %b : tensor<complex<f64>>
  %d = stablehlo.constant dense<(1.0, 2.0)> : tensor<complex<f32>>
  func.return %7, %c, %d : tensor<2xf32>, tensor<complex<f64>>, tensor<complex<f32>>
  // CHECK-NEXT: tensor<2xf32>
  // CHECK-NEXT: 0x4B800000 : f32
  // CHECK-NEXT: 0.333333343 : f32
  // CHECK-NEXT: tensor<complex<f64>>
  // CHECK-NEXT: [1.500000e+00 : f64, 0.000000e+00 : f64]
  // CHECK-NEXT: tensor<complex<f32>> {
  // CHECK-NEXT: [1.000000e+00 : f32, 2.000000e+00 : f32]
}
EOM
for be in ref runtime; do
    run "$PLUMB" run --backend "$be" "$tmp/good.mlir"
    if [ "$rc" = 0 ] && grep -q 'RUN 1: ok' "$tmp/out"; then ok "the first generation's FileCheck line passes ($be)"
    else fail "the first generation's FileCheck line passes ($be): exit $rc"; fi
done

# A wrong element fails the line and names the CHECK line
sed 's|// CHECK-NEXT: -1 : i4|// CHECK-NEXT: 5 : i4|' "$tmp/good.mlir" > "$tmp/wrong.mlir"
for be in ref runtime; do
    run "$PLUMB" run --backend "$be" "$tmp/wrong.mlir"
    if [ "$rc" = 1 ] && grep -q "RUN 1: FAILED: line 11: CHECK-NEXT: '5 : i4'" "$tmp/out"; then
        ok "a wrong element fails on its CHECK-NEXT line ($be)"
    else fail "a wrong element fails on its CHECK-NEXT line ($be): exit $rc"; fi
done

# The labels cut the output: a line of the second case's results checked
# under the first label is not found there
sed 's|// CHECK-NEXT: -1 : i4|// CHECK: 0.333333343 : f32|' "$tmp/good.mlir" > "$tmp/block.mlir"
run "$PLUMB" run "$tmp/block.mlir"
if [ "$rc" = 1 ] && grep -q "CHECK: '0.333333343 : f32' not found" "$tmp/out"; then
    ok "a CHECK is confined to its label's block"
else fail "a CHECK is confined to its label's block: exit $rc"; fi
finish
