// expect-error: 3:19: stablehlo.batch_norm_grad: operand 4 (%g): shape of tensor<4x3xf32> does not match operand 0
func.func @main(%x: tensor<2x3xf32>, %v: tensor<3xf32>, %g: tensor<4x3xf32>) -> tensor<2x3xf32> {
  %gx, %gs, %go = "stablehlo.batch_norm_grad"(%x, %v, %v, %v, %g) {epsilon = 1.0e-05 : f32, feature_index = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<4x3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>)
  return %gx : tensor<2x3xf32>
}
