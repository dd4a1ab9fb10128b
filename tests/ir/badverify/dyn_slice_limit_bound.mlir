// expect-error: 3:8: stablehlo.slice: dimension 0: limit_indices (5) is above the operand's bound 4, so no operand size admits it (StableHLO C3)
func.func @main(%a: tensor<?xf32, #stablehlo.bounds<4>>) -> tensor<5xf32> {
  %0 = stablehlo.slice %a [0:5] : (tensor<?xf32, #stablehlo.bounds<4>>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}
