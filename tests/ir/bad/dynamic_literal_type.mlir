// expect-error: 3:40: a literal's type must have static dimensions
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.constant dense<1.0> : tensor<?xf32>
  return %a : tensor<2xf32>
}
