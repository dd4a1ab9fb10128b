// expect-error: 4:10: result index #5 out of range: '%0' has 2 results
func.func @main(%a: tensor<2xui64>) -> tensor<2xui64> {
  %0:2 = stablehlo.rng_bit_generator %a, algorithm = PHILOX : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)
  return %0#5 : tensor<2xui64>
}
