// expect-error: 3:40: integer '9223372036854775808' does not fit in 64 bits
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.transpose %a, dims = [9223372036854775808] : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
