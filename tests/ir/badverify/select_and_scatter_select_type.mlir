// expect-error: 3:8: select returns tensor<f32> as value 0, expected tensor<i1> (StableHLO C9)
func.func @main(%x: tensor<4xf32>, %s: tensor<2xf32>, %c: tensor<f32>) -> tensor<4xf32> {
  %r = "stablehlo.select_and_scatter"(%x, %s, %c) <{window_dimensions = array<i64: 2>, window_strides = array<i64: 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %a : tensor<f32>
  }, {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) : (tensor<4xf32>, tensor<2xf32>, tensor<f32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
