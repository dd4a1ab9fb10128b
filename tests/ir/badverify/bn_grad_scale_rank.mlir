// expect-error: 3:19: stablehlo.batch_norm_grad: scale must be a 1-dimensional tensor of dim(operand, feature_index) = 3 elements, has rank 2 (StableHLO C2, C4, C5)
func.func @main(%x: tensor<2x3xf32>, %s: tensor<1x3xf32>, %v: tensor<3xf32>) -> tensor<2x3xf32> {
  %gx, %gs, %go = "stablehlo.batch_norm_grad"(%x, %s, %v, %v, %x) {epsilon = 1.0e-05 : f32, feature_index = 1 : i64} : (tensor<2x3xf32>, tensor<1x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>)
  return %gx : tensor<2x3xf32>
}
