// expect-error: 4:8: stablehlo.dynamic_broadcast_in_dim: result dimension 1 is declared 4 but output_dimensions[1] gives 5 (StableHLO C7)
func.func @main(%a: tensor<?xf32>) -> tensor<?x4xf32> {
  %s = stablehlo.constant dense<[2, 5]> : tensor<2xi32>
  %0 = stablehlo.dynamic_broadcast_in_dim %a, %s, dims = [0] : (tensor<?xf32>, tensor<2xi32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
