// expect-error: 3:40: expected ', dim = N', found ':'
func.func @main(%a: tensor<?xf32>) -> tensor<i32> {
  %0 = stablehlo.get_dimension_size %a : (tensor<?xf32>) -> tensor<i32>
  return %0 : tensor<i32>
}
