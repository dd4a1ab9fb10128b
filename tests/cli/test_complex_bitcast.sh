#!/bin/sh
# bitcast_convert with complex operands and results (docs/spec/complex.md):
# a complex element is its components' bits, real part first, each
# little-endian. Hand-derived: (1.0, -2.0) as complex<f32> is the i64
# 0xC0000000_3F800000 (-2.0f = 0xC0000000 above 1.0f = 0x3F800000) and the
# i16 words 0x0000 0x3F80 0x0000 0xC000 (0, 16256, 0, -16384); (0.5, 3.0)
# is 0x40400000_3F000000. Each program runs on the reference and the
# runtime; a wrong expected value must fail its check on both.
# Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"
lib_init cbitcast

# $1: the i64 value expected for (1.0, -2.0)
prog() {
    cat <<MLIR
func.func @main() {
  %x = stablehlo.constant dense<[(1.0, -2.0), (0.5, 3.0)]> : tensor<2xcomplex<f32>>
  %a = stablehlo.bitcast_convert %x : (tensor<2xcomplex<f32>>) -> tensor<2xi64>
  check.expect_eq_const %a, dense<[$1, 4629700417993834496]> : tensor<2xi64>
  %b = stablehlo.bitcast_convert %x : (tensor<2xcomplex<f32>>) -> tensor<2x4xi16>
  check.expect_eq_const %b, dense<[[0, 16256, 0, -16384], [0, 16128, 0, 16448]]> : tensor<2x4xi16>
  %c = stablehlo.bitcast_convert %a : (tensor<2xi64>) -> tensor<2xcomplex<f32>>
  check.expect_eq %c, %x : tensor<2xcomplex<f32>>
  %y = stablehlo.constant dense<[(1.0, -2.0)]> : tensor<1xcomplex<f64>>
  %d = stablehlo.bitcast_convert %y : (tensor<1xcomplex<f64>>) -> tensor<1x2xf64>
  check.expect_eq_const %d, dense<[[1.0, -2.0]]> : tensor<1x2xf64>
  %e = stablehlo.bitcast_convert %x : (tensor<2xcomplex<f32>>) -> tensor<2xf64>
  %f = stablehlo.reshape %e : (tensor<2xf64>) -> tensor<1x2xf64>
  %g = stablehlo.bitcast_convert %f : (tensor<1x2xf64>) -> tensor<1xcomplex<f64>>
  %h = stablehlo.bitcast_convert %g : (tensor<1xcomplex<f64>>) -> tensor<1x2xcomplex<f32>>
  %k = stablehlo.reshape %h : (tensor<1x2xcomplex<f32>>) -> tensor<2xcomplex<f32>>
  check.expect_eq %k, %x : tensor<2xcomplex<f32>>
  func.return
}
MLIR
}

prog -4611686017362034688 > "$tmp/good.mlir"
prog -4611686017362034687 > "$tmp/wrong.mlir"
for b in ref runtime; do
    if "$PLUMB" run --backend "$b" "$tmp/good.mlir" > "$tmp/out" 2> "$tmp/err"; then
        ok "complex bitcast_convert to and from i64, i16, f64 and complex<f64> on $b"
    else
        fail "complex bitcast_convert to and from i64, i16, f64 and complex<f64> on $b"
    fi
    if "$PLUMB" run --backend "$b" "$tmp/wrong.mlir" > "$tmp/out" 2> "$tmp/err"; then
        fail "a wrong expected bit pattern fails its check on $b (it passed)"
    elif grep -q "0xC00000003F800000" "$tmp/err"; then
        ok "a wrong expected bit pattern fails its check on $b"
    else
        fail "a wrong expected bit pattern fails its check on $b (no bit pattern in the report)"
    fi
done

finish
