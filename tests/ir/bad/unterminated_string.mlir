// expect-error: 2:61: unterminated string
func.func @main(%a: tensor<2xf32>) -> (tensor<2xf32> {foo = "abc}) {
  return %a : tensor<2xf32>
}
