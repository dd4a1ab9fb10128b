// expect-error: 3:40: expected an element type, found 'float'
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %a, %a : tensor<2xfloat>
  return %0 : tensor<2xf32>
}
