// expect-error: 2:8: only '#name = loc(...)' aliases are read
#map = affine_map<(d0) -> (d0)>
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  return %a : tensor<2xf32>
}
