func.func @main(%x: tensor<7x13xi1>, %y: tensor<13x5xi1>) -> (tensor<7x5xi1>) {
  %r = stablehlo.dot_general %x, %y, contracting_dims = [1] x [0] : (tensor<7x13xi1>, tensor<13x5xi1>) -> tensor<7x5xi1>
  return %r : tensor<7x5xi1>
}
