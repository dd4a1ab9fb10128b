// expect-error: 3:8: stablehlo.dynamic_broadcast_in_dim: known_nonexpanding_dimensions[0] = -1 is out of range for operand rank 1 (StableHLO C10)
func.func @main(%a: tensor<?xf32>, %s: tensor<2xi32>) -> tensor<?x4xf32> {
  %0 = stablehlo.dynamic_broadcast_in_dim %a, %s, dims = [0] {known_nonexpanding_dimensions = array<i64: -1>} : (tensor<?xf32>, tensor<2xi32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
