#!/bin/sh
# Arbitration through func.call (docs/spec/checks.md "Arbitration"): a
# check that reads a call's result is arbitrated as the value the callee
# returns, through nested calls and reshapes, with the rules of a direct
# value. tests/cli/arbitrate/call_cumsum_f32.mlir (a cumsum's reduce_window
# two calls deep; the expected value, summed left to right with a rounding
# per step, is 1 ulp from the exact 2^24 + 2, derived in its header) passes
# on both backends with a note naming the reduce_window and the call, and
# fails as written with --no-arbitrate. Not arbitrated, and failing: an
# exact op returned by a callee, a callee's sum of a parameter of the
# function run, an expected NaN, and (reference) a chain of calls deeper
# than the limit of 16. Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"
lib_init arbcall
need_plumb
FIX=$(cd "$(dirname "$0")" && pwd)/arbitrate


f=$FIX/call_cumsum_f32.mlir
for be in ref runtime; do
    run "$PLUMB" run --backend $be "$f"
    expect_rc "$be: the callee's cumsum passes by arbitration" 0
    expect_err "$be: the note names the element and which side is wrong" \
        "at [2]: got 16777218.0 (0x4B800001), expected 16777216.0 (0x4B800000): expected value is 1 ulp from the exact result, which this backend returns (correctly rounded)"
    if grep -F -q 'dense<[16777216.0, 16777216.0, 16777218.0, 16777220.0]>' "$tmp/out"; then
        ok "$be: the result printed is the correctly rounded one"
    else
        fail "$be: the result printed is the correctly rounded one"
    fi
    run "$PLUMB" run --backend $be --no-arbitrate "$f"
    expect_rc "$be: --no-arbitrate: the check fails as written" 1
    run env PLUMB_ARBITRATE=0 "$PLUMB" run --backend $be "$f"
    expect_rc "$be: PLUMB_ARBITRATE=0: the check fails as written" 1
done
# the reference runs the calls: its note names the call the check reads
run "$PLUMB" run --backend ref "$f"
expect_err "ref: the note names the reduce_window and the call" \
    "arbitration accepted 1 of 4 elements of the value of stablehlo.reduce_window at 41:10 returned by func.call @wrap at 19:10"

# A callee's exact op (add) is never arbitrated: fl(2^24 + 1) = 2^24, and
# an expected 2^24 + 2 (1 ulp further from the exact 2^24 + 1's rounding,
# but add is exact) fails on both backends.
cat > "$tmp/add.mlir" <<'EOF'
func.func @main() {
  %a = stablehlo.constant dense<[16777216.0]> : tensor<1xf32>
  %b = stablehlo.constant dense<[1.0]> : tensor<1xf32>
  %r = func.call @plus(%a, %b) : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
  check.expect_eq_const %r, dense<[16777218.0]> : tensor<1xf32>
  func.return
}
func.func private @plus(%x: tensor<1xf32>, %y: tensor<1xf32>) -> tensor<1xf32> {
  %s = stablehlo.add %x, %y : tensor<1xf32>
  func.return %s : tensor<1xf32>
}
EOF
for be in ref runtime; do
    run "$PLUMB" run --backend $be "$tmp/add.mlir"
    expect_rc "$be: a callee's exact add with a wrong expected value fails" 1
    if grep -F -q 'arbitration accepted' "$tmp/err"; then fail "$be: no arbitration note for an exact op"
    else ok "$be: no arbitration note for an exact op"; fi
done

# The callee's sum of a parameter of @main: its value is gone by the check,
# so the element is not arbitrated, the report says why, and it fails.
sed -e 's/^  func.func public @main() -> tensor<4xf32> {$/  func.func public @main(%p: tensor<4xf32>) -> tensor<4xf32> {/' \
    -e 's/^    %2 = call @wrap(%0)/    %2 = call @wrap(%p)/' "$f" > "$tmp/param.mlir"
for be in ref runtime; do
    run "$PLUMB" run --backend $be "$tmp/param.mlir" --args '[dense<[16777216.0, 1.0, 1.0, 3.0]> : tensor<4xf32>]'
    expect_rc "$be: a sum of @main's parameter is not arbitrated" 1
    expect_err "$be: the report says the parameter's value is not known" "depend on the parameter"
done

# An expected NaN is never accepted.
sed 's/dense<\[16777216.0, 16777216.0, 16777216.0, 16777220.0\]>/dense<[16777216.0, 16777216.0, 0x7FC00000, 16777220.0]>/' \
    "$f" > "$tmp/nan.mlir"
for be in ref runtime; do
    run "$PLUMB" run --backend $be "$tmp/nan.mlir"
    expect_rc "$be: an expected NaN fails" 1
done

# Nesting: @main -> @w1 -> ... -> @wN -> @cumsum, N + 1 calls. The reference
# follows 16 and not 17 (the runtime inlines every call, so it sees the
# reduce_window itself at any depth).
nest() {   # N OUT
    {
        sed -n '1,/^  func.func private @wrap/p' "$f" | sed '$d' | sed 's/call @wrap(%0)/call @w1(%0)/'
        i=1
        while [ $i -le "$1" ]; do
            nxt="w$((i + 1))"
            [ $i = "$1" ] && nxt=cumsum
            printf '  func.func private @w%s(%%a: tensor<4xf32>) -> tensor<4xf32> {\n' $i
            printf '    %%r = call @%s(%%a) : (tensor<4xf32>) -> tensor<4xf32>\n    return %%r : tensor<4xf32>\n  }\n' $nxt
            i=$((i + 1))
        done
        sed -n '/^  func.func private @cumsum/,$p' "$f"
    } > "$2"
}
nest 15 "$tmp/n16.mlir"
nest 16 "$tmp/n17.mlir"
run "$PLUMB" run --backend ref "$tmp/n16.mlir"
expect_rc "ref: 16 nested calls are followed" 0
run "$PLUMB" run --backend ref "$tmp/n17.mlir"
expect_rc "ref: 17 nested calls are not followed: the check fails as written" 1
run "$PLUMB" run --backend runtime "$tmp/n17.mlir"
expect_rc "runtime: the inlined program arbitrates the reduce_window at any depth" 0
finish
