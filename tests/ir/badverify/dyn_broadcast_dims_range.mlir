// expect-error: 3:8: stablehlo.dynamic_broadcast_in_dim: broadcast_dimensions[0] = 2 is out of range for result rank 2 (StableHLO C3)
func.func @main(%a: tensor<?xf32>, %s: tensor<2xi32>) -> tensor<?x4xf32> {
  %0 = stablehlo.dynamic_broadcast_in_dim %a, %s, dims = [2] : (tensor<?xf32>, tensor<2xi32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
