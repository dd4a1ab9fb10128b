// expect-error: 3:8: stablehlo.dynamic_iota: iota_dimension = 2 is out of range for result rank 2 (StableHLO C1)
func.func @main(%s: tensor<2xi32>) -> tensor<?x2xf32> {
  %0 = stablehlo.dynamic_iota %s, dim = 2 : (tensor<2xi32>) -> tensor<?x2xf32>
  return %0 : tensor<?x2xf32>
}
