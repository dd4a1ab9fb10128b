// expect-error: 3:8: stablehlo.while: cond returns tensor<i32>, expected one tensor<i1> (StableHLO C1)
func.func @main(%a: tensor<i32>) -> tensor<i32> {
  %r = stablehlo.while(%x = %a) : tensor<i32>
  cond {
    stablehlo.return %x : tensor<i32>
  } do {
    stablehlo.return %x : tensor<i32>
  }
  return %r : tensor<i32>
}
