// expect-error: 3:3: op 'check.expect_eq' has 0 results but 1 value is defined
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.custom_call @check.expect_eq(%a, %a) {has_side_effect = true} : (tensor<2xf32>, tensor<2xf32>) -> ()
  return %a : tensor<2xf32>
}
