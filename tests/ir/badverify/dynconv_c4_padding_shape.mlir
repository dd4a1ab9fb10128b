// expect-error: 3:8: stablehlo.dynamic_conv: operand 2 (%p): d_padding has type tensor<2x3xi64>, expected shape [2, 2] (rank(lhs) - 2 rows of (low, high)) (StableHLO C4)
func.func @main(%x: tensor<1x4x4x1xf32>, %w: tensor<3x3x1x1xf32>, %p: tensor<2x3xi64>) -> tensor<1x2x2x1xf32> {
  %r = "stablehlo.dynamic_conv"(%x, %w, %p) <{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64}> : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>, tensor<2x3xi64>) -> tensor<1x2x2x1xf32>
  return %r : tensor<1x2x2x1xf32>
}
