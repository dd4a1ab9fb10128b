// expect-error: 3:8: stablehlo.fft: result dimension 0 is 3, the operand's 2 (StableHLO C5)
func.func @main(%a: tensor<2x4xcomplex<f32>>) -> tensor<3x4xcomplex<f32>> {
  %x = stablehlo.fft %a, type = FFT, length = [4] : (tensor<2x4xcomplex<f32>>) -> tensor<3x4xcomplex<f32>>
  return %x : tensor<3x4xcomplex<f32>>
}
