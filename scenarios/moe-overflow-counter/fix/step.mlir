// MoE overflow counter, fixed: the total is a tensor buffer (register_buffer)
// passed in and returned, incremented by a tensor op: one program.
func.func @main(%dropped: tensor<64xi32>, %total: tensor<i32>) -> tensor<i32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %n = stablehlo.reduce(%dropped init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<64xi32>, tensor<i32>) -> tensor<i32> loc("moe.py":118:9)
  %new = stablehlo.add %total, %n : tensor<i32> loc("moe.py":118:9)
  return %new : tensor<i32>
}
