// expect-error: 3:8: stablehlo.fft: IRFFT of last dimension 4 gives 8 (StableHLO C5
func.func @main(%a: tensor<4xcomplex<f32>>) -> tensor<8xf32> {
  %x = stablehlo.fft %a, type = IRFFT, length = [8] : (tensor<4xcomplex<f32>>) -> tensor<8xf32>
  return %x : tensor<8xf32>
}
