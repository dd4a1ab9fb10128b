// expect-error: 3:8: unsupported: op 'stablehlo.all_reduce' is not in plumb's op set
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.all_reduce %a : tensor<2xf32>
  return %0 : tensor<2xf32>
}
