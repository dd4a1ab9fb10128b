// expect-error: 2:38: expected '>', found ';'
func.func @main(%a: tuple<tensor<f32>; tensor<f32>>) {
  return
}
