// expect-error: 3:8: stablehlo.while: result 0 (%r): type tensor<i64> does not match the inferred type tensor<i32> (StableHLO C3: type(results...) = type(operand...))
func.func @main(%a: tensor<i32>) -> tensor<i64> {
  %r = "stablehlo.while"(%a) ({
  ^bb0(%x: tensor<i32>):
    %t = stablehlo.constant dense<true> : tensor<i1>
    stablehlo.return %t : tensor<i1>
  }, {
  ^bb0(%x: tensor<i32>):
    stablehlo.return %x : tensor<i32>
  }) : (tensor<i32>) -> tensor<i64>
  return %r : tensor<i64>
}
