// expect-error: 3:3: stablehlo.custom_call @shape_assertion: operand 0 (%p): element type i32 is not accepted (the op takes i1)
func.func @main(%p: tensor<i32>) -> tensor<i32> {
  stablehlo.custom_call @shape_assertion(%p) {error_message = "bad", has_side_effect = true} : (tensor<i32>) -> ()
  return %p : tensor<i32>
}
