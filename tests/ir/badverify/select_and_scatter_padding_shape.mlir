// expect-error: 3:8: padding has 6 entries, expected shape [2, 2] (StableHLO C8)
func.func @main(%x: tensor<4x4xf32>, %s: tensor<3x3xf32>, %c: tensor<f32>) -> tensor<4x4xf32> {
  %r = "stablehlo.select_and_scatter"(%x, %s, %c) <{padding = dense<0> : tensor<3x2xi64>, window_dimensions = array<i64: 2, 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %p = stablehlo.compare GE, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  }, {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) : (tensor<4x4xf32>, tensor<3x3xf32>, tensor<f32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}
