// expect-error: 3:8: chlo.erf_inv: operand 0 (%i): element type i32 is not accepted (the op takes floats)
func.func @main(%x: tensor<4xf32>, %i: tensor<4xi32>) {
  %r = chlo.erf_inv %i : tensor<4xi32> -> tensor<4xi32>
  return
}
