// expect-error: 3:8: call to undefined function '@nowhere'
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = call @nowhere(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
