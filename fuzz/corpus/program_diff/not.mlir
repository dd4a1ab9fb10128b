func.func @main(%x: tensor<7x13xi1>) -> (tensor<7x13xi1>) {
  %r = stablehlo.not %x : tensor<7x13xi1>
  return %r : tensor<7x13xi1>
}
