// expect-error: 3:8: window_dimensions has 1 entries, expected the input's rank 2 (StableHLO C4)
func.func @main(%x: tensor<4x4xf32>, %s: tensor<2x2xf32>, %c: tensor<f32>) -> tensor<4x4xf32> {
  %r = "stablehlo.select_and_scatter"(%x, %s, %c) <{window_dimensions = array<i64: 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %p = stablehlo.compare GE, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  }, {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) : (tensor<4x4xf32>, tensor<2x2xf32>, tensor<f32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}
