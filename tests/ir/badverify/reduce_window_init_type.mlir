// expect-error: 3:8: operand 1 (%c): element type f64 does not match operand 0's f32 (StableHLO C3)
func.func @main(%x: tensor<4xf32>, %c: tensor<f64>) -> tensor<3xf32> {
  %r = "stablehlo.reduce_window"(%x, %c) <{window_dimensions = array<i64: 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) : (tensor<4xf32>, tensor<f64>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}
