// expect-error: 4:3: redefinition of value '%0'
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.abs %a : tensor<2xf32>
  %0 = stablehlo.abs %a : tensor<2xf32>
  return %0 : tensor<2xf32>
}
