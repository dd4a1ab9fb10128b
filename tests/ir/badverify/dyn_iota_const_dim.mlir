// expect-error: 4:8: stablehlo.dynamic_iota: result dimension 1 is declared 2 but output_shape[1] gives 3 (StableHLO C2)
func.func @main() -> tensor<?x2xf32> {
  %s = stablehlo.constant dense<[5, 3]> : tensor<2xi32>
  %0 = stablehlo.dynamic_iota %s, dim = 0 : (tensor<2xi32>) -> tensor<?x2xf32>
  return %0 : tensor<?x2xf32>
}
