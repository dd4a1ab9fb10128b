// expect-error: 3:43: expected '(', found 'tensor'
func.func @main(%a: tensor<2xi32>) -> tensor<2xi32> {
  %0 = stablehlo.dynamic_reshape %a, %a : tensor<2xi32>
  return %0 : tensor<2xi32>
}
