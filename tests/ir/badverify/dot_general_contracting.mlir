// expect-error: 3:8: stablehlo.dot_general: contracting dimension pair 0: lhs dimension 1 has size 3 but rhs dimension 0 has size 4 (StableHLO C10)
func.func @main(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<2x5xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}
