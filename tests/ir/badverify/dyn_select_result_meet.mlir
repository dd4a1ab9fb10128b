// expect-error: 3:8: stablehlo.select: result 0 (%0): type tensor<2xf32> does not match the inferred type tensor<3xf32> (StableHLO C2)
func.func @main(%p: tensor<i1>, %a: tensor<?xf32>, %b: tensor<3xf32>) -> tensor<2xf32> {
  %0 = stablehlo.select %p, %a, %b : (tensor<i1>, tensor<?xf32>, tensor<3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
