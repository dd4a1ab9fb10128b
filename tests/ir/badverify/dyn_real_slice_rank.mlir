// expect-error: 3:8: stablehlo.real_dynamic_slice: result has rank 1 but the operand has rank 2 (StableHLO slice C5)
func.func @main(%a: tensor<?x4xf32>, %s: tensor<2xi32>, %l: tensor<2xi32>, %t: tensor<2xi32>) -> tensor<?xf32> {
  %0 = stablehlo.real_dynamic_slice %a, %s, %l, %t : (tensor<?x4xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
