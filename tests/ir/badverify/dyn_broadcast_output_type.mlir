// expect-error: 3:8: stablehlo.dynamic_broadcast_in_dim: operand 1 (%s): output_dimensions has type tensor<2xf32>, expected a 1-dimensional integer tensor
func.func @main(%a: tensor<?xf32>, %s: tensor<2xf32>) -> tensor<?x4xf32> {
  %0 = stablehlo.dynamic_broadcast_in_dim %a, %s, dims = [0] : (tensor<?xf32>, tensor<2xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
