// expect-error: 3:8: stablehlo.cholesky: a has rank 1
func.func @main(%a: tensor<3xf32>) -> tensor<3xf32> {
  %x = stablehlo.cholesky %a, lower = true : tensor<3xf32>
  return %x : tensor<3xf32>
}
