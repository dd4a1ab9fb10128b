// expect-error: 3:25: '@shape_assertion' needs an 'error_message = "..."' attribute
func.func @main(%p: tensor<i1>) -> tensor<i1> {
  stablehlo.custom_call @shape_assertion(%p) {has_side_effect = true} : (tensor<i1>) -> ()
  return %p : tensor<i1>
}
