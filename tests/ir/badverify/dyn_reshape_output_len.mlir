// expect-error: 3:8: stablehlo.dynamic_reshape: operand 1 (%s): output_shape has 3 entries, expected 2 (the result's rank) (StableHLO C4)
func.func @main(%a: tensor<?xf32>, %s: tensor<3xi32>) -> tensor<?x2xf32> {
  %0 = stablehlo.dynamic_reshape %a, %s : (tensor<?xf32>, tensor<3xi32>) -> tensor<?x2xf32>
  return %0 : tensor<?x2xf32>
}
