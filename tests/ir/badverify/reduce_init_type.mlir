// expect-error: 3:8: stablehlo.reduce: operand 1 (%c): element type f16 does not match operand 0's f32 (StableHLO C2)
func.func @main(%a: tensor<2x3xf32>, %c: tensor<f16>) -> tensor<2xf32> {
  %0 = stablehlo.reduce(%a init: %c) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f16>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
