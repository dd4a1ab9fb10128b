// expect-error: 3:8: stablehlo.clamp: operand 0 (%m): shape of tensor<2xf32> does not match operand 1's tensor<3xf32>
func.func @main(%m: tensor<2xf32>, %a: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "stablehlo.clamp"(%m, %a, %a) : (tensor<2xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
