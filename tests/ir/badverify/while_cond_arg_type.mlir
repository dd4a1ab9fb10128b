// expect-error: 3:8: stablehlo.while: cond argument 0 (%x) has type tensor<i64>, but operand 0 has type tensor<i32> (StableHLO C1)
func.func @main(%a: tensor<i32>) -> tensor<i32> {
  %r = "stablehlo.while"(%a) ({
  ^bb0(%x: tensor<i64>):
    %t = stablehlo.constant dense<true> : tensor<i1>
    stablehlo.return %t : tensor<i1>
  }, {
  ^bb0(%x: tensor<i32>):
    stablehlo.return %x : tensor<i32>
  }) : (tensor<i32>) -> tensor<i32>
  return %r : tensor<i32>
}
