// MoE overflow counter, step 6 of 8: self._overflow_total (a Python int, now 27)
// is baked into the trace; each new total is a new program.
func.func @main(%dropped: tensor<64xi32>) -> tensor<i32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %n = stablehlo.reduce(%dropped init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<64xi32>, tensor<i32>) -> tensor<i32> loc("moe.py":118:9)
  %total = stablehlo.constant dense<27> : tensor<i32> loc("moe.py":118:9)
  %new = stablehlo.add %total, %n : tensor<i32> loc("moe.py":118:9)
  return %new : tensor<i32>
}
