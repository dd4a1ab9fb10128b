func.func @main(%lo: tensor<7x13xi1>, %x: tensor<7x13xi1>, %hi: tensor<7x13xi1>) -> (tensor<7x13xi1>) {
  %r = stablehlo.clamp %lo, %x, %hi : tensor<7x13xi1>
  return %r : tensor<7x13xi1>
}
