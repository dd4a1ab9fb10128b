func.func @main(%x: tensor<7x13xi1>, %y: tensor<7x5xi1>) -> (tensor<7x18xi1>) {
  %r = stablehlo.concatenate %x, %y, dim = 1 : (tensor<7x13xi1>, tensor<7x5xi1>) -> tensor<7x18xi1>
  return %r : tensor<7x18xi1>
}
