#!/bin/sh
# stablehlo.convolution with a '?' lhs or rhs dimension (JAX's
# shape-polymorphic exports, e.g. conv_general_dilated_*_dynamic): the
# verifier leaves the rules whose sizes are unknown to run time, and
# ir/shape.c's run-time rule gives the result shape from the actual sizes
# (C25), after which every convolution rule runs on them. Hand-computed
# values on both backends at two batch sizes, a dilated and padded window,
# and a feature mismatch only visible at run time.
# Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"
lib_init dynconvshape
need_plumb

cat > "$tmp/c.mlir" <<'EOF'
func.func @main(%x: tensor<?x3x1xf32>) -> tensor<?x2x1xf32> {
  %k = stablehlo.constant dense<[[[1.0]], [[2.0]]]> : tensor<2x1x1xf32>
  %r = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<?x3x1xf32>, tensor<2x1x1xf32>) -> tensor<?x2x1xf32>
  func.return %r : tensor<?x2x1xf32>
}
EOF
if "$PLUMB" verify -q "$tmp/c.mlir" > "$tmp/out" 2> "$tmp/err"; then ok "a '?' batch verifies"; else fail "a '?' batch verifies"; fi
# out[b, j] = x[b, j] * 1 + x[b, j + 1] * 2: [1, 2, 3] -> [5, 8]; [4, 5, 6] -> [14, 17]; [-1, 0.5, 0.25] -> [0, 1]
expect_both "batch 2" 'tensor<2x2x1xf32> dense<[[[5.0], [8.0]], [[14.0], [17.0]]]>' "$tmp/c.mlir" \
    --args '[dense<[[[1.0], [2.0], [3.0]], [[4.0], [5.0], [6.0]]]> : tensor<2x3x1xf32>]'
expect_both "batch 3, same program" 'tensor<3x2x1xf32> dense<[[[5.0], [8.0]], [[14.0], [17.0]], [[0.0], [1.0]]]>' "$tmp/c.mlir" \
    --args '[dense<[[[1.0], [2.0], [3.0]], [[4.0], [5.0], [6.0]], [[-1.0], [0.5], [0.25]]]> : tensor<3x3x1xf32>]'

# '?' spatial size, lhs dilated by 2 and padded by 1 on each side: x = [1, 2]
# dilates to [1, 0, 2], pads to [0, 1, 0, 2, 0]; windows of the kernel
# [1, 10]: [10, 1, 20, 2].
cat > "$tmp/d.mlir" <<'EOF'
func.func @main(%x: tensor<1x?x1xf32>) -> tensor<1x?x1xf32> {
  %k = stablehlo.constant dense<[[[1.0]], [[10.0]]]> : tensor<2x1x1xf32>
  %r = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {pad = [[1, 1]], lhs_dilate = [2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x?x1xf32>, tensor<2x1x1xf32>) -> tensor<1x?x1xf32>
  func.return %r : tensor<1x?x1xf32>
}
EOF
expect_both "a '?' spatial size with lhs dilation and padding" 'tensor<1x4x1xf32> dense<[[[10.0], [1.0], [20.0], [2.0]]]>' \
    "$tmp/d.mlir" --args '[dense<[[[1.0], [2.0]]]> : tensor<1x2x1xf32>]'

# The kernel's input features are '?': 2 given against the lhs's 1 feature
# is refused when the op runs, naming the op.
cat > "$tmp/bad.mlir" <<'EOF'
func.func @main(%x: tensor<1x3x1xf32>, %k: tensor<2x?x1xf32>) -> tensor<1x2x1xf32> {
  %r = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x3x1xf32>, tensor<2x?x1xf32>) -> tensor<1x2x1xf32>
  func.return %r : tensor<1x2x1xf32>
}
EOF
for be in ref runtime; do
    if ! "$PLUMB" run --backend $be "$tmp/bad.mlir" \
        --args '[dense<[[[1.0], [2.0], [3.0]]]> : tensor<1x3x1xf32>, dense<[[[1.0], [1.0]], [[1.0], [1.0]]]> : tensor<2x2x1xf32>]' \
        > "$tmp/out" 2> "$tmp/err" && grep -q 'stablehlo.convolution' "$tmp/err"; then
        ok "$be: a feature mismatch is refused at run time"
    else
        fail "$be: a feature mismatch is refused at run time"
    fi
done
finish
