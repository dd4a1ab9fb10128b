// expect-error: 2:30: unsupported: element type 'complex<f16>'
func.func @main(%a: tensor<2xcomplex<f16>>) -> tensor<2xf32> {
  return %a : tensor<2xf32>
}
