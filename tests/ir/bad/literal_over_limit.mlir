// expect-error: 3:40: dense literal of type tensor<4294967296x4294967296xf32>: element count overflows 64 bits
func.func @main() -> tensor<f32> {
  %0 = stablehlo.constant dense<0.0> : tensor<4294967296x4294967296xf32>
  return %0 : tensor<f32>
}
