// expect-error: 3:8: stablehlo.reduce_precision: exponent_bits = 0 must be at least 1
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.reduce_precision %a, format = e0m10 : tensor<4xf32>
  return %0 : tensor<4xf32>
}
