// expect-error: 3:8: stablehlo.dynamic_gather: operand 2 (%s): slice_sizes has 3 entries, expected 2 (the operand's rank) (StableHLO C20)
func.func @main(%a: tensor<3x?xf32>, %i: tensor<?x1xi64>, %s: tensor<3xi32>) -> tensor<?x3xf32> {
  %0 = "stablehlo.dynamic_gather"(%a, %i, %s) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 1>} : (tensor<3x?xf32>, tensor<?x1xi64>, tensor<3xi32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}
