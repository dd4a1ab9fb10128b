#!/bin/sh
# plumb certify's cache suite: the backend's reason for every build (ABI
# 1.2 explain) in the text, JSON and JUnit reports; the seed recompile
# scenarios of scenarios/ (leak and fix) with the compile counts of
# docs/scenarios.md's table (those two on the whole quick suite are checked
# in test_certify_scope.sh, which runs it); under --ops, the scenarios whose ops were not
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

# 1. The runtime, whole quick suite: every seed scenario's build counts and
# reasons are checked in test_certify_scope.sh (section "the cache suite's
# reasons"), on the whole runtime run it makes anyway: running the whole
# quick suite here as well cost make check some 35 s of one lane.

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
