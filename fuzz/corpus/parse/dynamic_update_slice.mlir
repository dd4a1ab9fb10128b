func.func @main(%x: tensor<7x13xi1>, %u: tensor<3x6xi1>, %i0: tensor<i32>, %i1: tensor<i32>) -> (tensor<7x13xi1>) {
  %r = stablehlo.dynamic_update_slice %x, %u, %i0, %i1 : (tensor<7x13xi1>, tensor<3x6xi1>, tensor<i32>, tensor<i32>) -> tensor<7x13xi1>
  return %r : tensor<7x13xi1>
}
