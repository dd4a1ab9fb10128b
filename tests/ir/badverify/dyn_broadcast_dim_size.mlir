// expect-error: 3:8: stablehlo.dynamic_broadcast_in_dim: operand dimension 0 has size 3, which is neither 1 nor result dimension 1's size 4 (StableHLO C5)
func.func @main(%a: tensor<3xf32>, %s: tensor<2xi32>) -> tensor<?x4xf32> {
  %0 = stablehlo.dynamic_broadcast_in_dim %a, %s, dims = [1] : (tensor<3xf32>, tensor<2xi32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
