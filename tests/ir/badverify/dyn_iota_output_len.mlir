// expect-error: 3:8: stablehlo.dynamic_iota: operand 0 (%s): output_shape has 1 entries, expected 2 (the result's rank) (StableHLO C2)
func.func @main(%s: tensor<1xi32>) -> tensor<?x2xf32> {
  %0 = stablehlo.dynamic_iota %s, dim = 0 : (tensor<1xi32>) -> tensor<?x2xf32>
  return %0 : tensor<?x2xf32>
}
