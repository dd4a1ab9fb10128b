// expect-error: 4:8: stablehlo.dynamic_reshape: result dimension 0: output_shape[0] gives the negative size -3 (StableHLO C4)
func.func @main(%a: tensor<?xf32>) -> tensor<?x2xf32> {
  %s = stablehlo.constant dense<[-3, 2]> : tensor<2xi32>
  %0 = stablehlo.dynamic_reshape %a, %s : (tensor<?xf32>, tensor<2xi32>) -> tensor<?x2xf32>
  return %0 : tensor<?x2xf32>
}
