#!/bin/sh
# An enum attribute is written in its op's own dialect: #stablehlo<KIND V>
# on stablehlo ops, #chlo<precision V> on chlo.ragged_dot (upstream
# chlo/ragged_dot.mlir's form). StableHLO's parser refuses the other
# dialect's attribute; plumb did accept #chlo<...> everywhere (review5) and
# now refuses it at its line:column, found here by awk in the text.
. "$(dirname "$0")/lib.sh"
lib_init enum_attr_dialect
need_plumb

col2() { awk -v p="$2" 'NR == 2 { print index($0, p) }' "$1"; }

cat > "$tmp/cmp.mlir" <<'P'
func.func @main(%x: tensor<3xf32>) -> tensor<3xi1> {
  %0 = "stablehlo.compare"(%x, %x) {comparison_direction = #chlo<comparison_direction LT>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  return %0 : tensor<3xi1>
}
P
expect_refused "#chlo comparison_direction on stablehlo.compare" "$tmp/cmp.mlir" "cmp.mlir:2:$(col2 "$tmp/cmp.mlir" '#chlo'):" "found a #chlo attribute"

cat > "$tmp/dot.mlir" <<'P'
func.func @main(%x: tensor<3xf32>) -> tensor<f32> {
  %1 = "stablehlo.dot_general"(%x, %x) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>, precision_config = [#chlo<precision HIGHEST>, #chlo<precision DEFAULT>]} : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}
P
expect_refused "#chlo precision on stablehlo.dot_general" "$tmp/dot.mlir" "dot.mlir:2:$(col2 "$tmp/dot.mlir" '#chlo'):" "found a #chlo attribute"

# The stablehlo spelling still reads: 1*1 + 2*2 + 3*3 = 14 by hand.
sed 's/#chlo<precision/#stablehlo<precision/g' "$tmp/dot.mlir" > "$tmp/dot_ok.mlir"
expect_both "#stablehlo precision on stablehlo.dot_general" "tensor<f32> dense<14.0>" "$tmp/dot_ok.mlir" --input 'x=dense<[1.0, 2.0, 3.0]> : tensor<3xf32>'

# chlo.ragged_dot takes #chlo<precision ...> (tests/cli/test_ragged_dot.sh
# runs it) and refuses the stablehlo one.
cat > "$tmp/rg.mlir" <<'P'
func.func @main(%l: tensor<5x2xf32>, %r: tensor<2x2x3xf32>, %g: tensor<2xi64>) -> tensor<5x3xf32> {
  %o = "chlo.ragged_dot"(%l, %r, %g) {ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<5x2xf32>, tensor<2x2x3xf32>, tensor<2xi64>) -> tensor<5x3xf32>
  return %o : tensor<5x3xf32>
}
P
expect_refused "#stablehlo precision on chlo.ragged_dot" "$tmp/rg.mlir" "rg.mlir:2:$(col2 "$tmp/rg.mlir" '#stablehlo<precision'):" "found a #stablehlo attribute"
sed 's/#stablehlo<precision/#chlo<precision/g' "$tmp/rg.mlir" > "$tmp/rg_ok.mlir"
run "$PLUMB" verify "$tmp/rg_ok.mlir"
expect_rc "#chlo precision on chlo.ragged_dot verifies" 0
finish
