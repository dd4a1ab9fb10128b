// expect-error: 3:8: stablehlo.map: operand 1 (%b): shape of tensor<3x2xf32> does not match operand 0's tensor<2x3xf32> (StableHLO C1; no implicit broadcasting)
func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> tensor<2x3xf32> {
  %r = "stablehlo.map"(%a, %b) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {dimensions = array<i64: 0, 1>} : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
