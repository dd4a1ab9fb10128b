// expect-error: 3:8: lhs complex<f64>, rhs complex<f64> and result complex<f32> must have one complex element type (StableHLO C27)
func.func @main(%x: tensor<1x6x2xcomplex<f64>>, %w: tensor<3x2x4xcomplex<f64>>, %p: tensor<1x2xi64>) -> tensor<1x6x4xcomplex<f32>> {
  %r = "stablehlo.dynamic_conv"(%x, %w, %p) <{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>, feature_group_count = 1 : i64}> : (tensor<1x6x2xcomplex<f64>>, tensor<3x2x4xcomplex<f64>>, tensor<1x2xi64>) -> tensor<1x6x4xcomplex<f32>>
  return %r : tensor<1x6x4xcomplex<f32>>
}
