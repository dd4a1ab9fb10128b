// expect-error: 3:8: stablehlo.concatenate: result 0 (%0): type tensor<12xf32> does not match the inferred type tensor<?xf32, #stablehlo.bounds<11>> (StableHLO C6)
func.func @main(%a: tensor<?xf32, #stablehlo.bounds<8>>, %b: tensor<3xf32>) -> tensor<12xf32> {
  %0 = stablehlo.concatenate %a, %b, dim = 0 : (tensor<?xf32, #stablehlo.bounds<8>>, tensor<3xf32>) -> tensor<12xf32>
  return %0 : tensor<12xf32>
}
