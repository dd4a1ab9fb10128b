func.func @main(%x: tensor<7x13xi1>) -> (tensor<7x13xi1>) {
  %r = "stablehlo.sort"(%x) <{dimension = 1 : i64, is_stable = true}> ({
    ^bb0(%a: tensor<i1>, %c: tensor<i1>):
      %lt = stablehlo.compare LT, %a, %c : (tensor<i1>, tensor<i1>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    }) : (tensor<7x13xi1>) -> tensor<7x13xi1>
  return %r : tensor<7x13xi1>
}
