func.func @main(%x: tensor<7x13xf16>) -> (tensor<7x13xf16>) {
  %r = stablehlo.floor %x : tensor<7x13xf16>
  return %r : tensor<7x13xf16>
}
