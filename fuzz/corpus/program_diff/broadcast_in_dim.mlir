func.func @main(%x: tensor<13xi1>) -> (tensor<3x13xi1>) {
  %r = stablehlo.broadcast_in_dim %x, dims = [1] : (tensor<13xi1>) -> tensor<3x13xi1>
  return %r : tensor<3x13xi1>
}
