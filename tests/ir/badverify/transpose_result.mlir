// expect-error: 3:8: stablehlo.transpose: result 0 (%0): type tensor<2x3xf32> does not match the inferred type tensor<3x2xf32> (StableHLO C3)
func.func @main(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
