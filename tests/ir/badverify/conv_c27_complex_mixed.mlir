// expect-error: 3:8: lhs complex<f32>, rhs f32 and result complex<f32> must have one complex element type (StableHLO C27)
func.func @main(%x: tensor<1x5x5x2xcomplex<f32>>, %w: tensor<3x3x2x4xf32>) -> tensor<1x3x3x4xcomplex<f32>> {
  %r = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x5x5x2xcomplex<f32>>, tensor<3x3x2x4xf32>) -> tensor<1x3x3x4xcomplex<f32>>
  return %r : tensor<1x3x3x4xcomplex<f32>>
}
