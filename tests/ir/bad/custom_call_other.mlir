// expect-error: 3:30: unsupported: custom_call target '@my_kernel' is not in plumb's op set
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.custom_call @my_kernel(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
