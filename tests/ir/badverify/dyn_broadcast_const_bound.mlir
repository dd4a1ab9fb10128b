// expect-error: 4:8: stablehlo.dynamic_broadcast_in_dim: result dimension 0: output_dimensions[0] gives 9, above the declared bound 8 (StableHLO C7)
func.func @main(%a: tensor<?xf32>) -> tensor<?x4xf32, #stablehlo.bounds<8, ?>> {
  %s = stablehlo.constant dense<[9, 4]> : tensor<2xi64>
  %0 = stablehlo.dynamic_broadcast_in_dim %a, %s, dims = [0] : (tensor<?xf32>, tensor<2xi64>) -> tensor<?x4xf32, #stablehlo.bounds<8, ?>>
  return %0 : tensor<?x4xf32, #stablehlo.bounds<8, ?>>
}
