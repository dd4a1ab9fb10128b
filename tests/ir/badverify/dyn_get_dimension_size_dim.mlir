// expect-error: 3:8: stablehlo.get_dimension_size: dimension = 2 is out of range for operand rank 2 (StableHLO C1)
func.func @main(%a: tensor<?x3xf32>) -> tensor<i32> {
  %0 = stablehlo.get_dimension_size %a, dim = 2 : (tensor<?x3xf32>) -> tensor<i32>
  return %0 : tensor<i32>
}
