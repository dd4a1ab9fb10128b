// expect-error: 3:8: stablehlo.iota: iota_dimension = 2 is out of range for result rank 2 (StableHLO C1)
func.func @main() -> tensor<4x5xi32> {
  %0 = stablehlo.iota dim = 2 : tensor<4x5xi32>
  return %0 : tensor<4x5xi32>
}
