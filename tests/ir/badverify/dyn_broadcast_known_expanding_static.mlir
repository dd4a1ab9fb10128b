// expect-error: 3:8: stablehlo.dynamic_broadcast_in_dim: known_expanding_dimensions names operand dimension 0, whose static size 4 is not 1 and so cannot expand
func.func @main(%a: tensor<4xf32>, %s: tensor<2xi32>) -> tensor<?x4xf32> {
  %0 = stablehlo.dynamic_broadcast_in_dim %a, %s, dims = [1] {known_expanding_dimensions = array<i64: 0>} : (tensor<4xf32>, tensor<2xi32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
