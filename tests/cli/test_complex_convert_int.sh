#!/bin/sh
# convert from complex<f32>/complex<f64> to integer and i1 types
# (docs/spec/complex.md): the real part is converted as a float of that value
# would be, the imaginary part dropped, as StableHLO's interpreter test
# convert.mlir expects ((0, 1) -> false). Hand-derived: 2.9 -> 2 and -2.9 ->
# -2 (truncated toward zero), 3e9 -> 2147483647 and -inf -> -2147483648 in i32
# (saturated), NaN -> 0; -1.5 -> 0 and 300.25 -> 255 in ui8; 9.5 -> 7 and
# -9.5 -> -8 in i4; i1 is re != 0: (0, 1) -> false, (-0, 5) -> false,
# (NaN, 0) -> true, (0.5, 0) -> true. Each program runs on the reference and
# the runtime; a wrong expected value must fail its check on both.
# Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"
lib_init cconvint
need_plumb

# $1: the i32 value expected for (2.9, -7.0)
prog() {
    cat <<MLIR
func.func @main() {
  %x = stablehlo.constant dense<[(2.9, -7.0), (-2.9, 1.0), (3.0e9, 0.0), (0xFF800000, 0.0), (0x7FC00000, 2.0)]> : tensor<5xcomplex<f32>>
  %a = stablehlo.convert %x : (tensor<5xcomplex<f32>>) -> tensor<5xi32>
  check.expect_eq_const %a, dense<[$1, -2, 2147483647, -2147483648, 0]> : tensor<5xi32>
  %y = stablehlo.constant dense<[(-1.5, 4.0), (300.25, -1.0), (7.0, 9.0)]> : tensor<3xcomplex<f64>>
  %b = stablehlo.convert %y : (tensor<3xcomplex<f64>>) -> tensor<3xui8>
  check.expect_eq_const %b, dense<[0, 255, 7]> : tensor<3xui8>
  %z = stablehlo.constant dense<[(9.5, 0.0), (-9.5, 3.0), (-3.75, 0.0)]> : tensor<3xcomplex<f64>>
  %c = stablehlo.convert %z : (tensor<3xcomplex<f64>>) -> tensor<3xi4>
  check.expect_eq_const %c, dense<[7, -8, -3]> : tensor<3xi4>
  %w = stablehlo.constant dense<[(0.0, 1.0), (-0.0, 5.0), (0x7FF8000000000000, 0.0), (0.5, 0.0)]> : tensor<4xcomplex<f64>>
  %d = stablehlo.convert %w : (tensor<4xcomplex<f64>>) -> tensor<4xi1>
  check.expect_eq_const %d, dense<[false, false, true, true]> : tensor<4xi1>
  %e = stablehlo.convert %x : (tensor<5xcomplex<f32>>) -> tensor<5xi64>
  check.expect_eq_const %e, dense<[2, -2, 3000000000, -9223372036854775808, 0]> : tensor<5xi64>
  func.return
}
MLIR
}

prog 2 > "$tmp/good.mlir"
prog 3 > "$tmp/wrong.mlir"
for b in ref runtime; do
    if "$PLUMB" run --backend "$b" "$tmp/good.mlir" > "$tmp/out" 2> "$tmp/err"; then
        ok "$b: complex -> i32, ui8, i4, i1, i64 convert the real part (hand-derived values)"
    else
        fail "$b: complex -> i32, ui8, i4, i1, i64 convert the real part (hand-derived values)"
    fi
    if "$PLUMB" run --backend "$b" "$tmp/wrong.mlir" > "$tmp/out" 2> "$tmp/err"; then
        fail "$b: a wrong expected value (3 for 2.9) fails the check"
    elif grep -q 'check failed' "$tmp/err"; then
        ok "$b: a wrong expected value (3 for 2.9) fails the check"
    else
        fail "$b: a wrong expected value (3 for 2.9) fails the check (no 'check failed')"
    fi
done
# The same rule on a parameter, so that no backend can fold the convert away
# at compile time: -2.9 -> -2, (0, 1) -> 0 and false, 5e10 -> 2147483647.
cat > "$tmp/param.mlir" <<'MLIR'
func.func @main(%x: tensor<3xcomplex<f64>>) -> (tensor<3xi32>, tensor<3xi1>) {
  %a = stablehlo.convert %x : (tensor<3xcomplex<f64>>) -> tensor<3xi32>
  %b = stablehlo.convert %x : (tensor<3xcomplex<f64>>) -> tensor<3xi1>
  return %a, %b : tensor<3xi32>, tensor<3xi1>
}
MLIR
echo 'dense<[(-2.9, 1.0), (0.0, 1.0), (5.0e10, 0.0)]> : tensor<3xcomplex<f64>>' > "$tmp/x.txt"
printf '%s\n' 'tensor<3xi32> dense<[-2, 0, 2147483647]>' 'tensor<3xi1> dense<[true, false, true]>' > "$tmp/want"
expect_both_file "complex<f64> parameter -> i32 and i1 (hand-derived values)" "$tmp/want" \
    "$tmp/param.mlir" --input x="$tmp/x.txt"
finish
