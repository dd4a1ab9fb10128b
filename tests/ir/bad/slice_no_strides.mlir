// expect-error: 3:8: op 'stablehlo.slice' needs attribute 'strides'
func.func @main(%a: tensor<4xf32>) -> tensor<2xf32> {
  %0 = "stablehlo.slice"(%a) <{start_indices = array<i64: 0>, limit_indices = array<i64: 2>}> : (tensor<4xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
