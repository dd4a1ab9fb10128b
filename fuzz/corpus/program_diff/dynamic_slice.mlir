func.func @main(%x: tensor<7x13xi1>, %i0: tensor<i32>, %i1: tensor<i32>) -> (tensor<3x6xi1>) {
  %r = stablehlo.dynamic_slice %x, %i0, %i1, sizes = [3, 6] : (tensor<7x13xi1>, tensor<i32>, tensor<i32>) -> tensor<3x6xi1>
  return %r : tensor<3x6xi1>
}
