// expect-error: 3:26: expected a comparison direction
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.compare BIGGER, %a, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  return %a : tensor<2xf32>
}
