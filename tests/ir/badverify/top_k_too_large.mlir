// expect-error: 3:23: chlo.top_k: k = 6 is outside [0, 5], the operand's last dimension
func.func @main(%a: tensor<5xf32>) -> tensor<6xf32> {
  %values, %indices = chlo.top_k(%a, k = 6) : tensor<5xf32> -> (tensor<6xf32>, tensor<6xi32>)
  return %values : tensor<6xf32>
}
