// expect-error: 4:8: stablehlo.dynamic_gather: slice_sizes[0] = 4 is outside [0, 3], the operand's dimension size (StableHLO C21)
func.func @main(%a: tensor<3x?xf32>, %i: tensor<?x1xi64>) -> tensor<?x4xf32> {
  %s = stablehlo.constant dense<[4, 1]> : tensor<2xi32>
  %0 = "stablehlo.dynamic_gather"(%a, %i, %s) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 1>} : (tensor<3x?xf32>, tensor<?x1xi64>, tensor<2xi32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
