// expect-error: 3:3: stablehlo.custom_call @shape_assertion: operand 1 (%v) has type tensor<2xi32>, expected a 0-dimensional integer tensor (a value for the message)
func.func @main(%p: tensor<i1>, %v: tensor<2xi32>) -> tensor<i1> {
  stablehlo.custom_call @shape_assertion(%p, %v) {error_message = "bad {0}", has_side_effect = true} : (tensor<i1>, tensor<2xi32>) -> ()
  return %p : tensor<i1>
}
