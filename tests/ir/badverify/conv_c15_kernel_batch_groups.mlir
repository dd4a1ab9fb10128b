// expect-error: 3:8: rhs kernel output feature dimension 3 has size 3, not a multiple of batch_group_count = 2 (StableHLO C15)
func.func @main(%x: tensor<2x5x5x2xf32>, %w: tensor<3x3x2x3xf32>) -> tensor<1x3x3x3xf32> {
  %r = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 2 : i64, feature_group_count = 1 : i64} : (tensor<2x5x5x2xf32>, tensor<3x3x2x3xf32>) -> tensor<1x3x3x3xf32>
  return %r : tensor<1x3x3x3xf32>
}
