#!/bin/sh
# stablehlo.while carrying a value with a '?' dimension (JAX's fori_loop
# over a polymorphic batch): the regions' arguments are declared '?' and
# the operand arrives with its actual size, which StableHLO's C1/C2 accept
# as compatible types. The run-time shape check used to compare them for
# equality and stopped every such loop, and the runtime's region
# evaluation refused any '?' value; both backends now run them (the
# runtime sizes each region op's '?' results by its run-time shape rule).
# A body whose value changes size is an error, never a wrong result.
# Expected values by hand. Ends with "N passed, N failed".
PLUMB=${PLUMB:-${BUILD:-build}/plumb}
. "$(dirname "$0")/lib.sh"
lib_init whiledyn
need_plumb
run() { "$@" > "$tmp/out" 2> "$tmp/err"; rc=$?; }
same() {
    d=$1
    shift
    printf '%s\n' "$@" > "$tmp/want"
    if [ "$rc" = 0 ] && cmp -s "$tmp/want" "$tmp/out"; then
        ok "$d"
    else
        diff "$tmp/want" "$tmp/out" | head -n 6 >> "$tmp/err"
        fail "$d (exit $rc)"
    fi
}
refused() {
    if [ "$rc" = 1 ] && grep -q -- "$2" "$tmp/err"; then ok "$1"; else fail "$1 (exit $rc)"; fi
}

# three iterations of acc = acc + acc
cat > "$tmp/double.mlir" <<'EOF'
func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c0, %acc = %x) : tensor<i32>, tensor<?xf32>
    cond {
      %n = stablehlo.constant dense<3> : tensor<i32>
      %lt = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i32>
      %j = stablehlo.add %i, %one : tensor<i32>
      %d = stablehlo.add %acc, %acc : tensor<?xf32>
      stablehlo.return %j, %d : tensor<i32>, tensor<?xf32>
    }
  return %r#1 : tensor<?xf32>
}
EOF
# the same loop doubling only while i < 2, through an if with a '?' result
cat > "$tmp/ifin.mlir" <<'EOF'
func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c0, %acc = %x) : tensor<i32>, tensor<?xf32>
    cond {
      %n = stablehlo.constant dense<3> : tensor<i32>
      %lt = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i32>
      %j = stablehlo.add %i, %one : tensor<i32>
      %two = stablehlo.constant dense<2> : tensor<i32>
      %p = stablehlo.compare LT, %i, %two : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %v = "stablehlo.if"(%p) ({
        %d = stablehlo.add %acc, %acc : tensor<?xf32>
        stablehlo.return %d : tensor<?xf32>
      }, {
        stablehlo.return %acc : tensor<?xf32>
      }) : (tensor<i1>) -> tensor<?xf32>
      stablehlo.return %j, %v : tensor<i32>, tensor<?xf32>
    }
  return %r#1 : tensor<?xf32>
}
EOF
sed 's/%d = stablehlo.add %acc, %acc : tensor<?xf32>/%d = stablehlo.concatenate %acc, %acc, dim = 0 : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>/' \
    "$tmp/double.mlir" > "$tmp/grow.mlir"
# static types must still be equal: 2 elements in, 4 out is a verify error
cat > "$tmp/static_bad.mlir" <<'EOF'
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %r = stablehlo.while(%acc = %x) : tensor<2xf32>
    cond {
      %t = stablehlo.constant dense<false> : tensor<i1>
      stablehlo.return %t : tensor<i1>
    } do {
      %c = stablehlo.concatenate %acc, %acc, dim = 0 : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
      stablehlo.return %c : tensor<4xf32>
    }
  return %r : tensor<2xf32>
}
EOF

x2='[dense<[1.0, -2.0]> : tensor<2xf32>]'
expect_both "while over a '?' value: [1, -2] doubled three times" 'tensor<2xf32> dense<[8.0, -16.0]>' \
    "$tmp/double.mlir" --args "$x2"
expect_both "the same loop at another size" 'tensor<3xf32> dense<[4.0, 8.0, 12.0]>' \
    "$tmp/double.mlir" --args '[dense<[0.5, 1.0, 1.5]> : tensor<3xf32>]'
run "$PLUMB" run --args "$x2" "$tmp/ifin.mlir"
same "while with an if of '?' result inside: doubled twice" 'tensor<2xf32> dense<[4.0, -8.0]>'
for be in ref runtime; do
    run "$PLUMB" run --backend $be --args "$x2" "$tmp/grow.mlir"
    refused "a body value that changes size is an error ($be)" 'does not match the type its caller expects'
done
run "$PLUMB" verify "$tmp/static_bad.mlir"
refused "static while types must still be equal (C2)" 'body returns tensor<4xf32> as value 0, but operand 0 has type tensor<2xf32>'
# an if in the body whose branch computes a '?' value: the runtime runs
# that branch first and takes its sizes (runtime/exec.c region_branch),
# giving what the reference gives above
run "$PLUMB" run --backend runtime --args "$x2" "$tmp/ifin.mlir"
same "runtime: an if in the body whose branch makes a '?' value, doubled twice" 'tensor<2xf32> dense<[4.0, -8.0]>'

finish
