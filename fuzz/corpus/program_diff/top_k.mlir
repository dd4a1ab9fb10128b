func.func @main(%x: tensor<7x13xi8>) -> (tensor<7x3xi8>, tensor<7x3xi32>) {
  %v, %i = chlo.top_k(%x, k = 3) : tensor<7x13xi8> -> (tensor<7x3xi8>, tensor<7x3xi32>)
  return %v, %i : tensor<7x3xi8>, tensor<7x3xi32>
}
