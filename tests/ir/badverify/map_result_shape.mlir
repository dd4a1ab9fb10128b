// expect-error: 3:8: stablehlo.map: result 0 (%r): type tensor<5xf32> does not match the inferred type tensor<4xf32> (StableHLO C1: shape(inputs...) = shape(result))
func.func @main(%a: tensor<4xf32>) -> tensor<5xf32> {
  %r = "stablehlo.map"(%a) ({
  ^bb0(%x: tensor<f32>):
    stablehlo.return %x : tensor<f32>
  }) {dimensions = array<i64: 0>} : (tensor<4xf32>) -> tensor<5xf32>
  return %r : tensor<5xf32>
}
