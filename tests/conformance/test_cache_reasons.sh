#!/bin/sh
# plumb certify's cache suite: the backend's reason for every build (ABI
# 1.2 explain) in the text, JSON and JUnit reports; the seed recompile
# scenarios of scenarios/ (leak and fix) with the compile counts of
# docs/scenarios.md's table; under --ops, the scenarios whose ops were not
# selected listed as not run; a plugin built against ABI 1.1 reported as
# giving no explanations. Ends with "N passed, N failed".
BUILD=${BUILD:-build}
PLUMB=${PLUMB:-$BUILD/plumb}
. "$(dirname "$0")/../cli/lib.sh"
lib_init cache_reasons


# jq_is FILE FILTER WANT WHAT
jq_is() {
    got=$(jq -r "$2" "$1" 2>&1)
    [ "$got" = "$3" ] && ok || fail "$4: got '$got', want '$3'"
}
has() { grep -qF -- "$2" "$1" && ok || fail "$3"; }

# The seed scenarios read their programs from the source tree's scenarios/.
export PLUMB_SCENARIOS_DIR=scenarios

# 1. The runtime, whole quick suite: every seed scenario runs, leak and fix,
# with the builds docs/scenarios.md states (one per distinct program of the
# leak: 20 learning rates, 8 counter totals, create and accumulate, 4
# field combinations, capacities 9..13, k in {2,3,5,6,8}, 20 lengths; the
# fix once), and the runtime names each build's cause.
r=$tmp/rt
expect_exit 0 "runtime certifies" "$PLUMB" certify --backend runtime -q --out "$r"
for s in baked-learning-rate:20 moe-overflow-counter:8 grad-create-accumulate:2 optional-batch-fields:4 \
         moe-capacity-drift:5 topk-varying-k:5 varying-sequence-length:20; do
    n=${s%%:*}; c=${s##*:}
    jq_is "$r/report.json" ".cache_stability[] | select(.scenario == \"seed $n (leak)\") | \"\(.compiles) \(.pass) \(.builds_explained)\"" \
        "$c true $c" "$n leak: $c builds, each explained"
    jq_is "$r/report.json" ".cache_stability[] | select(.scenario == \"seed $n (fix)\") | \"\(.compiles) \(.pass)\"" \
        "1 true" "$n fix: one build"
done
jq_is "$r/report.json" '.cache_not_run | length' 0 "nothing left out on the runtime"
# The reasons are the runtime's: lr 0.001 became 0.002 at step 2, named at
# the front end's location written in the program (train.py:41:10); k 2
# became 3 at chlo.top_k; the first build of each scenario is its entry's
# first program.
jq_is "$r/report.json" '.cache_stability[] | select(.scenario == "seed baked-learning-rate (leak)") | .explanations[1] | test("^step 2: .*constant 1.000000e-03 became 2.000000e-03.*train.py:41:10")' \
    true "baked lr: step 2's reason names the constant and its location"
jq_is "$r/report.json" '.cache_stability[] | select(.scenario == "seed topk-varying-k (leak)") | .explanations[1] | test("^step 2: .*chlo.top_k.*attribute k 2 became 3")' \
    true "top_k: step 2's reason names the attribute"
jq_is "$r/report.json" '[.cache_stability[] | .explanations[0] | test("^step [01]: first program of @main$")] | all' \
    true "every scenario's first build is its entry's first program"
jq_is "$r/report.json" '.cache_stability[] | select(.scenario == "new parameter values") | .explanations | length' \
    1 "one program, one build, one reason"
grep -Eq "^      step 2: .*chlo.top_k.*attribute k 2 became 3" "$r/report.txt" && ok || fail "text report lists the reasons"
has "$r/report.xml" "<system-out>step 0: first program of @main" "JUnit carries the reasons"

# 2. --ops add: the scenarios needing other ops are listed as not run, with
# the ops, in every report; the ones that fit run.
r=$tmp/add
expect_exit 0 "runtime --ops add" "$PLUMB" certify --backend runtime --ops add -q --out "$r"
jq_is "$r/report.json" '[.cache_not_run[] | select(.scenario | startswith("seed "))] | length' 14 "all 14 seed scenarios listed as not run"
jq_is "$r/report.json" '.cache_not_run[] | select(.scenario == "seed grad-create-accumulate (leak)") | .reason' \
    "not run (ops not selected: stablehlo.dot_general)" "the op not selected is named"
jq_is "$r/report.json" '.cache_not_run[] | select(.scenario == "op change") | .reason' \
    "not run (ops not selected: stablehlo.subtract f32, stablehlo.multiply f32, stablehlo.maximum f32)" "a built-in scenario left out says why"
jq_is "$r/report.json" '[.cache_stability[] | .scenario | startswith("seed ")] | any' false "no seed scenario ran"
jq_is "$r/report.json" '.cache_stability[] | select(.scenario == "new parameter values") | .pass' true "the scenarios that fit ran"
grep -Eq "^  seed topk-varying-k \(fix\) +not run \(ops not selected: " "$r/report.txt" && ok || fail "text report lists not run"
has "$r/report.xml" '<testcase classname="cache" name="seed moe-overflow-counter (leak)" time="0"><skipped message="not run (ops not selected: stablehlo.constant, stablehlo.reduce)"/>' \
    "JUnit: not run is skipped with why"
xmllint --noout --schema tests/conformance/junit.xsd "$r/report.xml" 2>/dev/null && ok || fail "JUnit with skipped cache scenarios fits the schema"

# 3. The ops of one seed scenario (baked learning rate): it runs, and only it.
r=$tmp/lr
expect_exit 0 "runtime, the lr scenario's ops" "$PLUMB" certify --backend runtime --ops add,subtract,multiply,constant,broadcast_in_dim -q --out "$r"
jq_is "$r/report.json" '[.cache_stability[] | select(.scenario | startswith("seed ")) | .scenario] | join(",")' \
    "seed baked-learning-rate (leak),seed baked-learning-rate (fix)" "exactly the scenario whose ops were selected ran"
jq_is "$r/report.json" '[.cache_not_run[] | select(.scenario | startswith("seed "))] | length' 12 "the other 12 listed"

# 4. Programs not found: listed as not run, naming where it looked.
r=$tmp/nodir
PLUMB_SCENARIOS_DIR=$tmp/nowhere "$PLUMB" certify --backend runtime --ops add -q --out "$r" > /dev/null 2>&1
jq_is "$r/report.json" '.cache_not_run[] | select(.scenario == "seed topk-varying-k (leak)") | .reason | test("programs not found: cannot read .*nowhere/topk-varying-k/leak.*PLUMB_SCENARIOS_DIR")' \
    true "a missing scenarios folder is named"

# --scenarios-dir wins over the environment: a folder holding only the
# learning-rate scenario runs it and lists the others as not found.
mkdir -p "$tmp/sc"
cp -R scenarios/baked-learning-rate "$tmp/sc/"
r=$tmp/scdir
PLUMB_SCENARIOS_DIR=$tmp/nowhere "$PLUMB" certify --backend runtime --ops add,subtract,multiply,constant,broadcast_in_dim \
    --scenarios-dir "$tmp/sc" -q --out "$r" > /dev/null 2>&1
jq_is "$r/report.json" '.cache_stability[] | select(.scenario == "seed baked-learning-rate (leak)") | "\(.compiles) \(.pass)"' \
    "20 true" "--scenarios-dir: the scenario there runs"
jq_is "$r/report.json" '.cache_not_run[] | select(.scenario == "seed moe-overflow-counter (fix)") | .reason | test("programs not found: cannot read .*/sc/moe-overflow-counter/leak")' \
    true "--scenarios-dir: the others are named as not found there"

# 5. A plugin built against ABI 1.1 (no explain) loads, runs the suite, and
# the reports say it gives no explanations (JSON: null).
r=$tmp/old
expect_exit 0 "ABI 1.1 plugin" "$PLUMB" certify --backend "$BUILD/plugins/old_abi_1_1.so" --ops add -q --out "$r"
has "$r/report.txt" "reasons: no explanations (the backend's table has no explain" "text: no explanations"
jq_is "$r/report.json" '[.cache_stability[] | .explanations == null] | all' true "JSON: explanations null"
jq_is "$r/report.json" '.cache_stability[] | select(.scenario == "return to earlier programs") | "\(.compiles) \(.pass)"' \
    "7 true" "its counts are still checked"

# 6. Shards merged: shard 0's reasons and scenarios not run survive the
# merge (read back from its JSON).
for i in 0 1; do
    "$PLUMB" certify --backend runtime --ops add --shard $i/2 -q --json "$tmp/s$i.json" > /dev/null 2>&1
done
expect_exit 0 "merge" "$PLUMB" certify merge -q --json "$tmp/m.json" --text "$tmp/m.txt" "$tmp/s0.json" "$tmp/s1.json"
jq_is "$tmp/m.json" '.cache_not_run | length' "$(jq '.cache_not_run | length' "$tmp/s0.json")" "merged: the scenarios not run"
jq_is "$tmp/m.json" '.cache_stability[] | select(.scenario == "return to earlier programs") | "\(.builds_explained) \(.explanations[0])"' \
    "7 step 0: first program of @main" "merged: the reasons of 7 builds"
grep -Eq "^  seed topk-varying-k \(leak\) +not run \(ops not selected" "$tmp/m.txt" && ok || fail "merged text lists not run"

finish
