// expect-error: 3:8: stablehlo.dynamic_gather: operand 1 (%i): start_indices must have an integer element type, not f32
func.func @main(%a: tensor<3x?xf32>, %i: tensor<?x1xf32>, %s: tensor<2xi32>) -> tensor<?x3xf32> {
  %0 = "stablehlo.dynamic_gather"(%a, %i, %s) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 1>} : (tensor<3x?xf32>, tensor<?x1xf32>, tensor<2xi32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}
