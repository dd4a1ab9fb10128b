// expect-error: 3:8: stablehlo.gather: result 0 (%0): type tensor<2x3x2x1xi32> does not match the inferred type tensor<2x3x2x2xi32> (StableHLO C22, C23)
func.func @main(%a: tensor<3x4x2xi32>, %i: tensor<2x3x2xi64>) -> tensor<2x3x2x1xi32> {
  %0 = "stablehlo.gather"(%a, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], collapsed_slice_dims = [0], start_index_map = [1, 0], index_vector_dim = 2>, slice_sizes = array<i64: 1, 2, 2>}> : (tensor<3x4x2xi32>, tensor<2x3x2xi64>) -> tensor<2x3x2x1xi32>
  return %0 : tensor<2x3x2x1xi32>
}
