// expect-error: 8:31: location alias '#loc1' refers to itself (a cycle of aliases)
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.abs %a : tensor<2xf32> loc(#loc3)
  return %0 : tensor<2xf32>
}
#loc1 = loc("outer"(#loc2))
#loc2 = loc(callsite("f.py":1:1 at #loc3))
#loc3 = loc(fused["g.py":2:2, #loc1])
