#!/bin/sh
# plumb run --compare --localize: the program-level oracle's localization
# mode (conformance/oracle.c). A copy of the entry returning every
# intermediate runs on the backend and each op is re-evaluated on the
# reference from the backend's own operands, so a planted fault in the
# middle of a chain (fault_sine_cos lowers sine to cosine) is named at the
# sine, never at the ops after it that computed correctly on its wrong
# value. Ends with "N passed, N failed".
BUILD=${BUILD:-build}
PLUMB=${PLUMB:-$BUILD/plumb}
. "$(dirname "$0")/../cli/lib.sh"
lib_init localize
D=tests/fuzz/localize
loc() { # runs plumb run --compare --localize with the arguments; $rc gets its exit code
    "$PLUMB" run --compare --localize "$@" > "$tmp/out" 2> "$tmp/err"
    rc=$?
}

# 1. The runtime on a clean chain: every op passes on its own operands.
loc --backend runtime --random-inputs 3 "$D/chain.mlir"
if [ "$rc" = 0 ] && [ "$(grep -c '^op [0-9]* .*: pass (' "$tmp/out")" = 5 ] && ! grep -q FAIL "$tmp/out"; then
    ok "runtime, 5-op chain: every op passes"
else fail "runtime, 5-op chain: expected exit 0 and 5 passing ops, got exit $rc"; fi

# 2. Regions (a reduce body, a sort comparator) and a dot: each checked
#    alone, the constant skipped.
loc --backend runtime --random-inputs 5 "$D/regions.mlir"
if [ "$rc" = 0 ] && grep -q '^op 2 %1 = stablehlo.reduce .*: pass (' "$tmp/out" \
   && grep -q '^op 3 %2 = stablehlo.dot_general .*: pass (' "$tmp/out" \
   && grep -q '^op 4 %3 = stablehlo.sort .*: pass (' "$tmp/out" && ! grep -q 'stablehlo.constant' "$tmp/out"; then
    ok "runtime, reduce/dot/sort: each op passes alone"
else fail "runtime, reduce/dot/sort: expected every op to pass, got exit $rc"; fi

# 3. The planted fault: only the sine fails, named with its line in the
#    program and its front end's location; the ops after it pass.
so=$(plugin fault_sine_cos) || { fail "cannot build fault_sine_cos"; so=/nonexistent.so; }
loc --backend "$so" --random-inputs 3 "$D/chain.mlir"
if [ "$rc" = 1 ] && [ "$(grep -c FAIL "$tmp/out")" = 1 ] \
   && grep -q "^op 1 %1 = stablehlo.sine at $D/chain.mlir:3:8 (from chain.py:4:5) f32: FAIL: " "$tmp/out" \
   && grep -q '^op 2 %2 = stablehlo.exponential .*: pass (' "$tmp/out" \
   && grep -q '^op 4 %4 = stablehlo.tanh .*: pass (' "$tmp/out" \
   && grep -q '1 of 5 ops are outside their bound on their own operands; first: op 1 %1 = stablehlo.sine' "$tmp/err"
then ok "fault_sine_cos: the sine is named, not a later op"
else fail "fault_sine_cos: expected exit 1 and only the sine failing, got exit $rc"; fi
# without --localize the whole-program comparison cannot name it: the
# result is a composite of the chain
"$PLUMB" run --compare --backend "$so" --random-inputs 3 "$D/chain.mlir" > "$tmp/out" 2>&1
if grep -q '^result 0 tensor<8xf32>: composite: worst [1-9][0-9]* ULP' "$tmp/out" && ! grep -q sine "$tmp/out"; then
    ok "fault_sine_cos without --localize: a composite difference, no op named"
else fail "fault_sine_cos without --localize: expected a composite line"; fi
# the same in the regions program: the sine at the end is the one named
loc --backend "$so" --random-inputs 5 "$D/regions.mlir"
if [ "$rc" = 1 ] && [ "$(grep -c FAIL "$tmp/out")" = 1 ] && grep -q '^op 5 %4 = stablehlo.sine .*FAIL' "$tmp/out"; then
    ok "fault_sine_cos, regions program: the sine is named"
else fail "fault_sine_cos, regions program: expected only the sine failing, got exit $rc"; fi

# 4. --json: one object per result and per op.
if command -v jq > /dev/null 2>&1; then
    "$PLUMB" run --compare --localize --json --backend "$so" --random-inputs 3 "$D/chain.mlir" > "$tmp/out.json" 2> "$tmp/err"
    rc=$?
    if [ "$rc" = 1 ] && jq -e -s '
          (map(select(.op != null)) | length == 5)
          and (map(select(.verdict == "fail")) | length == 1)
          and (map(select(.verdict == "fail"))[0] | .name == "stablehlo.sine" and .loc == "chain.py:4:5"
               and (.at | endswith("chain.mlir:3:8")) and .dtype == "f32" and .fraction > 1
               and (.reason | test("bound 1 ulp")))
          and (map(select(.op == 2 or .op == 3 or .op == 4)) | all(.verdict == "pass"))
          and (map(select(.result == 0))[0].verdict == "composite")' "$tmp/out.json" > /dev/null; then
        ok "--json: one object per result and per op, the sine failing"
    else fail "--json: unexpected objects (exit $rc)"; cat "$tmp/out.json"; fi
else
    echo "skip --json: jq not installed (ci/deps.sh installs it)"
fi

# 5. --localize is a mode of --compare.
"$PLUMB" run --localize --random-inputs 3 "$D/chain.mlir" > "$tmp/out" 2>&1
rc=$?
if [ "$rc" = 2 ] && grep -q -- '--localize is a mode of --compare' "$tmp/out"; then ok "--localize without --compare: usage error"
else fail "--localize without --compare: expected exit 2, got $rc"; fi
"$PLUMB" run --help > "$tmp/out" 2>&1
if grep -q -- '--localize' "$tmp/out"; then ok "--help lists --localize"
else fail "--help lacks --localize"; fi

finish
