func.func @main(%a: tensor<4xf16>) -> tensor<4xf16> {
  %0 = stablehlo.exponential %a : tensor<4xf16>
  %1 = stablehlo.sqrt %0 : tensor<4xf16>
  return %1 : tensor<4xf16>
}
