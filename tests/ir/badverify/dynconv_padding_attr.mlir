// expect-error: 3:8: stablehlo.dynamic_conv: has a padding attribute; dynamic_conv takes its padding from operand 2 (d_padding) only
func.func @main(%x: tensor<1x4x4x1xf32>, %w: tensor<3x3x1x1xf32>, %p: tensor<2x2xi64>) -> tensor<1x2x2x1xf32> {
  %r = "stablehlo.dynamic_conv"(%x, %w, %p) <{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, padding = dense<0> : tensor<2x2xi64>}> : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>, tensor<2x2xi64>) -> tensor<1x2x2x1xf32>
  return %r : tensor<1x2x2x1xf32>
}
