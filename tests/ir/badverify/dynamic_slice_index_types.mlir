// expect-error: 3:8: stablehlo.dynamic_slice: operand 2 (%j): element type i32 does not match operand 1's i64 (StableHLO C3)
func.func @main(%a: tensor<5x3xf32>, %i: tensor<i64>, %j: tensor<i32>) -> tensor<2x1xf32> {
  %0 = stablehlo.dynamic_slice %a, %i, %j, sizes = [2, 1] : (tensor<5x3xf32>, tensor<i64>, tensor<i32>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}
