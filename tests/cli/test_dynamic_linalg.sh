#!/bin/sh
# triangular_solve and cholesky on polymorphic ('?') batch dimensions, as
# JAX's batched (vmap) exports of them are written: the run-time shape rules
# give triangular_solve the shape of its right-hand sides b and cholesky that
# of its matrices, on both backends, with results worked out by hand; a batch
# of b that differs from a's at run time is refused, naming the op.
# Ends with "N passed, N failed".
PLUMB=${PLUMB:-${BUILD:-build}/plumb}
. "$(dirname "$0")/lib.sh"
lib_init dynlinalg
need_plumb
# same DESCRIPTION EXPECTED: stdout of the last run is exactly EXPECTED.
same() {
    printf '%s\n' "$2" > "$tmp/want"
    if [ "$rc" = 0 ] && cmp -s "$tmp/want" "$tmp/out"; then
        ok "$1"
    else
        diff "$tmp/want" "$tmp/out" | head -n 6 >> "$tmp/err"
        fail "$1 (exit $rc)"
    fi
}

cat > "$tmp/solve.mlir" <<'EOF'
func.func @main(%a: tensor<?x2x2xf32>, %b: tensor<?x2x1xf32>) -> tensor<?x2x1xf32> {
  %x = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false} : (tensor<?x2x2xf32>, tensor<?x2x1xf32>) -> tensor<?x2x1xf32>
  return %x : tensor<?x2x1xf32>
}
EOF
cat > "$tmp/chol.mlir" <<'EOF'
func.func @main(%a: tensor<?x2x2xf32>) -> tensor<?x2x2xf32> {
  %l = stablehlo.cholesky %a, lower = true : tensor<?x2x2xf32>
  return %l : tensor<?x2x2xf32>
}
EOF
# Two lower-triangular systems: [[2,0],[1,4]] x = [4,6] gives x = [2, 1]
# (2*2 = 4, 1*2 + 4*1 = 6); [[4,0],[2,1]] x = [8,5] gives x = [2, 1].
echo 'dense<[[[2.0, 0.0], [1.0, 4.0]], [[4.0, 0.0], [2.0, 1.0]]]> : tensor<2x2x2xf32>' > "$tmp/a2.txt"
echo 'dense<[[[4.0], [6.0]], [[8.0], [5.0]]]> : tensor<2x2x1xf32>' > "$tmp/b2.txt"
echo 'dense<[[[4.0], [6.0]], [[8.0], [5.0]], [[1.0], [1.0]]]> : tensor<3x2x1xf32>' > "$tmp/b3.txt"
# [[4,2],[2,10]] = L L^T with L = [[2,0],[1,3]] (2*2 = 4, 1*2 = 2, 1 + 9 = 10).
echo 'dense<[[[4.0, 2.0], [2.0, 10.0]]]> : tensor<1x2x2xf32>' > "$tmp/s1.txt"
for be in ref runtime; do
    run "$PLUMB" run --backend $be --input a="$tmp/a2.txt" --input b="$tmp/b2.txt" "$tmp/solve.mlir"
    same "$be: triangular_solve on a '?' batch of 2 (by hand)" 'tensor<2x2x1xf32> dense<[[[2.0], [1.0]], [[2.0], [1.0]]]>'
    run "$PLUMB" run --backend $be --input a="$tmp/a2.txt" --input b="$tmp/b3.txt" "$tmp/solve.mlir"
    if [ "$rc" != 0 ] && grep -q 'triangular_solve' "$tmp/err"; then
        ok "$be: a batch of b (3) other than a's (2) is refused naming the op"
    else
        fail "$be: a batch of b (3) other than a's (2) is refused naming the op (exit $rc)"
    fi
    run "$PLUMB" run --backend $be --input a="$tmp/s1.txt" "$tmp/chol.mlir"
    same "$be: cholesky on a '?' batch of 1 (by hand)" 'tensor<1x2x2xf32> dense<[[[2.0, 0.0], [1.0, 3.0]]]>'
done
finish
