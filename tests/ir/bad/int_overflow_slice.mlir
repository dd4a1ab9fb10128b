// expect-error: 3:28: integer '18446744073709551616' does not fit in 64 bits
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.slice %a [18446744073709551616:2] : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
