// expect-error: 5:11: redefinition of function '@main'
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  return %a : tensor<2xf32>
}
func.func @main() {
  return
}
