func.func @main(%x: tensor<7x13xf16>) -> (tensor<7x13xf16>) {
  %r = chlo.erf %x : tensor<7x13xf16>
  return %r : tensor<7x13xf16>
}
