func.func @main(%x: tensor<7x13xi1>, %c: tensor<i1>) -> (tensor<7xi1>) {
  %r = stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [1] : (tensor<7x13xi1>, tensor<i1>) -> tensor<7xi1>
  return %r : tensor<7xi1>
}
