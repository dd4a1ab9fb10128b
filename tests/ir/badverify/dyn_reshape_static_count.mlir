// expect-error: 3:8: stablehlo.dynamic_reshape: operand tensor<6xf32> has 6 elements but result tensor<4x2xf32> has 8 (StableHLO C2)
func.func @main(%a: tensor<6xf32>, %s: tensor<2xi32>) -> tensor<4x2xf32> {
  %0 = stablehlo.dynamic_reshape %a, %s : (tensor<6xf32>, tensor<2xi32>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}
