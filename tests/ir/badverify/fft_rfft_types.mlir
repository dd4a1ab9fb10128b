// expect-error: 3:8: stablehlo.fft: RFFT takes f32/f64 and gives complex of the same component type, not f32 to complex<f64> (StableHLO C2)
func.func @main(%a: tensor<4xf32>) -> tensor<3xcomplex<f64>> {
  %x = stablehlo.fft %a, type = RFFT, length = [4] : (tensor<4xf32>) -> tensor<3xcomplex<f64>>
  return %x : tensor<3xcomplex<f64>>
}
