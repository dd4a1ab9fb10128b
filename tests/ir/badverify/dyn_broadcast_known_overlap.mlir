// expect-error: 3:8: stablehlo.dynamic_broadcast_in_dim: known_expanding_dimensions[0] and known_nonexpanding_dimensions[0] are both 0 (StableHLO C8)
func.func @main(%a: tensor<?xf32>, %s: tensor<2xi32>) -> tensor<?x4xf32> {
  %0 = stablehlo.dynamic_broadcast_in_dim %a, %s, dims = [0] {known_expanding_dimensions = array<i64: 0>, known_nonexpanding_dimensions = array<i64: 0>} : (tensor<?xf32>, tensor<2xi32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
