#!/bin/sh
# Generic ops whose region list opens with `( {` — a blank, a line break or
# a comment between the parenthesis and the first region — as older MLIR
# printed it (mhlo-era generic text, e.g. IREE's and XLA's tests). Before,
# the parser took such an op for one without regions ("needs exactly one
# body region, found 0"). Expected values worked out by hand.
. "$(dirname "$0")/lib.sh"
lib_init generic_region_space
need_plumb

# reduce_window, add, window 2 stride 2 over [1 .. 6]: [1+2, 3+4, 5+6].
cat > "$tmp/rw.mlir" <<'P'
func.func @main() -> tensor<3xf32> {
  %x = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]> : tensor<6xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = "stablehlo.reduce_window"(%x, %z) ( {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):   // no predecessors
    %s = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "stablehlo.return"(%s) : (tensor<f32>) -> ()
  }) {window_dimensions = array<i64: 2>, window_strides = array<i64: 2>} : (tensor<6xf32>, tensor<f32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}
P
expect_both "reduce_window written ( {" "tensor<3xf32> dense<[3.0, 7.0, 11.0]>" "$tmp/rw.mlir"

# sort descending of [3, 1, 2], the region after a line break and a
# comment; a second region list entry of select_and_scatter after ( {.
cat > "$tmp/sort.mlir" <<'P'
func.func @main() -> tensor<3xi32> {
  %x = stablehlo.constant dense<[3, 1, 2]> : tensor<3xi32>
  %r = "stablehlo.sort"(%x) ( // the comparator
  {
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    %c = "stablehlo.compare"(%a, %b) {comparison_direction = #stablehlo<comparison_direction GT>} : (tensor<i32>, tensor<i32>) -> tensor<i1>
    "stablehlo.return"(%c) : (tensor<i1>) -> ()
  }) {dimension = 0 : i64} : (tensor<3xi32>) -> tensor<3xi32>
  return %r : tensor<3xi32>
}
P
expect_both "sort written (, comment, line break, {" "tensor<3xi32> dense<[3, 2, 1]>" "$tmp/sort.mlir"

# select_and_scatter over [1, 5, 2, 4], window 2 stride 2, GE select, add
# scatter of [10, 20] into zeros: 10 goes to the 5 (index 1), 20 to the 4
# (index 3).
cat > "$tmp/sas.mlir" <<'P'
func.func @main() -> tensor<4xf32> {
  %x = stablehlo.constant dense<[1.0, 5.0, 2.0, 4.0]> : tensor<4xf32>
  %s = stablehlo.constant dense<[10.0, 20.0]> : tensor<2xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = "stablehlo.select_and_scatter"(%x, %s, %z) ( {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %c = "stablehlo.compare"(%a, %b) {comparison_direction = #stablehlo<comparison_direction GE>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    "stablehlo.return"(%c) : (tensor<i1>) -> ()
  },  {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %t = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "stablehlo.return"(%t) : (tensor<f32>) -> ()
  }) {window_dimensions = array<i64: 2>, window_strides = array<i64: 2>} : (tensor<4xf32>, tensor<2xf32>, tensor<f32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
P
expect_both "select_and_scatter written ( { ... },  {" "tensor<4xf32> dense<[0.0, 10.0, 0.0, 20.0]>" "$tmp/sas.mlir"

# The canonical form of such a file formats to itself.
run "$PLUMB" fmt "$tmp/rw.mlir"
cp "$tmp/out" "$tmp/once.mlir"
run "$PLUMB" fmt "$tmp/once.mlir"
if [ "$rc" = 0 ] && cmp -s "$tmp/out" "$tmp/once.mlir"; then ok "fmt of ( { is idempotent"; else fail "fmt of ( { is idempotent"; fi

# A '(' after the operands that opens no region is refused with its
# position, and a region given to an op that takes none is still refused.
cat > "$tmp/bad.mlir" <<'P'
func.func @main() -> tensor<f32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = "stablehlo.negate"(%z) ( ] : (tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}
P
expect_refused "a ( opening no region" "$tmp/bad.mlir" "bad.mlir:3:"
cat > "$tmp/bad2.mlir" <<'P'
func.func @main() -> tensor<f32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = "stablehlo.negate"(%z) ( {
    "stablehlo.return"(%z) : (tensor<f32>) -> ()
  }) : (tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}
P
expect_refused "a region on negate" "$tmp/bad2.mlir" "bad2.mlir:3:" "takes no regions, found 1"
finish
