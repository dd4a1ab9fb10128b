// expect-error: 3:54: expected an rng algorithm
func.func @main(%a: tensor<2xui64>) -> tensor<2xui64> {
  %0:2 = stablehlo.rng_bit_generator %a, algorithm = MERSENNE : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)
  return %a : tensor<2xui64>
}
