#!/bin/sh
# #stablehlo.gather / #stablehlo.scatter / #stablehlo.dot dimension numbers
# with a comma after the last field, one field per line — as hand-written
# tests (IREE's e2e stablehlo_ops) write them and as StableHLO's parseStruct
# accepts (it looks for '>' after every comma). Before, plumb refused them
# ("expected a field name, found '>'"). Expected values worked out by hand.
. "$(dirname "$0")/lib.sh"
lib_init struct_trailing_comma
need_plumb

# Row 2 of a 3x2 matrix [[1, 2], [3, 4], [5, 6]], gathered with a scalar
# index and index_vector_dim = 0: [5, 6].
cat > "$tmp/g.mlir" <<'P'
func.func @main() -> tensor<2xi32> {
  %x = stablehlo.constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi32>
  %i = stablehlo.constant dense<2> : tensor<i64>
  %r = "stablehlo.gather"(%x, %i) {
    dimension_numbers = #stablehlo.gather<
      offset_dims = [0],
      collapsed_slice_dims = [0],
      start_index_map = [0],
      index_vector_dim = 0,
    >,
    slice_sizes = array<i64: 1, 2>
  } : (tensor<3x2xi32>, tensor<i64>) -> tensor<2xi32>
  return %r : tensor<2xi32>
}
P
expect_both "gather with a trailing comma" "tensor<2xi32> dense<[5, 6]>" "$tmp/g.mlir"

# Scatter-add of [10, 20] at rows 1 and 3 of zeros(4): [0, 10, 0, 20].
cat > "$tmp/s.mlir" <<'P'
func.func @main() -> tensor<4xi32> {
  %x = stablehlo.constant dense<0> : tensor<4xi32>
  %i = stablehlo.constant dense<[[1], [3]]> : tensor<2x1xi32>
  %u = stablehlo.constant dense<[10, 20]> : tensor<2xi32>
  %r = "stablehlo.scatter"(%x, %i, %u) ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    %t = stablehlo.add %a, %b : tensor<i32>
    stablehlo.return %t : tensor<i32>
  }) {
    scatter_dimension_numbers = #stablehlo.scatter<
      inserted_window_dims = [0],
      scatter_dims_to_operand_dims = [0],
      index_vector_dim = 1,
    >
  } : (tensor<4xi32>, tensor<2x1xi32>, tensor<2xi32>) -> tensor<4xi32>
  return %r : tensor<4xi32>
}
P
expect_both "scatter with a trailing comma" "tensor<4xi32> dense<[0, 10, 0, 20]>" "$tmp/s.mlir"

# A dot with contracting dimensions [1] x [0], trailing comma: [[1, 2]] x
# [[3], [4]] = [[11]].
cat > "$tmp/d.mlir" <<'P'
func.func @main() -> tensor<1x1xi32> {
  %a = stablehlo.constant dense<[[1, 2]]> : tensor<1x2xi32>
  %b = stablehlo.constant dense<[[3], [4]]> : tensor<2x1xi32>
  %r = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0],>} : (tensor<1x2xi32>, tensor<2x1xi32>) -> tensor<1x1xi32>
  return %r : tensor<1x1xi32>
}
P
expect_both "dot_general with a trailing comma" "tensor<1x1xi32> dense<11>" "$tmp/d.mlir"

# A comma with no field before it, or two commas, is still refused with the
# position.
sed 's/#stablehlo.gather</#stablehlo.gather<,/' "$tmp/g.mlir" > "$tmp/bad1.mlir"
expect_refused "a leading comma" "$tmp/bad1.mlir" "bad1.mlir:5:" "field name"
sed 's/index_vector_dim = 0,/index_vector_dim = 0,,/' "$tmp/g.mlir" > "$tmp/bad2.mlir"
expect_refused "two commas" "$tmp/bad2.mlir" "bad2.mlir:9:" "field name"
finish
