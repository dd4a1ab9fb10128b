#!/bin/sh
# plumb fuzz smoke: fixed seeds and counts. The runtime and the reference
# run clean against the reference; planted faults are found by the oracle
# meant for them (agreement naming the op, compile counts, crashes and
# hangs) and saved as finding directories; bad options are usage errors.
# Ends with "N passed, N failed".
BUILD=${BUILD:-build}
PLUMB=${PLUMB:-$BUILD/plumb}
. "$(dirname "$0")/../cli/lib.sh"
lib_init fuzz
fuzz() { # runs plumb fuzz -q with the arguments; $rc gets its exit code
    "$PLUMB" fuzz -q "$@" > "$tmp/out" 2>&1
    rc=$?
}

# 1. The runtime against the reference: clean, every mutator applied.
fuzz --backend runtime --seed 1 --count 300 --json "$tmp/rt.json"
if [ "$rc" = 0 ] && grep -q '^fuzz: 300 programs, [1-9][0-9]* mutants, [1-9][0-9]* ops checked, 0 findings' "$tmp/out"; then
    ok "runtime, seed 1, 300 programs: clean"
else fail "runtime, seed 1, 300 programs: expected exit 0 and 0 findings, got exit $rc"; fi
# the report is JSON with the counts and a coverage table that includes
# ops of every family the generator builds
if command -v jq > /dev/null 2>&1; then
    if jq -e '.programs == 300 and (.findings | length) == 0 and .coverage.reduce.i32 > 0
              and ([.coverage.convert[("f16", "bf16", "f32", "f64")] // 0] | add) > 0 and .coverage.add.i1 > 0
              and (.coverage as $c | ["dot_general", "concatenate", "gather", "scatter", "sort", "pad", "iota",
                                      "select", "clamp", "slice", "reshape", "broadcast_in_dim", "transpose"]
                   | all(($c[.] // {} | add // 0) > 0))' "$tmp/rt.json" > /dev/null
    then ok "JSON report: counts and op x element type coverage"
    else fail "JSON report: counts and op coverage"; cat "$tmp/rt.json" | head -30; fi
fi

# 2. The reference against itself: clean.
fuzz --backend ref --seed 7 --count 200
if [ "$rc" = 0 ] && grep -q '0 findings' "$tmp/out"; then ok "ref, seed 7: clean"
else fail "ref, seed 7: expected a clean run, got exit $rc"; fi

# 3. Determinism: the same seed gives the same counts; sharding splits them.
fuzz --backend ref --seed 3 --count 60 --mutators none
a=$(tail -n 1 "$tmp/out" | sed 's/ (.*//')
fuzz --backend ref --seed 3 --count 60 --mutators none
b=$(tail -n 1 "$tmp/out" | sed 's/ (.*//')
fuzz --backend ref --seed 3 --count 60 --mutators none --shard 0/2
s0=$(tail -n 1 "$tmp/out" | sed -n 's/^fuzz: \([0-9]*\) programs.*/\1/p')
TEST_SHARD_INDEX=1 TEST_TOTAL_SHARDS=2 "$PLUMB" fuzz -q --backend ref --seed 3 --count 60 --mutators none > "$tmp/out" 2>&1
s1=$(tail -n 1 "$tmp/out" | sed -n 's/^fuzz: \([0-9]*\) programs.*/\1/p')
if [ -n "$a" ] && [ "$a" = "$b" ] && [ "$s0" = 30 ] && [ "$s1" = 30 ]; then ok "same seed, same run; shards 30 + 30"
else fail "determinism/sharding: '$a' vs '$b', shards '$s0' + '$s1'"; fi

# 4. A planted 2-ULP exp fault (single-op programs: the plugin only touches
#    programs with one input and one result) is found and the op named.
so=$(plugin fault_exp_ulp) || so=
fuzz --backend "$so" --seed 1 --count 40 --ops exponential,negate --dtypes f32 --max-nodes 1 --out "$tmp/exp"
if [ "$rc" = 1 ] && grep -q '^FINDING agree/exponential/f32/' "$tmp/out" && grep -q 'error 2 ulp, bound 1 ulp' "$tmp/out" \
   && ! grep -q 'FINDING agree/negate' "$tmp/out"; then
    ok "fault_exp_ulp: found, names exponential"
else fail "fault_exp_ulp: expected exit 1 and an agree/exponential/f32 finding, got exit $rc"; fi
d=$(ls -d "$tmp"/exp/*agree_exponential_f32_base 2>/dev/null | head -n 1)
if [ -n "$d" ] && [ -f "$d/program.mlir" ] && [ -f "$d/a0.tensor" ] && grep -q 'plumb fuzz --backend' "$d/README" \
   && grep -q '^op: exponential' "$d/finding.txt"; then
    # the saved program and inputs replay the disagreement on their own
    "$PLUMB" run --backend "$so" --compare "$d/program.mlir" --input "a0=$d/a0.tensor" > "$tmp/replay" 2>&1
    if [ $? = 1 ] && grep -q 'EXCEEDS' "$tmp/replay"; then ok "finding directory replays with plumb run --compare"
    else fail "finding directory: run --compare did not reproduce"; cat "$tmp/replay"; fi
else fail "finding directory: missing program, inputs, README or finding.txt"; ls -R "$tmp/exp" | head; fi

# 5. A cache keyed on parameter values: results right, compile counts wrong.
so=$(plugin fault_cache_params) || so=
fuzz --backend "$so" --seed 1 --count 30
if [ "$rc" = 1 ] && grep -q '^FINDING compiles/program/any/params:.*1 new compiles, the contract predicts 0' "$tmp/out" \
   && ! grep -q '^FINDING agree' "$tmp/out" && ! grep -q '^FINDING compiles/program/any/identical' "$tmp/out"; then
    ok "fault_cache_params: caught by the compile-count oracle (params mutator)"
else fail "fault_cache_params: expected exactly the params compile-count finding, got exit $rc"; fi

# 6. A cache that ignores digits (baked constants, static shapes): caught.
so=$(plugin fault_stale) || so=
fuzz --backend "$so" --seed 1 --count 100 --mutators constant,shape
if [ "$rc" = 1 ] && grep -q '^FINDING compiles/program/any/constant:.*0 new compiles, the contract predicts 1' "$tmp/out" \
   && grep -q '^FINDING compiles/program/any/shape:' "$tmp/out"; then
    ok "fault_stale: caught by the compile-count oracle (constant, shape)"
else fail "fault_stale: expected constant and shape compile-count findings, got exit $rc"; fi

# 7. A backend that crashes (on tanh) or hangs (scalar f64) never stops the
#    campaign: the crash is a finding and the other programs still run.
so=$(plugin fault_crash) || so=
fuzz --backend "$so" --seed 1 --count 40 --ops tanh,negate,add --dtypes f32
if [ "$rc" = 1 ] && grep -q '^FINDING crash/program/f32/base:.*signal 11' "$tmp/out" \
   && grep -q '^fuzz: 40 programs' "$tmp/out"; then ok "fault_crash: a crash finding, all 40 programs accounted"
else fail "fault_crash: expected a crash finding and 40 programs, got exit $rc"; fi
so=$(plugin run_hang) || so=
fuzz --backend "$so" --seed 2 --count 12 --ops negate --dtypes f64 --max-nodes 1 --mutators none --timeout 1
if [ "$rc" = 1 ] && grep -q '^FINDING hang/program/f64/base' "$tmp/out" && grep -q '^fuzz: 12 programs' "$tmp/out"; then
    ok "run_hang: a hang finding after --timeout, the campaign goes on"
else fail "run_hang: expected a hang finding, got exit $rc"; fi

# 8. plumb reduce shrinks findings to the ops they need, re-verified and
#    still showing the same signature.
#    A crash on tanh: down to the tanh alone.
so=$(plugin fault_crash) || so=
rm -rf "$tmp/crash"
fuzz --backend "$so" --seed 1 --count 40 --ops tanh,negate,add,multiply --dtypes f32 --mutators none --out "$tmp/crash"
d=$(ls -d "$tmp"/crash/*crash_program_f32_base 2>/dev/null | head -n 1)
if [ -n "$d" ] && "$PLUMB" reduce "$d" > "$tmp/out" 2>&1 && grep -q '^reduce: [0-9]* ops -> 1 ops' "$tmp/out" \
   && [ "$(grep -c ' = stablehlo\.' "$d/reduced.mlir")" = 1 ] && grep -q 'stablehlo.tanh' "$d/reduced.mlir" \
   && "$PLUMB" verify -q "$d/reduced.mlir"; then ok "reduce: a crash finding shrinks to the tanh alone"
else fail "reduce: crash finding"; [ -n "$d" ] && cat "$d/reduced.mlir"; fi
#    The crash does not depend on shapes or values: the tanh's operand is
#    cut to one element (every dimension 1) and its value set to zero (the
#    f32 payload, before the file's 8-byte checksum, docs/tensor-files.md).
if [ -n "$d" ] && grep -q '^reduce: [0-9]* ops -> 1 ops, [0-9]* input elements -> 1 ([1-9][0-9]* shape cuts, [1-9][0-9]* value' "$tmp/out" \
   && grep -q '%a0: tensor<\(1x\)*f32>' "$d/reduced.mlir" \
   && [ "$(tail -c 12 "$d/r0.tensor" | head -c 4 | od -An -tx1 | tr -d ' \n')" = 00000000 ]; then
    ok "reduce: the crash's input cut to one element, set to zero"
else fail "reduce: crash finding not cut to one zero element"; cat "$tmp/out"; [ -n "$d" ] && cat "$d/reduced.mlir"; fi
#    Subnormal results flushed: an agree finding in programs of up to 8
#    ops shrinks to at most 2, and the reduced program still disagrees.
so=$(plugin fault_ftz) || so=
fuzz --backend "$so" --seed 1 --count 40 --dtypes f32 --ops add,multiply,negate,abs,exponential,maximum \
    --mutators none --out "$tmp/ftz"
d=$(ls -d "$tmp"/ftz/*agree_* 2>/dev/null | head -n 1)
if [ -n "$d" ] && "$PLUMB" reduce "$d" > "$tmp/out" 2>&1; then
    n=$(sed -n 's/^reduce: [0-9]* ops -> \([0-9]*\) ops.*/\1/p' "$tmp/out")
    args=$(sed -n 's/^  replay: plumb run //p' "$tmp/out")
    # shellcheck disable=SC2086
    "$PLUMB" run $args > "$tmp/replay" 2>&1
    rrc=$?
    e0=$(sed -n 's/^reduce: .* ops, \([0-9]*\) input elements -> \([0-9]*\) .*/\1/p' "$tmp/out")
    e1=$(sed -n 's/^reduce: .* ops, \([0-9]*\) input elements -> \([0-9]*\) .*/\2/p' "$tmp/out")
    if [ -n "$n" ] && [ "$n" -le 2 ] && [ "$rrc" = 1 ] && grep -q 'EXCEEDS\|MISMATCH' "$tmp/replay" \
       && [ -n "$e1" ] && [ "$e1" -lt "$e0" ]; then
        ok "reduce: an agree finding shrinks to $n op(s), $e0 -> $e1 input elements, and still disagrees"
    else fail "reduce: agree finding reduced to '$n' ops"; cat "$tmp/replay"; fi
else fail "reduce: no agree finding from fault_ftz, or reduce failed"; cat "$tmp/out"; fi
#    A directory that is not a finding is an error naming it.
mkdir -p "$tmp/notafinding"
"$PLUMB" reduce "$tmp/notafinding" > "$tmp/out" 2>&1
rc=$?
if [ "$rc" = 2 ] && grep -q 'notafinding/finding.txt' "$tmp/out"; then ok "reduce: a non-finding directory -> 2, named"
else fail "reduce: non-finding directory: expected 2, got $rc"; fi
if [ -n "$d" ]; then
    cp -r "$d" "$tmp/tampered"
    echo 'func.func @main() -> () { return }' > "$tmp/tampered/program.mlir"
    "$PLUMB" reduce "$tmp/tampered" > "$tmp/out" 2>&1
    rc=$?
    if [ "$rc" = 2 ] && grep -q 'program.mlir is not the program' "$tmp/out"; then ok "reduce: a tampered program -> 2"
    else fail "reduce: tampered program: expected 2, got $rc"; fi
fi

# 9. Polymorphic programs and the structural mutators on the runtime: a
#    smoke run with every mutator and a quarter of the parameters `?`.
fuzz --backend runtime --seed 5 --count 2000 --mutators all --poly 25 --json "$tmp/poly.json"
if [ "$rc" = 0 ] && grep -q '^fuzz: 2000 programs, [1-9][0-9]* mutants, [1-9][0-9]* ops checked, 0 findings' "$tmp/out"; then
    ok "runtime, --poly 25, every mutator, 2000 programs: clean"
else fail "runtime, --poly 25, every mutator: expected a clean run, got exit $rc"; fi
if command -v jq > /dev/null 2>&1; then
    if jq -e '.mutators == ["params", "identical", "constant", "shape", "poly-size", "bake", "lift", "batch-field",
                            "attr", "insert", "remove"]' "$tmp/poly.json" > /dev/null
    then ok "JSON report names the 11 mutators"
    else fail "JSON report: mutators"; fi
fi
#    A backend that claims bounded polymorphism but compiles per size: the
#    poly-size mutator's prediction (0 new compiles) catches it; claimed
#    truthfully as per-shape the same behaviour is what the contract
#    predicts (1); claiming none, no `?` program is given to it. (The
#    plugin specializes entries of at most 8 parameters: small programs.)
so=$(plugin fault_poly_per_size) || so=
fuzz --backend "$so" --seed 1 --count 100 --poly 50 --max-nodes 3 --mutators poly-size
if [ "$rc" = 1 ] && grep -q '^FINDING compiles/program/any/poly-size:.*1 new compiles, the contract predicts 0 (polymorphism claim: bounded)' "$tmp/out" \
   && [ "$(grep -c '^FINDING' "$tmp/out")" = 1 ]; then
    ok "fault_poly_per_size (claims bounded): caught by poly-size"
else fail "fault_poly_per_size: expected one poly-size compile-count finding, got exit $rc"; fi
PLUMB_FAULT_POLY_CLAIM=per-shape "$PLUMB" fuzz -q --backend "$so" --seed 1 --count 100 --poly 50 --max-nodes 3 --mutators poly-size > "$tmp/out" 2>&1
rc=$?
if [ "$rc" = 0 ] && grep -q '^fuzz: [1-9][0-9]* programs, [1-9][0-9]* mutants, .* 0 findings' "$tmp/out"; then
    ok "fault_poly_per_size claiming per-shape: 1 compile per new size, as predicted"
else fail "fault_poly_per_size per-shape: expected a clean run, got exit $rc"; fi
PLUMB_FAULT_POLY_CLAIM=none "$PLUMB" fuzz -q --backend "$so" --seed 1 --count 100 --poly 50 --max-nodes 3 --mutators poly-size > "$tmp/out" 2>&1
rc=$?
if [ "$rc" = 0 ] && grep -q '^fuzz: [1-9][0-9]* programs, 0 mutants, .* 0 findings' "$tmp/out" \
   && grep -q 'programs skipped' "$tmp/out"; then
    ok "fault_poly_per_size claiming none: ? programs skipped, no poly-size mutant"
else fail "fault_poly_per_size none: expected skipped programs and no mutant, got exit $rc"; fi

# 10. Usage errors exit 2 and name the problem.
for args in "--mutators bogus" "--ops check.expect_eq" "--count 0" "--shard 2/2" "--dtypes f33" "--backend /nonexistent.so" \
            "--poly 101"; do
    # shellcheck disable=SC2086
    "$PLUMB" fuzz -q $args --count 1 > "$tmp/out" 2>&1
    rc=$?
    if [ "$rc" = 2 ] && grep -q 'error' "$tmp/out"; then ok "usage: $args -> 2"
    else fail "usage: $args: expected exit 2 with an error, got $rc"; fi
done
"$PLUMB" reduce --help > "$tmp/out.r" 2>&1
"$PLUMB" fuzz --help > "$tmp/out" 2>&1
if grep -q -- '--mutators' "$tmp/out" && grep -q -- '--shard' "$tmp/out" && grep -q -- '--json' "$tmp/out" \
   && grep -q -- '--poly' "$tmp/out" && grep -q 'poly-size' "$tmp/out" && grep -q 'batch-field' "$tmp/out" \
   && grep -q -- '--timeout' "$tmp/out.r"; then ok "--help"
else fail "--help lacks options"; fi

finish
