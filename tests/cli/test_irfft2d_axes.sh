#!/bin/sh
# IRFFT over two axes takes the operand's first dimension as the first
# transform axis and the last (half-spectrum) dimension as the real one.
# Eleventh sweep: openxla/stablehlo interpret/fft.mlir at 088f9ad gives
# case irfft_2d a spectrum laid out across the wrong axes and expects
# [[1..4], ..., [13..16]]; plumb's answer differs, and this test pins the
# right one. The wanted values are the direct inverse DFT, worked out
# term by term (Python, complex double, not plumb):
#   x[n0][n1] = 1/16 sum_{k0<4} sum_{k1<4} X[k0][k1] e^{2 pi i (k0 n0 + k1 n1)/4}
# with X[k0][3] = conj(X[-k0 mod 4][1]) completing the half spectrum.
. "$(dirname "$0")/lib.sh"
lib_init irfft2d_axes
need_plumb

# A spectrum that is not symmetric under swapping the axes, so reading
# them in the other order gives other numbers.
cat > "$tmp/a.mlir" <<'P'
func.func @main() -> tensor<4x4xf64> {
  %x = stablehlo.constant dense<[[(136.0, 0.0), (-32.0, 32.0), (-32.0, 0.0)], [(-32.0, -32.0), (-8.0, 8.0), (0.0, 0.0)], [(0.0, 0.0), (0.0, 0.0), (-8.0, 0.0)], [(0.0, 0.0), (0.0, 0.0), (0.0, 0.0)]]> : tensor<4x3xcomplex<f64>>
  %r = stablehlo.fft %x, type = IRFFT, length = [4, 4] : (tensor<4x3xcomplex<f64>>) -> tensor<4x4xf64>
  check.expect_almost_eq_const %r, dense<[[-1.0, 4.0, 9.0, 14.0], [4.0, 9.0, 14.0, 15.0], [5.0, 10.0, 11.0, 16.0], [2.0, 3.0, 8.0, 13.0]]> : tensor<4x4xf64>, tolerance = 1.0e-12
  return %r : tensor<4x4xf64>
}
P
both_pass "IRFFT 4x4 of an axis-asymmetric spectrum" "$tmp/a.mlir"

# The round trip the same file's rfft_2d case checks: the spectrum of
# [[1..4], ..., [13..16]] in the right layout comes back to it
# (row sums 10, 26, 42, 58; column sums 28, 32, 36, 40 give X[0][0] = 136,
# X[0][1] = -8+8i, X[0][2] = -8, X[1][0] = -32+32i, X[2][0] = -32, X[3][0] = -32-32i).
cat > "$tmp/b.mlir" <<'P'
func.func @main() -> tensor<4x4xf64> {
  %x = stablehlo.constant dense<[[(136.0, 0.0), (-8.0, 8.0), (-8.0, 0.0)], [(-32.0, 32.0), (0.0, 0.0), (0.0, 0.0)], [(-32.0, 0.0), (0.0, 0.0), (0.0, 0.0)], [(-32.0, -32.0), (0.0, 0.0), (0.0, 0.0)]]> : tensor<4x3xcomplex<f64>>
  %r = stablehlo.fft %x, type = IRFFT, length = [4, 4] : (tensor<4x3xcomplex<f64>>) -> tensor<4x4xf64>
  check.expect_almost_eq_const %r, dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0], [13.0, 14.0, 15.0, 16.0]]> : tensor<4x4xf64>, tolerance = 1.0e-12
  return %r : tensor<4x4xf64>
}
P
both_pass "IRFFT 4x4 of the spectrum of 1..16" "$tmp/b.mlir"
finish
