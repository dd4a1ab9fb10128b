// expect-error: 3:8: stablehlo.dynamic_conv: rhs kernel input feature dimension 2 has size 3, expected lhs features 2 / feature_group_count 1 = 2 (StableHLO C14)
func.func @main(%x: tensor<?x4x4x2xf32>, %w: tensor<3x3x3x1xf32>, %p: tensor<2x2xi64>) -> tensor<?x?x?x1xf32> {
  %r = "stablehlo.dynamic_conv"(%x, %w, %p) <{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64}> : (tensor<?x4x4x2xf32>, tensor<3x3x3x1xf32>, tensor<2x2xi64>) -> tensor<?x?x?x1xf32>
  return %r : tensor<?x?x?x1xf32>
}
