// expect-error: 3:8: chlo.erf_inv: result 0 (%r): type tensor<4xf64> does not match the inferred type tensor<4xf32> (StableHLO C1)
func.func @main(%x: tensor<4xf32>, %i: tensor<4xi32>) {
  %r = chlo.erf_inv %x : tensor<4xf32> -> tensor<4xf64>
  return
}
