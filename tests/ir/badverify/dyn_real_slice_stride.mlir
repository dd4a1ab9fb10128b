// expect-error: 4:8: stablehlo.real_dynamic_slice: strides[1] = 0 must be positive (StableHLO slice C4)
func.func @main(%a: tensor<?x4xf32>, %s: tensor<2xi32>, %l: tensor<2xi32>) -> tensor<?x?xf32> {
  %t = stablehlo.constant dense<[1, 0]> : tensor<2xi32>
  %0 = stablehlo.real_dynamic_slice %a, %s, %l, %t : (tensor<?x4xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
