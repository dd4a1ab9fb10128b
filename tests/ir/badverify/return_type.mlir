// expect-error: 3:3: func.return: operand 0 (%a) has type tensor<2xf32> but @main declares result 0 as tensor<3xf32>
func.func @main(%a: tensor<2xf32>) -> tensor<3xf32> {
  return %a : tensor<2xf32>
}
