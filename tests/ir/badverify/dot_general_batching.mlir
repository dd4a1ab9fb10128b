// expect-error: 3:8: stablehlo.dot_general: batching dimension pair 0: lhs dimension 0 has size 8 but rhs dimension 0 has size 7 (StableHLO C9)
func.func @main(%a: tensor<8x2x3xf32>, %b: tensor<7x3x5xf32>) -> tensor<8x2x5xf32> {
  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<8x2x3xf32>, tensor<7x3x5xf32>) -> tensor<8x2x5xf32>
  return %0 : tensor<8x2x5xf32>
}
