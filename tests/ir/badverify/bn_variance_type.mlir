// expect-error: 3:8: stablehlo.batch_norm_inference: variance has element type f64 but operand has f32 (StableHLO C2: same element type)
func.func @main(%x: tensor<2x3xf32>, %v: tensor<3xf32>, %w: tensor<3xf64>) -> tensor<2x3xf32> {
  %r = "stablehlo.batch_norm_inference"(%x, %v, %v, %v, %w) {epsilon = 1.0e-05 : f32, feature_index = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf64>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
