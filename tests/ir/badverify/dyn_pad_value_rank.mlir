// expect-error: 3:8: stablehlo.dynamic_pad: operand 1 (%p): padding_value must be 0-dimensional, has rank 1
func.func @main(%a: tensor<?xf32>, %p: tensor<1xf32>, %l: tensor<1xi32>, %h: tensor<1xi32>, %i: tensor<1xi32>) -> tensor<?xf32> {
  %0 = stablehlo.dynamic_pad %a, %p, %l, %h, %i : (tensor<?xf32>, tensor<1xf32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
