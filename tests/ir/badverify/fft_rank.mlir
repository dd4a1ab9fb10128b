// expect-error: 3:8: stablehlo.fft: operand has rank 1, less than size(fft_length) 2 (StableHLO C1)
func.func @main(%a: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  %x = stablehlo.fft %a, type = FFT, length = [4, 4] : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  return %x : tensor<4xcomplex<f32>>
}
