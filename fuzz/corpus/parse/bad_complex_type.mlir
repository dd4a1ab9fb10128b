// expect-error: 2:30: unsupported: element type 'complex'
func.func @main(%a: tensor<2xcomplex<f32>>) -> tensor<2xf32> {
  return %a : tensor<2xf32>
}
