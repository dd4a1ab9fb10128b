func.func @main(%a: tensor<8xi32>, %b: tensor<8xi32>) -> tensor<4xi32> {
  %0 = stablehlo.add %a, %b : tensor<8xi32>
  %1 = stablehlo.multiply %0, %a : tensor<8xi32>
  %2 = stablehlo.slice %1 [2:6] : (tensor<8xi32>) -> tensor<4xi32>
  return %2 : tensor<4xi32>
}
