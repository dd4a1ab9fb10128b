// expect-error: 3:8: stablehlo.dynamic_broadcast_in_dim: broadcast_dimensions has 2 entries but the operand has rank 1 (StableHLO C2)
func.func @main(%a: tensor<?xf32>, %s: tensor<2xi32>) -> tensor<?x4xf32> {
  %0 = stablehlo.dynamic_broadcast_in_dim %a, %s, dims = [0, 1] : (tensor<?xf32>, tensor<2xi32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
