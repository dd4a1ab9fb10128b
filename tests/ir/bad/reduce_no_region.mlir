// expect-error: 3:8: op 'stablehlo.reduce' needs exactly one body region, found 0
func.func @main(%a: tensor<4xf32>, %b: tensor<f32>) -> tensor<f32> {
  %0 = "stablehlo.reduce"(%a, %b) <{dimensions = array<i64: 0>}> : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
