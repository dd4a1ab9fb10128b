// expect-error: 3:27: unterminated dense<...> literal
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.constant dense<[1.0, 2.0 : tensor<2xf32>
  return %0 : tensor<2xf32>
}
