// expect-error: 3:8: stablehlo.fft: RFFT of last dimension 8 gives 8 (StableHLO C5
func.func @main(%a: tensor<8xf64>) -> tensor<8xcomplex<f64>> {
  %x = stablehlo.fft %a, type = RFFT, length = [8] : (tensor<8xf64>) -> tensor<8xcomplex<f64>>
  return %x : tensor<8xcomplex<f64>>
}
