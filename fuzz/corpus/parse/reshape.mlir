func.func @main(%x: tensor<7x13xi1>) -> (tensor<13x7xi1>) {
  %r = stablehlo.reshape %x : (tensor<7x13xi1>) -> tensor<13x7xi1>
  return %r : tensor<13x7xi1>
}
