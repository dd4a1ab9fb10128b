func.func @main(%x: tensor<7x13xf16>) -> (tensor<7x13xi1>) {
  %r = stablehlo.is_finite %x : (tensor<7x13xf16>) -> tensor<7x13xi1>
  return %r : tensor<7x13xi1>
}
