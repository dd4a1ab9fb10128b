// expect-error: 3:28: stablehlo.rng_bit_generator: initial_state has type tensor<3xui64>; THREE_FRY needs tensor<2xui64> (StableHLO C2)
func.func @main(%s: tensor<3xui64>) -> tensor<4xui32> {
  %output_state, %output = stablehlo.rng_bit_generator %s, algorithm =  THREE_FRY : (tensor<3xui64>) -> (tensor<3xui64>, tensor<4xui32>)
  return %output : tensor<4xui32>
}
