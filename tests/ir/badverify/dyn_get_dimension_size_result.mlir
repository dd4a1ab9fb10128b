// expect-error: 3:8: stablehlo.get_dimension_size: result has type tensor<i64>, expected tensor<i32>
func.func @main(%a: tensor<?x3xf32>) -> tensor<i64> {
  %0 = stablehlo.get_dimension_size %a, dim = 0 : (tensor<?x3xf32>) -> tensor<i64>
  return %0 : tensor<i64>
}
