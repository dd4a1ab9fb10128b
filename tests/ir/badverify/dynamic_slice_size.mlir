// expect-error: 3:8: stablehlo.dynamic_slice: slice_sizes[1] = 4 is outside [0, 3], the operand's dimension size (StableHLO C4)
func.func @main(%a: tensor<5x3xf32>, %i: tensor<i64>) -> tensor<2x4xf32> {
  %0 = stablehlo.dynamic_slice %a, %i, %i, sizes = [2, 4] : (tensor<5x3xf32>, tensor<i64>, tensor<i64>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}
