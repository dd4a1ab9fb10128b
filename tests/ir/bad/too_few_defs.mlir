// expect-error: 3:3: op 'stablehlo.rng_bit_generator' has 2 results but 1 value is defined
func.func @main(%a: tensor<2xui64>) -> tensor<2xui64> {
  %0 = stablehlo.rng_bit_generator %a, algorithm = PHILOX : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)
  return %a : tensor<2xui64>
}
