func.func @main(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
  %0 = stablehlo.add %a, %b : tensor<8xf32> loc("chain.py":3:5)
  %1 = stablehlo.sine %0 : tensor<8xf32> loc("chain.py":4:5)
  %2 = stablehlo.exponential %1 : tensor<8xf32> loc("chain.py":5:5)
  %3 = stablehlo.multiply %2, %a : tensor<8xf32> loc("chain.py":6:5)
  %4 = stablehlo.tanh %3 : tensor<8xf32> loc("chain.py":7:5)
  return %4 : tensor<8xf32>
}
