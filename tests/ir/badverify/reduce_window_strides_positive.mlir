// expect-error: 3:8: window_strides[1] = -1 must be positive (StableHLO C7)
func.func @main(%x: tensor<4x4xf32>, %c: tensor<f32>) -> tensor<3x4xf32> {
  %r = "stablehlo.reduce_window"(%x, %c) <{window_dimensions = array<i64: 2, 1>, window_strides = array<i64: 1, -1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) : (tensor<4x4xf32>, tensor<f32>) -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}
