// expect-error: 2:11: function @main: argument 0 (%a): type tensor<4294967296x4294967296x16xf32>: element count overflows 64 bits
func.func @main(%a: tensor<4294967296x4294967296x16xf32>) -> tensor<f32> {
  %0 = stablehlo.constant dense<0.0> : tensor<f32>
  return %0 : tensor<f32>
}
