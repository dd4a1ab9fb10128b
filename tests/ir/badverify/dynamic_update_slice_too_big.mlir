// expect-error: 3:8: stablehlo.dynamic_update_slice: update dimension 0 has size 4, larger than the operand's 3 (StableHLO C6)
func.func @main(%a: tensor<3xf32>, %u: tensor<4xf32>, %i: tensor<ui32>) -> tensor<3xf32> {
  %0 = stablehlo.dynamic_update_slice %a, %u, %i : (tensor<3xf32>, tensor<4xf32>, tensor<ui32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
