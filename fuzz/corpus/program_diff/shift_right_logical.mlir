func.func @main(%x: tensor<7x13xi8>, %y: tensor<7x13xi8>) -> (tensor<7x13xi8>) {
  %r = stablehlo.shift_right_logical %x, %y : tensor<7x13xi8>
  return %r : tensor<7x13xi8>
}
