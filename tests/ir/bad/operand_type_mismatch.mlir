// expect-error: 3:22: operand 0 of 'stablehlo.abs' has type tensor<2xf32> but the signature says tensor<3xf32>
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.abs %a : tensor<3xf32>
  return %0 : tensor<2xf32>
}
