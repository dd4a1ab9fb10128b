// expect-error: 3:8: stablehlo.dot_general: contracting dimension pair 0: lhs dimension 1 has size ? (bound 2) but rhs dimension 0 has size 3 (StableHLO C10)
func.func @main(%a: tensor<2x?xf32, #stablehlo.bounds<?, 2>>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x?xf32, #stablehlo.bounds<?, 2>>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}
