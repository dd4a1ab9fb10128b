// expect-error: 3:8: stablehlo.cholesky: result 0
func.func @main(%a: tensor<2x2xf32>) -> tensor<2x2xf64> {
  %x = "stablehlo.cholesky"(%a) <{lower = true}> : (tensor<2x2xf32>) -> tensor<2x2xf64>
  return %x : tensor<2x2xf64>
}
