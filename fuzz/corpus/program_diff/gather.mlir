func.func @main(%x: tensor<7x13xi1>, %i: tensor<5x1xi32>) -> (tensor<5x13xi1>) {
  %r = "stablehlo.gather"(%x, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 13>}> : (tensor<7x13xi1>, tensor<5x1xi32>) -> tensor<5x13xi1>
  return %r : tensor<5x13xi1>
}
