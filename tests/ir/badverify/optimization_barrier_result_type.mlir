// expect-error: 3:8: stablehlo.optimization_barrier: result 0 (%r): type tensor<2xi64> does not match the inferred type tensor<2xi32> (StableHLO C1: type(operand...) = type(result...))
func.func @main(%a: tensor<2xi32>) -> tensor<2xi64> {
  %r = "stablehlo.optimization_barrier"(%a) : (tensor<2xi32>) -> tensor<2xi64>
  return %r : tensor<2xi64>
}
