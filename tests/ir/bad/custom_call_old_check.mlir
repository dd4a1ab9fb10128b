// expect-error: 3:50: '@check.eq' has one result, of type tensor<i1>
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.custom_call @check.eq(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  return %a : tensor<2xf32>
}
