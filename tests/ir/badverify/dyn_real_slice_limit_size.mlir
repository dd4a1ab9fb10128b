// expect-error: 4:8: stablehlo.real_dynamic_slice: dimension 1: limit_indices (5) is above the operand's size 4 (StableHLO slice C3)
func.func @main(%a: tensor<?x4xf32>, %s: tensor<2xi32>, %t: tensor<2xi32>) -> tensor<?x?xf32> {
  %l = stablehlo.constant dense<[1, 5]> : tensor<2xi32>
  %0 = stablehlo.real_dynamic_slice %a, %s, %l, %t : (tensor<?x4xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
