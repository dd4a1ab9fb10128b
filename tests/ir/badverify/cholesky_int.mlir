// expect-error: 3:8: stablehlo.cholesky: operand 0
func.func @main(%a: tensor<2x2xi32>) -> tensor<2x2xi32> {
  %x = stablehlo.cholesky %a, lower = true : tensor<2x2xi32>
  return %x : tensor<2x2xi32>
}
