// expect-error: 3:8: feature_group_count = 2 and batch_group_count = 2: one of them must be 1 (StableHLO C23)
func.func @main(%x: tensor<2x5x5x2xf32>, %w: tensor<3x3x1x4xf32>) -> tensor<1x3x3x4xf32> {
  %r = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 2 : i64, feature_group_count = 2 : i64} : (tensor<2x5x5x2xf32>, tensor<3x3x1x4xf32>) -> tensor<1x3x3x4xf32>
  return %r : tensor<1x3x3x4xf32>
}
