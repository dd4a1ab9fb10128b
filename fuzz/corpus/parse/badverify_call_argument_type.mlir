// expect-error: 3:8: func.call: operand 0 (%a) has type tensor<3xf32> but @g's parameter 0 has type tensor<2xf32>
func.func @main(%a: tensor<3xf32>) -> tensor<3xf32> {
  %0 = call @g(%a) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func private @g(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}
