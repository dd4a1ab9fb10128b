func.func @main(%x: tensor<7x13xi1>, %i: tensor<5x1xi32>, %u: tensor<5x13xi1>) -> (tensor<7x13xi1>) {
  %r = "stablehlo.scatter"(%x, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
    ^bb0(%a: tensor<i1>, %c: tensor<i1>):
      %s = stablehlo.add %a, %c : tensor<i1>
      stablehlo.return %s : tensor<i1>
    }) : (tensor<7x13xi1>, tensor<5x1xi32>, tensor<5x13xi1>) -> tensor<7x13xi1>
  return %r : tensor<7x13xi1>
}
