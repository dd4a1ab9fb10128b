// expect-error: 6:8: stablehlo.real_dynamic_slice: result dimension 1 is declared 3 but ceil((limit_indices - start_indices) / strides) on dimension 1 gives 2 (StableHLO slice C5)
func.func @main(%a: tensor<?x4xf32>) -> tensor<1x3xf32> {
  %s = stablehlo.constant dense<[0, 0]> : tensor<2xi32>
  %l = stablehlo.constant dense<[1, 4]> : tensor<2xi32>
  %t = stablehlo.constant dense<[1, 3]> : tensor<2xi32>
  %0 = stablehlo.real_dynamic_slice %a, %s, %l, %t : (tensor<?x4xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<1x3xf32>
  return %0 : tensor<1x3xf32>
}
