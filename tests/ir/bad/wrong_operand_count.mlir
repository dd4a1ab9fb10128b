// expect-error: 3:8: op 'stablehlo.add' takes 2 operands, found 3
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %a, %a, %a : tensor<2xf32>
  return %0 : tensor<2xf32>
}
