// expect-error: 3:8: stablehlo.iota: result 0 (%0): element type i1 is not accepted
func.func @main() -> tensor<4xi1> {
  %0 = stablehlo.iota dim = 0 : tensor<4xi1>
  return %0 : tensor<4xi1>
}
