// expect-error: 3:8: stablehlo.scatter: update_computation returns tensor<f32> as value 0, expected tensor<ui64> (StableHLO C23)
func.func @main(%a: tensor<1x2x3xui64>, %i: tensor<1xi64>, %u: tensor<2x3xui64>) -> tensor<1x2x3xui64> {
  %2 = "stablehlo.scatter"(%a, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0, 1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0]>, unique_indices = true}> ({
    ^bb0(%arg0: tensor<ui64>, %arg1: tensor<ui64>):
      %3 = stablehlo.maximum %arg0, %arg1 : tensor<ui64>
      %4 = stablehlo.convert %3 : (tensor<ui64>) -> tensor<f32>
      stablehlo.return %4 : tensor<f32>
  }) : (tensor<1x2x3xui64>, tensor<1xi64>, tensor<2x3xui64>) -> tensor<1x2x3xui64>
  return %2 : tensor<1x2x3xui64>
}
