// expect-error: 3:8: stablehlo.concatenate: operand 1 (%b): dimension 0 has size 3 but operand 0's has 2 (StableHLO C2)
func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x3xf32>) -> tensor<2x6xf32> {
  %0 = stablehlo.concatenate %a, %b, dim = 1 : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}
