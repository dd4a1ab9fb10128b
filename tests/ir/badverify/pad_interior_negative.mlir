// expect-error: 3:8: stablehlo.pad: interior_padding[0] = -1 must not be negative (StableHLO C3)
func.func @main(%a: tensor<3xf32>, %p: tensor<f32>) -> tensor<3xf32> {
  %0 = stablehlo.pad %a, %p, low = [0], high = [0], interior = [-1] : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
