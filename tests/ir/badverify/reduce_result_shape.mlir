// expect-error: 3:8: stablehlo.reduce: result 0 (%0): type tensor<3xf32> does not match the inferred type tensor<2xf32> (StableHLO C7, C8)
func.func @main(%a: tensor<2x3xf32>, %c: tensor<f32>) -> tensor<3xf32> {
  %0 = stablehlo.reduce(%a init: %c) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
