#!/bin/sh
# plumb run --compare on region ops (while, map, if, sort, chlo.scan): a
# region op's result is bit-exact only when every op of its bodies is
# exact; a body with an elementwise op bounded in ULP (sine, tanh,
# exponential) makes the result composite (reported, not failed), as a
# call's is. A while of sine and tanh on f32 used to be judged bit-exact,
# and the runtime's correct 1-ULP difference from the reference failed it.
# Ends with "N passed, N failed, N skipped".
. "$(dirname "$0")/lib.sh"
lib_init compare_regions
skipped=0

if [ ! -x "$PLUMB" ]; then
    fail "the plumb binary '$PLUMB' exists and is executable"
    echo "$passed passed, $failed failed, $skipped skipped"
    exit 1
fi

# while_prog TYPE BODYOP1 BODYOP2: three trips of v <- OP2(OP1(v))
while_prog() {
    cat <<EOM
func.func @main(%x: tensor<1024x$1>) -> tensor<1024x$1> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c0, %v = %x) : tensor<i32>, tensor<1024x$1>
    cond {
      %n = stablehlo.constant dense<3> : tensor<i32>
      %p = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i32>
      %j = stablehlo.add %i, %one : tensor<i32>
      %e = stablehlo.$2 %v : tensor<1024x$1>
      %s = stablehlo.$3 %e : tensor<1024x$1>
      stablehlo.return %j, %s : tensor<i32>, tensor<1024x$1>
    }
  return %r#1 : tensor<1024x$1>
}
EOM
}

# check_class WHAT FILE WORD: run --compare on the runtime exits 0 and
# judges result 0 as WORD ("composite" or "exact: bit-exact")
check_class() {
    out=$("$PLUMB" run --compare --random-inputs 1 "$2" 2>&1)
    rc=$?
    if [ $rc -eq 0 ] && printf '%s\n' "$out" | grep -q "^result 0 [^:]*: $3"; then
        ok "$1"
    else
        fail "$1: expected exit 0 and 'result 0 ...: $3', got exit $rc: $out"
    fi
}

while_prog f32 sine tanh > "$tmp/while_ulp.mlir"
check_class "a while whose body has sine and tanh is composite" "$tmp/while_ulp.mlir" "composite"
while_prog f64 exponential tanh > "$tmp/while_ulp64.mlir"
check_class "a while whose body has exponential and tanh (f64) is composite" "$tmp/while_ulp64.mlir" "composite"
while_prog i32 negate abs > "$tmp/while_int.mlir"
check_class "a while whose body is exact stays bit-exact" "$tmp/while_int.mlir" "exact: bit-exact"
while_prog f32 negate abs > "$tmp/while_exact_f32.mlir"
check_class "a while of exact float ops stays bit-exact" "$tmp/while_exact_f32.mlir" "exact: bit-exact"

cat > "$tmp/map.mlir" <<'EOM'
func.func @main(%x: tensor<512xf32>) -> tensor<512xf32> {
  %r = "stablehlo.map"(%x) <{dimensions = array<i64: 0>}> ({
  ^bb0(%a: tensor<f32>):
    %e = stablehlo.exponential %a : tensor<f32>
    %l = stablehlo.log %e : tensor<f32>
    stablehlo.return %l : tensor<f32>
  }) : (tensor<512xf32>) -> tensor<512xf32>
  return %r : tensor<512xf32>
}
EOM
check_class "a map whose body has exponential and log is composite" "$tmp/map.mlir" "composite"

cat > "$tmp/sort.mlir" <<'EOM'
func.func @main(%x: tensor<512xf32>) -> tensor<512xf32> {
  %r = "stablehlo.sort"(%x) <{dimension = 0 : i64, is_stable = true}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %p = stablehlo.compare LT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  }) : (tensor<512xf32>) -> tensor<512xf32>
  return %r : tensor<512xf32>
}
EOM
check_class "a sort whose comparator only compares stays bit-exact" "$tmp/sort.mlir" "exact: bit-exact"

cat > "$tmp/scan.mlir" <<'EOM'
func.func @main(%x: tensor<64x8xf32>, %c: tensor<8xf32>) -> (tensor<64x8xf32>, tensor<8xf32>) {
  %r:2 = chlo.scan(%x) inits(%c) dimension=0 {
  ^bb0(%a: tensor<8xf32>, %s: tensor<8xf32>):
    %t = stablehlo.tanh %a : tensor<8xf32>
    %n = stablehlo.add %s, %t : tensor<8xf32>
    stablehlo.return %n, %n : tensor<8xf32>, tensor<8xf32>
  } : (tensor<64x8xf32>, tensor<8xf32>) -> (tensor<64x8xf32>, tensor<8xf32>)
  return %r#0, %r#1 : tensor<64x8xf32>, tensor<8xf32>
}
EOM
check_class "a chlo.scan whose body has tanh is composite" "$tmp/scan.mlir" "composite"

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
