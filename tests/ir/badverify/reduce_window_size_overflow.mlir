// expect-error: 3:8: dimension 0: the dilated and padded input or the dilated window size overflows 64 bits
func.func @main(%x: tensor<4x4xf32>, %c: tensor<f32>) -> tensor<3x4xf32> {
  %r = "stablehlo.reduce_window"(%x, %c) <{base_dilations = array<i64: 4611686018427387904, 1>, window_dimensions = array<i64: 2, 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) : (tensor<4x4xf32>, tensor<f32>) -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}
