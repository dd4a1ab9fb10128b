// expect-error: 3:22: use of undefined value '%1'
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.abs %1 : tensor<2xf32>
  %1 = stablehlo.abs %a : tensor<2xf32>
  return %0 : tensor<2xf32>
}
