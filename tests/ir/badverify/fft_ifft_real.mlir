// expect-error: 3:8: stablehlo.fft: IFFT takes complex<f32>/complex<f64> and gives complex of the same component type, not complex<f32> to f32 (StableHLO C2)
func.func @main(%a: tensor<4xcomplex<f32>>) -> tensor<4xf32> {
  %x = stablehlo.fft %a, type = IFFT, length = [4] : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  return %x : tensor<4xf32>
}
