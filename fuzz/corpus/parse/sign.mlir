func.func @main(%x: tensor<7x13xi8>) -> (tensor<7x13xi8>) {
  %r = stablehlo.sign %x : tensor<7x13xi8>
  return %r : tensor<7x13xi8>
}
