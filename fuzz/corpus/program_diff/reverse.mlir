func.func @main(%x: tensor<7x13xi1>) -> (tensor<7x13xi1>) {
  %r = stablehlo.reverse %x, dims = [0, 1] : tensor<7x13xi1>
  return %r : tensor<7x13xi1>
}
