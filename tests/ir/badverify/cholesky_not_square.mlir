// expect-error: 3:8: stablehlo.cholesky: a's matrices are 2x3, not square
func.func @main(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %x = stablehlo.cholesky %a, lower = true : tensor<2x3xf32>
  return %x : tensor<2x3xf32>
}
