// expect-error: 3:8: stablehlo.select: operand 0 (%p): shape of tensor<3xi1> does not match operand 1's tensor<2x3xf32>
func.func @main(%p: tensor<3xi1>, %a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "stablehlo.select"(%p, %a, %a) : (tensor<3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
