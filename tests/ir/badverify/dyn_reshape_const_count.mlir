// expect-error: 4:8: stablehlo.dynamic_reshape: operand has 6 elements but output_shape describes 8 (StableHLO C2)
func.func @main(%a: tensor<6xf32>) -> tensor<?x2xf32> {
  %s = stablehlo.constant dense<[4, 2]> : tensor<2xi32>
  %0 = stablehlo.dynamic_reshape %a, %s : (tensor<6xf32>, tensor<2xi32>) -> tensor<?x2xf32>
  return %0 : tensor<?x2xf32>
}
