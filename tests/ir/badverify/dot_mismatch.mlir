// expect-error: 3:8: stablehlo.dot: lhs's last dimension (3) does not match rhs's first dimension (2)
func.func @main(%a: tensor<2x3xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "stablehlo.dot"(%a, %b) : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
