// expect-error: 3:8: stablehlo.map: computation argument 1 (%y) has type tensor<f64>, expected tensor<f32> (StableHLO C4)
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %r = "stablehlo.map"(%a, %b) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f64>):
    stablehlo.return %x : tensor<f32>
  }) {dimensions = array<i64: 0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
