// expect-error: 3:3: stablehlo.custom_call @shape_assertion: error_message refers to {1}, but the op has only 1 value operand after the predicate
func.func @main(%p: tensor<i1>, %v: tensor<i32>) -> tensor<i1> {
  stablehlo.custom_call @shape_assertion(%p, %v) {error_message = "got {0} and {1}", has_side_effect = true} : (tensor<i1>, tensor<i32>) -> ()
  return %p : tensor<i1>
}
