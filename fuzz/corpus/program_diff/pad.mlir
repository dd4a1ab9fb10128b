func.func @main(%x: tensor<7x13xi1>, %v: tensor<i1>) -> (tensor<15x13xi1>) {
  %r = stablehlo.pad %x, %v, low = [2, -1], high = [0, 1], interior = [1, 0] : (tensor<7x13xi1>, tensor<i1>) -> tensor<15x13xi1>
  return %r : tensor<15x13xi1>
}
