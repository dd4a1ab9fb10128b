// expect-error: 3:66: unknown escape '\q' in a string (expected \\, \", \n, \t or two hex digits)
func.func @main(%p: tensor<i1>) -> tensor<i1> {
  stablehlo.custom_call @shape_assertion(%p) {error_message = "a \q b", has_side_effect = true} : (tensor<i1>) -> ()
  return %p : tensor<i1>
}
