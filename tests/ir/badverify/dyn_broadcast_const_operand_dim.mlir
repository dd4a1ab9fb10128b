// expect-error: 4:8: stablehlo.dynamic_broadcast_in_dim: operand dimension 0 has size 3, which is neither 1 nor output_dimensions[1] = 4 (StableHLO C5)
func.func @main(%a: tensor<3xf32>) -> tensor<?x?xf32> {
  %s = stablehlo.constant dense<[2, 4]> : tensor<2xi32>
  %0 = stablehlo.dynamic_broadcast_in_dim %a, %s, dims = [1] : (tensor<3xf32>, tensor<2xi32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
