// expect-error: 3:28: stablehlo.rng_bit_generator: initial_state has type tensor<2xui32>; PHILOX needs tensor<2xui64> or tensor<3xui64> (StableHLO C2)
func.func @main(%s: tensor<2xui32>) -> tensor<4xui32> {
  %output_state, %output = stablehlo.rng_bit_generator %s, algorithm =  PHILOX : (tensor<2xui32>) -> (tensor<2xui32>, tensor<4xui32>)
  return %output : tensor<4xui32>
}
