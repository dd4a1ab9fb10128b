// expect-error: 3:25: '@check.expect_eq_const' needs a 'value = dense<...> : tensor<...>' attribute
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  stablehlo.custom_call @check.expect_eq_const(%a) {has_side_effect = true} : (tensor<2xf32>) -> ()
  return %a : tensor<2xf32>
}
