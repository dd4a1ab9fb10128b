// expect-error: 4:8: stablehlo.dynamic_broadcast_in_dim: operand 1 (%s): output_dimensions[0] = 18446744073709551615 does not fit in a signed 64-bit size
func.func @main(%a: tensor<?xf32>) -> tensor<?x4xf32> {
  %s = stablehlo.constant dense<[18446744073709551615, 4]> : tensor<2xui64>
  %0 = stablehlo.dynamic_broadcast_in_dim %a, %s, dims = [0] : (tensor<?xf32>, tensor<2xui64>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
