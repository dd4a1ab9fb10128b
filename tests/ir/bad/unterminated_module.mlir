// expect-error: expected '}', found end of input (unterminated module)
module @m {
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  return %a : tensor<2xf32>
}
