#!/bin/sh
# Canonicalization policies from the CLI (docs/policies.md): plumb run
# --policy and PLUMB_POLICY turn the baked-learning-rate leak (20 programs)
# into 1 compile with the same output bits, leave it at 20 without a
# policy, reject unknown words naming them; plumb scenarios counts the
# leak under its runtime policy (leak+policy) and ignores PLUMB_POLICY for
# the leak and fix counts. Counts here are written by hand from the
# programs (20 distinct lr values; 8 distinct totals). Ends with
# "N passed, N failed".
. "$(dirname "$0")/lib.sh"
lib_init policy

jqt() {
    if [ "$(jq -r "$2" "$1" 2>/dev/null)" = true ]; then ok "$3"; else fail "$3 (jq: $2)"; fi
}
has() {
    if grep -F -q -- "$2" "$1"; then ok "$3"; else fail "$3 ('$2' not in $(basename "$1"))"; fi
}

if [ ! -x "$PLUMB" ]; then
    fail "the plumb binary '$PLUMB' exists and is executable"
    finish
fi
unset PLUMB_POLICY PLUMB_CACHE_DIR
lr=scenarios/baked-learning-rate/leak

run "$PLUMB" run --backend runtime --random-inputs --hex --stats "$lr"/step*.mlir
expect_rc "the leak runs without a policy" 0
has "$tmp/err" "stats @main: 20 programs, 20 compiles (19 recompiles)" "no policy: 20 compiles"
cp "$tmp/out" "$tmp/off.txt"

run "$PLUMB" run --backend runtime --policy lift --random-inputs --hex --stats "$lr"/step*.mlir
expect_rc "the leak runs with --policy lift" 0
has "$tmp/err" "stats @main: 1 programs, 1 compiles (0 recompiles), 19 cache hits" "--policy lift: 1 compile, 19 hits"
has "$tmp/err" "plumb: policy @main: 1 constant lifted by policy (%lr (from train.py:41:10)); 20 distinct values bound" \
    "--stats says what was lifted by policy, with its source line"
if cmp -s "$tmp/off.txt" "$tmp/out"; then ok "--policy lift prints the same 20 results, bit for bit (--hex)"; else fail "--policy lift prints the same 20 results, bit for bit (--hex)"; fi

PLUMB_POLICY=lift run "$PLUMB" run --backend runtime --random-inputs --hex --stats "$lr"/step*.mlir
has "$tmp/err" "stats @main: 1 programs, 1 compiles" "PLUMB_POLICY=lift: 1 compile"
PLUMB_POLICY=lift run "$PLUMB" run --backend runtime --random-inputs --stats --json "$lr"/step*.mlir
grep '^{"policy"' "$tmp/err" > "$tmp/policy.json"
jqt "$tmp/policy.json" '.policy.entry == "main" and .policy.lifted == 1 and .policy.bindings == 20 and (.policy.first | startswith("%lr"))' \
    "--stats --json: the policy line as JSON"
PLUMB_POLICY=lift run "$PLUMB" run --backend runtime --policy none --random-inputs --stats "$lr"/step*.mlir
has "$tmp/err" "stats @main: 20 programs, 20 compiles" "--policy none overrides PLUMB_POLICY"

# Integers need lift-int: the overflow counter's 8 totals.
oc=scenarios/moe-overflow-counter/leak
run "$PLUMB" run --backend runtime --policy lift --random-inputs --stats "$oc"/step*.mlir
has "$tmp/err" "stats @main: 8 programs, 8 compiles" "--policy lift leaves the integer counter baked: 8 compiles"
run "$PLUMB" run --backend runtime --policy lift,lift-int --random-inputs --stats "$oc"/step*.mlir
has "$tmp/err" "stats @main: 1 programs, 1 compiles" "--policy lift,lift-int: 1 compile"

# A recompile under the policy names the hidden parameter.
cat > "$tmp/a.mlir" <<'P'
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = stablehlo.constant dense<2.0> : tensor<4xf32>
  %r = stablehlo.multiply %x, %a : tensor<4xf32>
  return %r : tensor<4xf32>
}
P
cat > "$tmp/b.mlir" <<'P'
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = stablehlo.constant dense<2.0> : tensor<4xf32>
  %r = stablehlo.multiply %x, %a : tensor<4xf32>
  %bias = stablehlo.constant dense<0.5> : tensor<4xf32>
  %r2 = stablehlo.add %r, %bias : tensor<4xf32>
  return %r2 : tensor<4xf32>
}
P
run "$PLUMB" run --backend runtime --policy lift --random-inputs --explain "$tmp/a.mlir" "$tmp/b.mlir"
has "$tmp/err" "bias (lifted by policy)" "--explain names a lifted constant 'lifted by policy'"

run "$PLUMB" run --backend runtime --policy lift,buckets --random-inputs "$lr/step01.mlir"
expect_rc "an unknown policy is a usage error" 2
has "$tmp/err" "unknown policy 'buckets' (known: lift, lift-int, none)" "the unknown word is named"

run "$PLUMB" run --help
has "$tmp/out" "--policy P[,P]" "--help lists --policy"

# plumb scenarios: leak+policy counts, and PLUMB_POLICY does not move the leak's.
PLUMB_POLICY=lift,lift-int run "$PLUMB" scenarios --json --only baked-learning-rate --only moe-overflow-counter --only topk-varying-k
expect_rc "plumb scenarios passes with PLUMB_POLICY set" 0
jqt "$tmp/out" '[.scenarios[] | select(.name == "baked-learning-rate") | .leak.compiles == 20 and .policy == "lift" and .leak_policy.compiles == 1 and .leak_policy.cache_hits == 19] == [true]' \
    "baked-learning-rate: leak 20, leak+lift 1"
jqt "$tmp/out" '[.scenarios[] | select(.name == "moe-overflow-counter") | .leak.compiles == 8 and .leak_policy.compiles == 1] == [true]' \
    "moe-overflow-counter: leak 8, leak+lift,lift-int 1"
jqt "$tmp/out" '[.scenarios[] | select(.name == "topk-varying-k") | .policy == null and .leak_policy == null and (.builder_policy | contains("plumb_nn_top_k_clamped"))] == [true]' \
    "topk-varying-k: no runtime policy, the builder's clamp named"
run "$PLUMB" scenarios --only baked-learning-rate
has "$tmp/out" "leak+policy lift: 20 steps, compiles 1 (expected 1)" "text: the leak+policy line"
run "$PLUMB" scenarios --list
has "$tmp/out" "runtime policy lift: the leak's programs compile 1 time" "--list: the runtime policy"

# A certified runtime is the one its backend options name: PLUMB_POLICY in the
# environment must not change the cache suite's compile counts (with lift, the
# baked-constant scenarios would compile once where the suite expects one
# compile per value, and certify would fail for a reason outside the backend).
PLUMB_POLICY=lift,lift-int run "$PLUMB" certify --backend runtime --ops add,multiply --out "$tmp/cert" -q
expect_rc "certify --backend runtime --ops add,multiply is unaffected by PLUMB_POLICY" 0
jqt "$tmp/cert/report.json" '[.. | objects | select(has("compiles")) ] | length > 0' \
    "the partial certify report carries the cache suite's compile counts"
finish
