// expect-error: 3:8: stablehlo.iota: result 0 (%0): type tensor<4294967296x4294967296xi8>: element count overflows 64 bits
func.func @main() -> tensor<i8> {
  %0 = stablehlo.iota dim = 0 : tensor<4294967296x4294967296xi8>
  %1 = stablehlo.constant dense<0> : tensor<i8>
  return %1 : tensor<i8>
}
