// expect-error: 3:66: a string may not hold a NUL byte (\00)
func.func @main(%p: tensor<i1>) -> tensor<i1> {
  stablehlo.custom_call @shape_assertion(%p) {error_message = "a \00 b", has_side_effect = true} : (tensor<i1>) -> ()
  return %p : tensor<i1>
}
