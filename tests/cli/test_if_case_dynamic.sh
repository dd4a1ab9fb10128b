#!/bin/sh
# stablehlo.if and stablehlo.case whose results have '?' dimensions: the
# results are what the branch taken returns (StableHLO "if"/"case"), so
# their sizes come from that branch, not from a rule run before it. The
# reference runs the branch and takes its tensors (checked against the
# declared result types: a size over a bound is an error); the runtime
# sizes results before a step runs, which it can when the branch's
# returned values have static types, and otherwise says it cannot
# (unsupported, never a wrong size). Expected values are worked out by
# hand. Ends with "N passed, N failed".
PLUMB=${PLUMB:-${BUILD:-build}/plumb}
. "$(dirname "$0")/lib.sh"
lib_init ifcasedyn
need_plumb
run() { "$@" > "$tmp/out" 2> "$tmp/err"; rc=$?; }
# same DESCRIPTION LINE...: exit 0 and stdout exactly the LINEs.
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
# refused DESCRIPTION PATTERN: exit 1 and PATTERN on stderr.
refused() {
    if [ "$rc" = 1 ] && grep -q -- "$2" "$tmp/err"; then ok "$1"; else fail "$1 (exit $rc)"; fi
}

# true branch: x itself (captured); false branch: -x computed in the branch
cat > "$tmp/if.mlir" <<'EOF'
func.func @main(%p: tensor<i1>, %x: tensor<?xf32>) -> tensor<?xf32> {
  %r = "stablehlo.if"(%p) ({
    stablehlo.return %x : tensor<?xf32>
  }, {
    %n = stablehlo.negate %x : tensor<?xf32>
    stablehlo.return %n : tensor<?xf32>
  }) : (tensor<i1>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}
EOF
# branch 0 returns x twice; branch 1 returns concatenate(x, x + x) and x + x:
# results of different sizes per branch and per result
cat > "$tmp/case.mlir" <<'EOF'
func.func @main(%i: tensor<i32>, %x: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %r:2 = "stablehlo.case"(%i) ({
    stablehlo.return %x, %x : tensor<?xf32>, tensor<?xf32>
  }, {
    %n = stablehlo.add %x, %x : tensor<?xf32>
    %c = stablehlo.concatenate %x, %n, dim = 0 : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
    stablehlo.return %c, %n : tensor<?xf32>, tensor<?xf32>
  }) : (tensor<i32>) -> (tensor<?xf32>, tensor<?xf32>)
  return %r#0, %r#1 : tensor<?xf32>, tensor<?xf32>
}
EOF
# the result's bound is 2: a 3-element branch value breaks it
cat > "$tmp/bound.mlir" <<'EOF'
func.func @main(%p: tensor<i1>, %x: tensor<?xf32>) -> tensor<?xf32, #stablehlo.bounds<2>> {
  %r = "stablehlo.if"(%p) ({
    %n = stablehlo.negate %x : tensor<?xf32>
    stablehlo.return %n : tensor<?xf32>
  }, {
    stablehlo.return %x : tensor<?xf32>
  }) : (tensor<i1>) -> tensor<?xf32, #stablehlo.bounds<2>>
  return %r : tensor<?xf32, #stablehlo.bounds<2>>
}
EOF
# '?' result, branches of static type: sized before the branch runs
cat > "$tmp/static.mlir" <<'EOF'
func.func @main(%i: tensor<i32>) -> tensor<?xi32> {
  %r = "stablehlo.case"(%i) ({
    %a = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
    stablehlo.return %a : tensor<2xi32>
  }, {
    %b = stablehlo.constant dense<[7, 8]> : tensor<2xi32>
    stablehlo.return %b : tensor<2xi32>
  }) : (tensor<i32>) -> tensor<?xi32>
  return %r : tensor<?xi32>
}
EOF

x3='dense<[1.0, -2.0, 3.5]> : tensor<3xf32>'
run "$PLUMB" run --args "[dense<true> : tensor<i1>, $x3]" "$tmp/if.mlir"
same "if, true branch returns the captured 3-element x" 'tensor<3xf32> dense<[1.0, -2.0, 3.5]>'
run "$PLUMB" run --args "[dense<false> : tensor<i1>, $x3]" "$tmp/if.mlir"
same "if, false branch returns -x" 'tensor<3xf32> dense<[-1.0, 2.0, -3.5]>'
run "$PLUMB" run --args '[dense<false> : tensor<i1>, dense<> : tensor<0xf32>]' "$tmp/if.mlir"
same "if on an empty x gives an empty result" 'tensor<0xf32> dense<>'

x2='dense<[1.0, -2.0]> : tensor<2xf32>'
# index 1: [1, -2] ++ [2, -4] and [2, -4]
run "$PLUMB" run --args "[dense<1> : tensor<i32>, $x2]" "$tmp/case.mlir"
same "case 1: results of 4 and 2 elements" 'tensor<4xf32> dense<[1.0, -2.0, 2.0, -4.0]>' \
    'tensor<2xf32> dense<[2.0, -4.0]>'
# index 7 is out of range: the last branch (1) runs, as the spec says
run "$PLUMB" run --args "[dense<7> : tensor<i32>, $x2]" "$tmp/case.mlir"
same "case 7 (out of range) runs the last branch" 'tensor<4xf32> dense<[1.0, -2.0, 2.0, -4.0]>' \
    'tensor<2xf32> dense<[2.0, -4.0]>'
run "$PLUMB" run --args "[dense<0> : tensor<i32>, $x2]" "$tmp/case.mlir"
same "case 0 returns x twice (a captured value copied for each result)" \
    'tensor<2xf32> dense<[1.0, -2.0]>' 'tensor<2xf32> dense<[1.0, -2.0]>'

run "$PLUMB" run --args "[dense<true> : tensor<i1>, dense<[4.0, 5.0]> : tensor<2xf32>]" "$tmp/bound.mlir"
same "if within the result's bound" 'tensor<2xf32> dense<[-4.0, -5.0]>'
run "$PLUMB" run --args "[dense<false> : tensor<i1>, $x3]" "$tmp/bound.mlir"
refused "a branch value over the result's bound is an error naming it" 'size 3 exceeds its bound 2'

expect_both "case with a '?' result and static branch types, index 0" \
    'tensor<2xi32> dense<[1, 2]>' "$tmp/static.mlir" --args '[dense<0> : tensor<i32>]'
expect_both "case with a '?' result and static branch types, index -1 (last branch)" \
    'tensor<2xi32> dense<[7, 8]>' "$tmp/static.mlir" --args '[dense<-1> : tensor<i32>]'

# the runtime cannot size a result its branch computes from '?' values:
# it says so (exit 1) rather than guess
run "$PLUMB" run --backend runtime --args "[dense<false> : tensor<i1>, $x3]" "$tmp/if.mlir"
refused "runtime: a branch value sized only as it runs is refused, not guessed" "known only once the branch runs"

finish
