// expect-error: 3:8: stablehlo.reshape: operand tensor<2x3xf32> has 6 elements but result tensor<5xf32> has 5 (StableHLO C2)
func.func @main(%a: tensor<2x3xf32>) -> tensor<5xf32> {
  %0 = stablehlo.reshape %a : (tensor<2x3xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}
