#!/bin/sh
# plumb run's --timeout and --max-bytes on both backends: a program whose
# reduce body runs reduces nested in reduces (minutes of work without a
# deadline) stops with the timeout error and exit 1 under --timeout 0.05 on
# the reference and on the runtime; a call tree of 2^24 sites fails to
# compile on the runtime with the inlining limit, and a dot whose scratch
# together passes --max-bytes fails with a limit error. Run by tests/run.sh
# with PLUMB set to the binary. Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"
lib_init limits

# run CMD...: stdout in $tmp/out, stderr in $tmp/err, status in $rc. A run
# that ignores its deadline is stopped after 120 s (status 124) when
# coreutils' timeout is there.
run() {
    if command -v timeout > /dev/null 2>&1; then
        timeout 120 "$@" > "$tmp/out" 2> "$tmp/err"
    else
        "$@" > "$tmp/out" 2> "$tmp/err"
    fi
    rc=$?
}
# expect DESCRIPTION CODE TEXT: the last run exited CODE and said TEXT on stderr.
expect() {
    if [ "$rc" = "$2" ] && grep -q -- "$3" "$tmp/err"; then ok "$1"; else fail "$1 (exit $rc, expected $2 and '$3')"; fi
}

if [ ! -x "$PLUMB" ]; then
    fail "the plumb binary '$PLUMB' exists and is executable"
    finish
fi

cat > "$tmp/nested.mlir" <<'MLIR'
func.func @main() -> tensor<f32> {
  %x = stablehlo.iota dim = 0 : tensor<4096xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%x init: %z) across dimensions = [0] : (tensor<4096xf32>, tensor<f32>) -> tensor<f32>
   reducer(%a: tensor<f32>, %b: tensor<f32>) {
    %bb = stablehlo.broadcast_in_dim %b, dims = [] : (tensor<f32>) -> tensor<4000xf32>
    %z2 = stablehlo.constant dense<0.0> : tensor<f32>
    %in = stablehlo.reduce(%bb init: %z2) across dimensions = [0] : (tensor<4000xf32>, tensor<f32>) -> tensor<f32>
     reducer(%c: tensor<f32>, %e: tensor<f32>) {
      %cc = stablehlo.broadcast_in_dim %e, dims = [] : (tensor<f32>) -> tensor<4000xf32>
      %z3 = stablehlo.constant dense<0.0> : tensor<f32>
      %in2 = stablehlo.reduce(%cc init: %z3) across dimensions = [0] : (tensor<4000xf32>, tensor<f32>) -> tensor<f32>
       reducer(%g: tensor<f32>, %h: tensor<f32>) {
        %s3 = stablehlo.add %g, %h : tensor<f32>
        %t3 = stablehlo.maximum %s3, %g : tensor<f32>
        stablehlo.return %t3 : tensor<f32>
      }
      %s2 = stablehlo.add %c, %in2 : tensor<f32>
      stablehlo.return %s2 : tensor<f32>
    }
    %s = stablehlo.add %a, %in : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }
  return %r : tensor<f32>
}
MLIR

run "$PLUMB" run --timeout 0.05 "$tmp/nested.mlir"
expect "reference: nested reduce bodies stop at --timeout" 1 "timeout: the run exceeded its limit of 0.05 s"
run "$PLUMB" run --backend runtime --threads 2 --timeout 0.05 "$tmp/nested.mlir"
expect "runtime: nested reduce bodies stop at --timeout" 1 "timeout: the run exceeded its limit of 0.05 s"

# @f0 calls @f1 twice, ..., @f23 calls @leaf twice: 2^24 call sites.
{
    echo 'func.func @leaf(%a: tensor<4xf32>) -> tensor<4xf32> {'
    echo '  %b = stablehlo.add %a, %a : tensor<4xf32>'
    echo '  return %b : tensor<4xf32>'
    echo '}'
    i=23
    next=leaf
    while [ $i -ge 0 ]; do
        echo "func.func @f$i(%a: tensor<4xf32>) -> tensor<4xf32> {"
        echo "  %b = func.call @$next(%a) : (tensor<4xf32>) -> tensor<4xf32>"
        echo "  %c = func.call @$next(%b) : (tensor<4xf32>) -> tensor<4xf32>"
        echo "  return %c : tensor<4xf32>"
        echo "}"
        next=f$i
        i=$((i - 1))
    done
    echo 'func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {'
    echo '  %b = func.call @f0(%a) : (tensor<4xf32>) -> tensor<4xf32>'
    echo '  return %b : tensor<4xf32>'
    echo '}'
} > "$tmp/calls.mlir"
echo 'dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>' > "$tmp/a.txt"
run "$PLUMB" run --backend runtime --input a="$tmp/a.txt" "$tmp/calls.mlir"
expect "runtime: 2^24 call sites hit the inlining limit" 1 "inlining every call"

cat > "$tmp/dot.mlir" <<'MLIR'
func.func @main() -> tensor<256x256xi32> {
  %a = stablehlo.iota dim = 0 : tensor<256x512xi32>
  %b = stablehlo.iota dim = 1 : tensor<512x256xi32>
  %c = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<256x512xi32>, tensor<512x256xi32>) -> tensor<256x256xi32>
  return %c : tensor<256x256xi32>
}
MLIR
run "$PLUMB" run --backend runtime --max-bytes 600Ki "$tmp/dot.mlir"
expect "runtime: scratch together over --max-bytes is a limit error" 1 "scratch memory"
run "$PLUMB" run --backend runtime --max-bytes 4Mi "$tmp/dot.mlir"
if [ "$rc" = 0 ]; then ok "runtime: the same dot runs within 4Mi"; else fail "runtime: the same dot runs within 4Mi (exit $rc)"; fi

finish
