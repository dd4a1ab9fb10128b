// expect-error: 3:23: chlo.top_k: result 1 (%indices): type tensor<2xi64> does not match the inferred type tensor<2xi32>
func.func @main(%a: tensor<5xf32>) -> tensor<2xf32> {
  %values, %indices = chlo.top_k(%a, k = 2) : tensor<5xf32> -> (tensor<2xf32>, tensor<2xi64>)
  return %values : tensor<2xf32>
}
