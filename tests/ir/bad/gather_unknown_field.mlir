// expect-error: 3:75: unsupported: field 'foo_dims' in #stablehlo.gather
func.func @main(%a: tensor<2xf32>, %i: tensor<1x1xi32>) -> tensor<1xf32> {
  %0 = "stablehlo.gather"(%a, %i) <{dimension_numbers = #stablehlo.gather<foo_dims = [0]>, slice_sizes = array<i64: 1>}> : (tensor<2xf32>, tensor<1x1xi32>) -> tensor<1xf32>
  return %0 : tensor<1xf32>
}
