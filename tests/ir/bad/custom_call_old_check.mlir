// expect-error: 3:30: unsupported: custom_call target '@check.eq'
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.custom_call @check.eq(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<i1>
  return %a : tensor<2xf32>
}
