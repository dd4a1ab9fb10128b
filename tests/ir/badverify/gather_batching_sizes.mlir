// expect-error: 3:8: stablehlo.gather: batching dimension pair 0: operand dimension size 2 != start_indices dimension size 5 (StableHLO C17)
func.func @main(%a: tensor<2x3x4x2xi64>, %i: tensor<2x5x3x2xi64>) -> tensor<2x5x3x2x2xi64> {
  %0 = "stablehlo.gather"(%a, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [3, 4], collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [1], start_index_map = [2, 1], index_vector_dim = 3>, slice_sizes = array<i64: 1, 1, 2, 2>}> : (tensor<2x3x4x2xi64>, tensor<2x5x3x2xi64>) -> tensor<2x5x3x2x2xi64>
  return %0 : tensor<2x5x3x2x2xi64>
}
