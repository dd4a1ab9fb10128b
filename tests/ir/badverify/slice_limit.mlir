// expect-error: 3:8: stablehlo.slice: dimension 0: need 0 <= start_indices (0) <= limit_indices (8) <= operand size (7) (StableHLO C3)
func.func @main(%a: tensor<7xf32>) -> tensor<8xf32> {
  %0 = stablehlo.slice %a [0:8] : (tensor<7xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
