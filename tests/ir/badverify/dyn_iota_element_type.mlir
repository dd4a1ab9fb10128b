// expect-error: 3:8: stablehlo.dynamic_iota: result 0 (%0): element type i1 is not accepted (the op takes signed integers, unsigned integers, floats)
func.func @main(%s: tensor<1xi32>) -> tensor<?xi1> {
  %0 = stablehlo.dynamic_iota %s, dim = 0 : (tensor<1xi32>) -> tensor<?xi1>
  return %0 : tensor<?xi1>
}
