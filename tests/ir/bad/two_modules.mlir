// expect-error: 7:1: unsupported: a second top-level module; plumb reads one module per file
module {
  func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
    return %a : tensor<2xf32>
  }
}
module {
  func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
    return %a : tensor<2xf32>
  }
}
