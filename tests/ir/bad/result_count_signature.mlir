// expect-error: 3:10: op 'stablehlo.abs' has 1 result, but its signature declares 2
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0:2 = "stablehlo.abs"(%a) : (tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  return %a : tensor<2xf32>
}
