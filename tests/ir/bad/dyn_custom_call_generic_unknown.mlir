// expect-error: 3:3: unsupported: custom_call target '@Sharding' is not in plumb's op set
func.func @main(%p: tensor<i1>) -> tensor<i1> {
  "stablehlo.custom_call"(%p) {call_target_name = "Sharding", has_side_effect = true} : (tensor<i1>) -> ()
  return %p : tensor<i1>
}
