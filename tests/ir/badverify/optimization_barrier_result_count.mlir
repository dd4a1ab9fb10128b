// expect-error: 3:8: stablehlo.optimization_barrier: 2 operands but 1 results; each operand passes through to one result (StableHLO C1)
func.func @main(%a: tensor<2xi32>, %b: tensor<f32>) -> tensor<2xi32> {
  %r = "stablehlo.optimization_barrier"(%a, %b) : (tensor<2xi32>, tensor<f32>) -> tensor<2xi32>
  return %r : tensor<2xi32>
}
