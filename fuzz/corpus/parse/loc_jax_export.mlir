// A program as JAX exports it with debug info (jax.jit(f).lower(x, y)
// .as_text(debug_info=True)): argument names, op names with call stacks
// as callsite/NameLoc aliases, and the #loc lines after the module.
// plumb reads, verifies and runs it; `plumb fmt` writes each op's
// resolved location inline (docs/format.md, "Debug locations").
#loc = loc(unknown)
#loc1 = loc("x")
module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32> {mhlo.layout_mode = "default"} loc(#loc1), %arg1: tensor<4xf32> {mhlo.layout_mode = "default"} loc("y")) -> (tensor<f32> {jax.result_info = "", mhlo.layout_mode = "default"}) {
    %0 = stablehlo.sine %arg0 : tensor<4xf32> loc(#loc8)
    %1 = stablehlo.multiply %0, %arg1 : tensor<4xf32> loc(#loc9)
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32> loc(#loc)
    %2 = stablehlo.reduce(%1 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32> loc(#loc10)
    %3 = "stablehlo.sort"(%1) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%a: tensor<f32> loc(unknown), %b: tensor<f32> loc(unknown)):
      %4 = stablehlo.compare  LT, %a, %b,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1> loc(#loc11)
      stablehlo.return %4 : tensor<i1> loc(#loc11)
    }) : (tensor<4xf32>) -> tensor<4xf32> loc(fused<"sort">[#loc11, #loc7])
    %5 = stablehlo.slice %3 [0:1] : (tensor<4xf32>) -> tensor<1xf32> loc(#loc12)
    %6 = stablehlo.reshape %5 : (tensor<1xf32>) -> tensor<f32> loc(#loc12)
    %7 = stablehlo.add %2, %6 : tensor<f32> loc(#loc13)
    return %7 : tensor<f32> loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc2 = loc("/home/u/model.py":12:11)
#loc3 = loc("/home/u/model.py":20:0)
#loc4 = loc("/home/u/model.py":13:9 to :22)
#loc5 = loc("f"(#loc2))
#loc6 = loc("<module>"(#loc3))
#loc7 = loc(callsite(#loc5 at #loc6))
#loc8 = loc("jit(f)/jit(main)/sin"(#loc7))
#loc9 = loc("jit(f)/jit(main)/mul"(#loc7))
#loc10 = loc("jit(f)/jit(main)/reduce_sum[axes=(0,)]"(#loc7))
#loc11 = loc("jit(f)/jit(main)/sort"(callsite("f"(#loc4) at #loc6)))
#loc12 = loc("jit(f)/jit(main)/squeeze"(callsite("f"(#loc4) at #loc6)))
#loc13 = loc("jit(f)/jit(main)/add"(#loc7))
