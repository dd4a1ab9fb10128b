// expect-error: 3:8: operand 1 (%s): element type f64 does not match operand 0's f32 (StableHLO C1)
func.func @main(%x: tensor<4xf32>, %s: tensor<2xf64>, %c: tensor<f32>) -> tensor<4xf32> {
  %r = "stablehlo.select_and_scatter"(%x, %s, %c) <{window_dimensions = array<i64: 2>, window_strides = array<i64: 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %p = stablehlo.compare GE, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  }, {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) : (tensor<4xf32>, tensor<2xf64>, tensor<f32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
