// expect-error: 4:3: expected ':', found 'return'
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %a, %a
  return %0 : tensor<2xf32>
}
