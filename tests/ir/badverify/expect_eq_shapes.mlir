// expect-error: 3:3: check.expect_eq: operand 1 (%b): shape of tensor<3xf32> does not match operand 0's tensor<2xf32>
func.func @main(%a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<2xf32> {
  stablehlo.custom_call @check.expect_eq(%a, %b) {has_side_effect = true} : (tensor<2xf32>, tensor<3xf32>) -> ()
  return %a : tensor<2xf32>
}
