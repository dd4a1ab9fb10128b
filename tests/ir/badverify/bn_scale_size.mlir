// expect-error: 3:8: stablehlo.batch_norm_inference: scale must be a 1-dimensional tensor of dim(operand, feature_index) = 3 elements, has size 2 (StableHLO C3)
func.func @main(%x: tensor<2x3xf32>, %s: tensor<2xf32>, %v: tensor<3xf32>) -> tensor<2x3xf32> {
  %r = "stablehlo.batch_norm_inference"(%x, %s, %v, %v, %v) {epsilon = 1.0e-05 : f32, feature_index = 1 : i64} : (tensor<2x3xf32>, tensor<2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
