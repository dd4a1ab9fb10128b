// expect-error: 3:8: does not match the inferred type tensor<2x2xf32> (StableHLO C14, C15, C16)
func.func @main(%x: tensor<4x4xf32>, %c: tensor<f32>) -> tensor<3x3xf32> {
  %r = "stablehlo.reduce_window"(%x, %c) <{window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) : (tensor<4x4xf32>, tensor<f32>) -> tensor<3x3xf32>
  return %r : tensor<3x3xf32>
}
