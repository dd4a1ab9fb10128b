// expect-error: 3:8: stablehlo.batch_norm_inference: operand 0 (%x): element type i32 is not accepted (the op takes floats)
func.func @main(%x: tensor<2x3xi32>, %v: tensor<3xi32>) -> tensor<2x3xi32> {
  %r = "stablehlo.batch_norm_inference"(%x, %v, %v, %v, %v) {epsilon = 1.0e-05 : f32, feature_index = 1 : i64} : (tensor<2x3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  return %r : tensor<2x3xi32>
}
