// expect-error: 3:8: stablehlo.map: computation returns tensor<i1> as value 0, expected tensor<f32> (StableHLO C4)
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = "stablehlo.map"(%a) ({
  ^bb0(%x: tensor<f32>):
    %c = stablehlo.compare LT, %x, %x : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }) {dimensions = array<i64: 0>} : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
