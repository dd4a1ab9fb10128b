// expect-error: 3:8: stablehlo.dot_general: rhs_contracting_dimensions[0] = 2 is out of range for rhs rank 2 (StableHLO C8)
func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>) -> tensor<2x5xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [2] : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}
