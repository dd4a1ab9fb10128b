// expect-error: 3:8: stablehlo.while: body returns tensor<2xf64> as value 0, but operand 0 has type tensor<2xf32> (StableHLO C2)
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %r = stablehlo.while(%x = %a) : tensor<2xf32>
  cond {
    %t = stablehlo.constant dense<false> : tensor<i1>
    stablehlo.return %t : tensor<i1>
  } do {
    %c = stablehlo.convert %x : (tensor<2xf32>) -> tensor<2xf64>
    stablehlo.return %c : tensor<2xf64>
  }
  return %r : tensor<2xf32>
}
