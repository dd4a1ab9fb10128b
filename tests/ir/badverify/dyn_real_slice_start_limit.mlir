// expect-error: 5:8: stablehlo.real_dynamic_slice: dimension 1: start_indices (3) is above limit_indices (2) (StableHLO slice C3)
func.func @main(%a: tensor<?x4xf32>, %t: tensor<2xi32>) -> tensor<?x?xf32> {
  %s = stablehlo.constant dense<[0, 3]> : tensor<2xi32>
  %l = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %0 = stablehlo.real_dynamic_slice %a, %s, %l, %t : (tensor<?x4xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
