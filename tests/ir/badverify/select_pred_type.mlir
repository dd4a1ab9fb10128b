// expect-error: 3:8: stablehlo.select: operand 0 (%p): pred must have element type i1, not i32
func.func @main(%p: tensor<i32>, %a: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "stablehlo.select"(%p, %a, %a) : (tensor<i32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
