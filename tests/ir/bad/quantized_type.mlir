// expect-error: 2:30: unsupported: element type '!quant.uniform
func.func @main(%a: tensor<2x!quant.uniform<i8:f32, 1.0>>) {
  return
}
