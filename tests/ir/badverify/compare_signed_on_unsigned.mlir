// expect-error: 3:8: stablehlo.compare: comparison_type SIGNED does not fit element type ui32
func.func @main(%a: tensor<2xui32>) -> tensor<2xi1> {
  %0 = stablehlo.compare LT, %a, %a, SIGNED : (tensor<2xui32>, tensor<2xui32>) -> tensor<2xi1>
  return %0 : tensor<2xi1>
}
