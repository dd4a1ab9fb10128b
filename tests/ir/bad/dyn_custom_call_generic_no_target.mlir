// expect-error: 3:3: 'stablehlo.custom_call' needs a call_target_name = "..." attribute
func.func @main(%p: tensor<i1>) -> tensor<i1> {
  "stablehlo.custom_call"(%p) {error_message = "x", has_side_effect = true} : (tensor<i1>) -> ()
  return %p : tensor<i1>
}
