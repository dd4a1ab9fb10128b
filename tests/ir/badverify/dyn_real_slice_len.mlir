// expect-error: 3:8: stablehlo.real_dynamic_slice: operand 2 (%l): limit_indices has 3 entries, expected 2 (the operand's rank) (StableHLO slice C2)
func.func @main(%a: tensor<?x4xf32>, %s: tensor<2xi32>, %l: tensor<3xi32>, %t: tensor<2xi32>) -> tensor<?x?xf32> {
  %0 = stablehlo.real_dynamic_slice %a, %s, %l, %t : (tensor<?x4xf32>, tensor<2xi32>, tensor<3xi32>, tensor<2xi32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
