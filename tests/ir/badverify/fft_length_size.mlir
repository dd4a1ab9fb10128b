// expect-error: 3:8: stablehlo.fft: fft_length has 4 entries (StableHLO C3
func.func @main(%a: tensor<2x2x2x2xcomplex<f32>>) -> tensor<2x2x2x2xcomplex<f32>> {
  %x = stablehlo.fft %a, type = FFT, length = [2, 2, 2, 2] : (tensor<2x2x2x2xcomplex<f32>>) -> tensor<2x2x2x2xcomplex<f32>>
  return %x : tensor<2x2x2x2xcomplex<f32>>
}
