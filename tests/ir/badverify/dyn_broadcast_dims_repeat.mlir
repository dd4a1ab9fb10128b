// expect-error: 3:8: stablehlo.dynamic_broadcast_in_dim: broadcast_dimensions[1] = 0 repeats broadcast_dimensions[0] (StableHLO C4)
func.func @main(%a: tensor<?x?xf32>, %s: tensor<2xi32>) -> tensor<?x4xf32> {
  %0 = stablehlo.dynamic_broadcast_in_dim %a, %s, dims = [0, 0] : (tensor<?x?xf32>, tensor<2xi32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
