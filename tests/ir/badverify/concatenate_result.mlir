// expect-error: 3:8: stablehlo.concatenate: result 0 (%0): type tensor<4xf32> does not match the inferred type tensor<3xf32> (StableHLO C6)
func.func @main(%a: tensor<1xf32>, %b: tensor<2xf32>) -> tensor<4xf32> {
  %0 = stablehlo.concatenate %a, %b, dim = 0 : (tensor<1xf32>, tensor<2xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
