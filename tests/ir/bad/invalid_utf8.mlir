// expect-error: 3:14: invalid UTF-8
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  // comment ÿþ here
  return %a : tensor<2xf32>
}
