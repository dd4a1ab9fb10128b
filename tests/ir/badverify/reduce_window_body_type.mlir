// expect-error: 3:8: body returns tensor<i1> as value 0, expected tensor<f32> (StableHLO C13)
func.func @main(%x: tensor<4xf32>, %c: tensor<f32>) -> tensor<3xf32> {
  %r = "stablehlo.reduce_window"(%x, %c) <{window_dimensions = array<i64: 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.compare GE, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %m : tensor<i1>
  }) : (tensor<4xf32>, tensor<f32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}
