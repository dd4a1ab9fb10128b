// expect-error: 3:8: stablehlo.reduce: dimensions[0] = 2 is out of range for input rank 2 (StableHLO C4)
func.func @main(%a: tensor<2x3xf32>, %c: tensor<f32>) -> tensor<2x3xf32> {
  %0 = stablehlo.reduce(%a init: %c) applies stablehlo.add across dimensions = [2] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
