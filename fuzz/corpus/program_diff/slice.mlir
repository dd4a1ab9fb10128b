func.func @main(%x: tensor<7x13xi1>) -> (tensor<3x4xi1>) {
  %r = stablehlo.slice %x [1:6:2, 1:12:3] : (tensor<7x13xi1>) -> tensor<3x4xi1>
  return %r : tensor<3x4xi1>
}
