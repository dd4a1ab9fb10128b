// expect-error: 2:21: unsupported: type 'tuple'
func.func @main(%a: tuple<tensor<f32>>) {
  return
}
