#!/bin/sh
# chlo.scan (docs/spec/control.md "scan") through plumb run on the
# reference and the runtime, inputs passed with --args so the runtime's
# kernel runs on them (nothing folded). Hand-derived values: the running
# maximum of [3, 1, 4, 1, 5] is 3, 3, 4, 4, 5 with the index of the
# latest maximum 0, 0, 2, 2, 4 (a tie keeps the higher index, as
# upstream's cummax: none here), final carries 5 and 4; suffix sums of
# the rows [1, 2, 3] and [4, 5, 6] along dimension 1 (is_reverse) are
# 6, 5, 3 and 15, 11, 6, carries 6 and 15. Then a scan whose dimension is
# out of range is refused naming the op and the dimension. Ends with
# "N passed, N failed".
. "$(dirname "$0")/lib.sh"
lib_init scan
cat > "$tmp/p.mlir" <<'MLIR'
func.func @main(%v: tensor<5xi32>, %i: tensor<5xi32>, %v0: tensor<i32>, %i0: tensor<i32>, %m: tensor<2x3xi32>, %z: tensor<2xi32>) -> (tensor<5xi32>, tensor<5xi32>, tensor<i32>, tensor<i32>, tensor<2x3xi32>, tensor<2xi32>) {
  %0:4 = chlo.scan(%v, %i) inits(%v0, %i0) dimension=0 {
  ^bb0(%cv: tensor<i32>, %ci: tensor<i32>, %rv: tensor<i32>, %ri: tensor<i32>):
    %nv = stablehlo.maximum %rv, %cv : tensor<i32>
    %gt = stablehlo.compare GT, %rv, %cv : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %ni = stablehlo.select %gt, %ri, %ci : tensor<i1>, tensor<i32>
    stablehlo.return %nv, %ni, %nv, %ni : tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>
  } : (tensor<5xi32>, tensor<5xi32>, tensor<i32>, tensor<i32>) -> (tensor<5xi32>, tensor<5xi32>, tensor<i32>, tensor<i32>)
  %1:2 = chlo.scan(%m) inits(%z) dimension=1 attributes {is_reverse = true} {
  ^bb0(%x: tensor<2xi32>, %c: tensor<2xi32>):
    %s = stablehlo.add %x, %c : tensor<2xi32>
    stablehlo.return %s, %s : tensor<2xi32>, tensor<2xi32>
  } : (tensor<2x3xi32>, tensor<2xi32>) -> (tensor<2x3xi32>, tensor<2xi32>)
  return %0#0, %0#1, %0#2, %0#3, %1#0, %1#1 : tensor<5xi32>, tensor<5xi32>, tensor<i32>, tensor<i32>, tensor<2x3xi32>, tensor<2xi32>
}
MLIR
cat > "$tmp/want" <<'OUT'
tensor<5xi32> dense<[3, 3, 4, 4, 5]>
tensor<5xi32> dense<[0, 0, 2, 2, 4]>
tensor<i32> dense<5>
tensor<i32> dense<4>
tensor<2x3xi32> dense<[[6, 5, 3], [15, 11, 6]]>
tensor<2xi32> dense<[6, 15]>
OUT
args='[dense<[3, 1, 4, 1, 5]> : tensor<5xi32>, dense<[0, 1, 2, 3, 4]> : tensor<5xi32>, dense<-2147483648> : tensor<i32>, dense<0> : tensor<i32>, dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>, dense<0> : tensor<2xi32>]'
expect_both_file "chlo.scan gives the hand-derived running maxima and suffix sums" "$tmp/want" "$tmp/p.mlir" --args "$args"
# a '?' batch dimension (not the scan dimension) sized by the arguments:
# suffix sums of [1, 2, 3] from 10 are 13+3 ... by hand: 10+3 = 13,
# 13+2 = 15, 15+1 = 16; of [4, 5, 6] from 20: 26, 31, 35
cat > "$tmp/dyn.mlir" <<'MLIR'
func.func @main(%a: tensor<?x3xi32>, %i: tensor<?xi32>) -> (tensor<?x3xi32>, tensor<?xi32>) {
  %r:2 = chlo.scan(%a) inits(%i) dimension=1 attributes {is_reverse = true} {
  ^bb0(%x: tensor<?xi32>, %c: tensor<?xi32>):
    %s = stablehlo.add %x, %c : tensor<?xi32>
    stablehlo.return %s, %s : tensor<?xi32>, tensor<?xi32>
  } : (tensor<?x3xi32>, tensor<?xi32>) -> (tensor<?x3xi32>, tensor<?xi32>)
  return %r#0, %r#1 : tensor<?x3xi32>, tensor<?xi32>
}
MLIR
printf 'tensor<2x3xi32> dense<[[16, 15, 13], [35, 31, 26]]>\ntensor<2xi32> dense<[16, 35]>\n' > "$tmp/want_dyn"
expect_both_file "chlo.scan over a '?' batch dimension gives the hand-derived suffix sums" "$tmp/want_dyn" "$tmp/dyn.mlir" --args '[dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>, dense<[10, 20]> : tensor<2xi32>]'
# a body whose output has the slice's size but not its shape (a transpose
# of each 2x3 slice, 3x2, both typed tensor<?x?xi32>): the run-time shape
# rule takes the output's '?' dims from the input (2x2x3), so the result
# would be 2x2x3 holding 2x3x2's elements; both backends must refuse it
# (the returned value does not match its caller's shape), never print it
cat > "$tmp/tr.mlir" <<'MLIR'
func.func @main(%a: tensor<2x?x?xi32>) -> tensor<2x?x?xi32> {
  %r:1 = "chlo.scan"(%a) ({
  ^bb0(%x: tensor<?x?xi32>):
    %t = stablehlo.transpose %x, dims = [1, 0] : (tensor<?x?xi32>) -> tensor<?x?xi32>
    stablehlo.return %t : tensor<?x?xi32>
  }) {dimension = 0 : i64, operandSegmentSizes = array<i32: 1, 0>} : (tensor<2x?x?xi32>) -> tensor<2x?x?xi32>
  return %r#0 : tensor<2x?x?xi32>
}
MLIR
for be in ref runtime; do
    run "$PLUMB" run --backend $be "$tmp/tr.mlir" --args '[dense<[[[1, 2, 3], [4, 5, 6]], [[7, 8, 9], [10, 11, 12]]]> : tensor<2x2x3xi32>]'
    if [ "$rc" != 0 ] && grep -q "returned value 0 does not match" "$tmp/err" && ! grep -q "dense" "$tmp/out"; then
        ok "a scan body changing its slice's shape is refused on $be"
    else fail "a scan body changing its slice's shape is refused on $be (exit $rc)"; cat "$tmp/out" "$tmp/err"; fi
done
# dimension 1 of a rank-1 input is refused with a message naming the op and the dimension
cat > "$tmp/bad.mlir" <<'MLIR'
func.func @main(%a: tensor<4xi32>, %i: tensor<i32>) -> tensor<i32> {
  %0:2 = chlo.scan(%a) inits(%i) dimension=1 {
  ^bb0(%x: tensor<i32>, %c: tensor<i32>):
    %s = stablehlo.add %x, %c : tensor<i32>
    stablehlo.return %s, %s : tensor<i32>, tensor<i32>
  } : (tensor<4xi32>, tensor<i32>) -> (tensor<4xi32>, tensor<i32>)
  return %0#1 : tensor<i32>
}
MLIR
run "$PLUMB" run "$tmp/bad.mlir"
if [ "$rc" != 0 ] && grep -q "chlo.scan" "$tmp/err" && grep -q "dimension 1 is out of range" "$tmp/err"; then
    ok "an out-of-range scan dimension is refused naming the op and the dimension"
else fail "an out-of-range scan dimension is refused naming the op and the dimension (exit $rc)"; cat "$tmp/err"; fi
finish
