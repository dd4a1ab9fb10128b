// expect-error: 3:8: stablehlo.fft: operand dimension 1 is 8 but fft_length[0] is 4 (StableHLO C4)
func.func @main(%a: tensor<2x8xf64>) -> tensor<2x5xcomplex<f64>> {
  %x = stablehlo.fft %a, type = RFFT, length = [4] : (tensor<2x8xf64>) -> tensor<2x5xcomplex<f64>>
  return %x : tensor<2x5xcomplex<f64>>
}
