// expect-error: 3:8: stablehlo.pad: result dimension 0 would be -1
func.func @main(%a: tensor<3xf32>, %p: tensor<f32>) -> tensor<1xf32> {
  %0 = stablehlo.pad %a, %p, low = [-2], high = [-2], interior = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<1xf32>
  return %0 : tensor<1xf32>
}
