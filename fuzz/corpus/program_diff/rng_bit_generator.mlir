func.func @main(%s: tensor<2xui64>) -> (tensor<2xui64>, tensor<7x13xi8>) {
  %o, %v = stablehlo.rng_bit_generator %s, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<7x13xi8>)
  return %o, %v : tensor<2xui64>, tensor<7x13xi8>
}
