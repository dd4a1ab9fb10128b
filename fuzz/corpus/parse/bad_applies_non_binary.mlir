// expect-error: 3:46: 'applies' needs a binary elementwise op, found 'stablehlo.abs'
func.func @main(%a: tensor<2xf32>, %c: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.reduce(%a init: %c) applies stablehlo.abs across dimensions = [0] : (tensor<2xf32>, tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
