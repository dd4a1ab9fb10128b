// expect-error: 3:16: stablehlo.batch_norm_training: result 0
func.func @main(%x: tensor<2x3xf32>, %v: tensor<3xf32>) -> tensor<3x2xf32> {
  %y, %m, %s = "stablehlo.batch_norm_training"(%x, %v, %v) {epsilon = 1.0e-05 : f32, feature_index = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<3x2xf32>, tensor<3xf32>, tensor<3xf32>)
  return %y : tensor<3x2xf32>
}
