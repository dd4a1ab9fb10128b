// expect-error: 2:36: redefinition of value '%a'
func.func @main(%a: tensor<2xf32>, %a: tensor<2xf32>) -> tensor<2xf32> {
  return %a : tensor<2xf32>
}
