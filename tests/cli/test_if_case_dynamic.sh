#!/bin/sh
# stablehlo.if and stablehlo.case whose results have '?' dimensions: the
# results are what the branch taken returns (StableHLO "if"/"case"), so
# their sizes come from that branch, not from a rule run before it. The
# reference runs the branch and takes its tensors (checked against the
# declared result types: a size over a bound is an error). The runtime
# sizes results before a step runs: from the branch's returned types when
# they are static, and otherwise by running the branch first and taking
# the sizes of the values it returns (runtime/plan.c run_branch_first).
# Every program runs on both backends. Expected values are worked out by
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
expect_both "if, true branch returns the captured 3-element x" 'tensor<3xf32> dense<[1.0, -2.0, 3.5]>' \
    "$tmp/if.mlir" --args "[dense<true> : tensor<i1>, $x3]"
expect_both "if, false branch returns -x" 'tensor<3xf32> dense<[-1.0, 2.0, -3.5]>' \
    "$tmp/if.mlir" --args "[dense<false> : tensor<i1>, $x3]"
expect_both "if on an empty x gives an empty result" 'tensor<0xf32> dense<>' \
    "$tmp/if.mlir" --args '[dense<false> : tensor<i1>, dense<> : tensor<0xf32>]'

x2='dense<[1.0, -2.0]> : tensor<2xf32>'
# expect_both_lines DESC LINES ARG...: exit 0 and exactly LINES on both
expect_both_lines() {
    d=$1 w=$2
    shift 2
    for be in ref runtime; do
        run "$PLUMB" run --backend "$be" "$@"
        printf '%s\n' "$w" > "$tmp/want"
        if [ "$rc" = 0 ] && cmp -s "$tmp/want" "$tmp/out"; then ok "$d ($be)"
        else diff "$tmp/want" "$tmp/out" | head -n 6 >> "$tmp/err"; fail "$d ($be, exit $rc)"; fi
    done
}
# index 1: [1, -2] ++ [2, -4] and [2, -4]
expect_both_lines "case 1: results of 4 and 2 elements" 'tensor<4xf32> dense<[1.0, -2.0, 2.0, -4.0]>
tensor<2xf32> dense<[2.0, -4.0]>' "$tmp/case.mlir" --args "[dense<1> : tensor<i32>, $x2]"
# index 7 is out of range: the last branch (1) runs, as the spec says
expect_both_lines "case 7 (out of range) runs the last branch" 'tensor<4xf32> dense<[1.0, -2.0, 2.0, -4.0]>
tensor<2xf32> dense<[2.0, -4.0]>' "$tmp/case.mlir" --args "[dense<7> : tensor<i32>, $x2]"
expect_both_lines "case 0 returns x twice (a captured value copied for each result)" 'tensor<2xf32> dense<[1.0, -2.0]>
tensor<2xf32> dense<[1.0, -2.0]>' "$tmp/case.mlir" --args "[dense<0> : tensor<i32>, $x2]"

expect_both "if within the result's bound" 'tensor<2xf32> dense<[-4.0, -5.0]>' \
    "$tmp/bound.mlir" --args "[dense<true> : tensor<i1>, dense<[4.0, 5.0]> : tensor<2xf32>]"
for be in ref runtime; do
    run "$PLUMB" run --backend "$be" --args "[dense<false> : tensor<i1>, $x3]" "$tmp/bound.mlir"
    refused "a branch value over the result's bound is an error naming it ($be)" 'size 3 exceeds its bound 2'
done

expect_both "case with a '?' result and static branch types, index 0" \
    'tensor<2xi32> dense<[1, 2]>' "$tmp/static.mlir" --args '[dense<0> : tensor<i32>]'
expect_both "case with a '?' result and static branch types, index -1 (last branch)" \
    'tensor<2xi32> dense<[7, 8]>' "$tmp/static.mlir" --args '[dense<-1> : tensor<i32>]'

# The if's result feeds later ops, and its branch returns a value computed
# before it (%y = x + x, captured) or in it (y + 1): the later ops see the
# branch's size. The selector is computed too (x[0] > 0). With x = [1, 2, 3]:
# y + 1 = [3, 5, 7], its sum 15, and r ++ x = [3, 5, 7, 1, 2, 3].
# With x = [-1, 4]: y = [-2, 8] itself, sum 6, [-2, 8, -1, 4].
cat > "$tmp/flow.mlir" <<'EOF'
func.func @main(%x: tensor<?xf32>) -> (tensor<f32>, tensor<?xf32>) {
  %y = stablehlo.add %x, %x : tensor<?xf32>
  %s = "stablehlo.slice"(%x) {start_indices = array<i64: 0>, limit_indices = array<i64: 1>, strides = array<i64: 1>} : (tensor<?xf32>) -> tensor<1xf32>
  %s0 = stablehlo.reshape %s : (tensor<1xf32>) -> tensor<f32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %p = stablehlo.compare GT, %s0, %z : (tensor<f32>, tensor<f32>) -> tensor<i1>
  %r = "stablehlo.if"(%p) ({
    %one = stablehlo.constant dense<1.0> : tensor<f32>
    %d = stablehlo.get_dimension_size %y, dim = 0 : (tensor<?xf32>) -> tensor<i32>
    %d1 = stablehlo.reshape %d : (tensor<i32>) -> tensor<1xi32>
    %o = stablehlo.dynamic_broadcast_in_dim %one, %d1, dims = [] : (tensor<f32>, tensor<1xi32>) -> tensor<?xf32>
    %w = stablehlo.add %y, %o : tensor<?xf32>
    stablehlo.return %w : tensor<?xf32>
  }, {
    stablehlo.return %y : tensor<?xf32>
  }) : (tensor<i1>) -> tensor<?xf32>
  %sum = stablehlo.reduce(%r init: %z) applies stablehlo.add across dimensions = [0] : (tensor<?xf32>, tensor<f32>) -> tensor<f32>
  %c = stablehlo.concatenate %r, %x, dim = 0 : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  return %sum, %c : tensor<f32>, tensor<?xf32>
}
EOF
expect_both_lines "if's branch computes a '?' value from a captured one; later ops take its size" \
    'tensor<f32> dense<15.0>
tensor<6xf32> dense<[3.0, 5.0, 7.0, 1.0, 2.0, 3.0]>' "$tmp/flow.mlir" --args '[dense<[1.0, 2.0, 3.0]> : tensor<3xf32>]'
expect_both_lines "the other branch returns the captured value itself" \
    'tensor<f32> dense<6.0>
tensor<4xf32> dense<[-2.0, 8.0, -1.0, 4.0]>' "$tmp/flow.mlir" --args '[dense<[-1.0, 4.0]> : tensor<2xf32>]'
# An if inside a while body whose branch computes a '?' value: the
# region's evaluation runs the branch first too (runtime/exec.c
# region_branch). Two iterations over x = [1, 2]: i = 0 takes -v = [-1, -2],
# i = 1 takes v + v = [-2, -4].
cat > "$tmp/nested.mlir" <<'EOF'
func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {
  %i0 = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %i0, %v = %x) : tensor<i32>, tensor<?xf32>
  cond {
    %two = stablehlo.constant dense<2> : tensor<i32>
    %lt = stablehlo.compare LT, %i, %two : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %n = stablehlo.add %i, %one : tensor<i32>
    %z = stablehlo.constant dense<0> : tensor<i32>
    %p = stablehlo.compare EQ, %i, %z : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %w = "stablehlo.if"(%p) ({
      %a = stablehlo.negate %v : tensor<?xf32>
      stablehlo.return %a : tensor<?xf32>
    }, {
      %b = stablehlo.add %v, %v : tensor<?xf32>
      stablehlo.return %b : tensor<?xf32>
    }) : (tensor<i1>) -> tensor<?xf32>
    stablehlo.return %n, %w : tensor<i32>, tensor<?xf32>
  }
  return %r#1 : tensor<?xf32>
}
EOF
expect_both "an if in a while body whose branches compute '?' values" 'tensor<2xf32> dense<[-2.0, -4.0]>' \
    "$tmp/nested.mlir" --args '[dense<[1.0, 2.0]> : tensor<2xf32>]'
expect_both "the same on an empty x" 'tensor<0xf32> dense<>' \
    "$tmp/nested.mlir" --args '[dense<> : tensor<0xf32>]'

# One compiled program, many runs: sizes 1, 2 and 7 with random data
# through one runtime (1 compile, 2 cache hits), printing what the
# reference prints for the same inputs. Seed 1 takes the false branch at
# sizes 1 and 7 (the same selector value with other sizes: nothing is
# taken from the earlier run) and the true branch at size 2.
for seed in 1 2 3; do
    "$PLUMB" run --backend ref --random-inputs "$seed" --dim-size 1,2,7 --repeat 3 "$tmp/flow.mlir" > "$tmp/ref.out" 2>&1
    rrc=$?
    run "$PLUMB" run --backend runtime --stats --random-inputs "$seed" --dim-size 1,2,7 --repeat 3 "$tmp/flow.mlir"
    grep -v '^plumb: ' "$tmp/out" > "$tmp/rt.out"
    grep -v '^plumb: ' "$tmp/ref.out" > "$tmp/ref2.out"
    if [ "$rc" = 0 ] && [ "$rrc" = 0 ] && cmp -s "$tmp/ref2.out" "$tmp/rt.out" && [ "$(grep -c '^tensor' "$tmp/rt.out")" = 6 ] &&
        grep -q '1 compiles (0 recompiles), 2 cache hits' "$tmp/err"; then
        ok "sizes 1, 2, 7 through one runtime give the reference's results, seed $seed"
    else
        diff "$tmp/ref2.out" "$tmp/rt.out" | head -n 6 >> "$tmp/err"
        fail "sizes 1, 2, 7 through one runtime give the reference's results, seed $seed (exit $rrc/$rc)"
    fi
done

finish
