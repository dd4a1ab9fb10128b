func.func @main() -> (tensor<7x13xi8>) {
  %r = stablehlo.iota dim = 1 : tensor<7x13xi8>
  return %r : tensor<7x13xi8>
}
