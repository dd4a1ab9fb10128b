#!/bin/sh
# plumb certify --contract (and PLUMB_CONTRACT): the cache suite's
# scenarios gated on a compile contract, each scenario one run of a model.
# The runtime meets a contract of at most 8 programs per scenario; the
# planted plugin fault_cache_params (a cache keyed on parameter values:
# a build per new input) breaks it at its ninth build, and certification
# fails with the contract's file and line and the backend's reason in the
# text, JSON and JUnit reports, which name the contract. A contract that
# does not parse is a usage error before anything runs. Shards of a run
# gated on a contract merge into a report that names it.
# Ends with "N passed, N failed".
BUILD=${BUILD:-build}
PLUMB=${PLUMB:-$BUILD/plumb}
. "$(dirname "$0")/../cli/lib.sh"
lib_init certify_contract

jq_is() {
    got=$(jq -r "$2" "$1" 2>&1)
    [ "$got" = "$3" ] && ok || fail "$4: got '$got', want '$3'"
}
has() { grep -qF -- "$2" "$1" && ok || fail "$3"; }

printf '# at most 8 programs per scenario\nmodule * entry main max-programs 8\n' > "$tmp/c.ct"

# The runtime meets it: every scenario that runs under --ops add passes.
r=$tmp/rt
expect_exit 0 "runtime meets the contract" "$PLUMB" certify --backend runtime --ops add -q --contract "$tmp/c.ct" --out "$r"
jq_is "$r/report.json" '.certificate.scope.contract' "$tmp/c.ct" "JSON names the contract"
jq_is "$r/report.json" '[.cache_stability[] | .pass] | all' true "every scenario passes"
has "$r/report.txt" "  contract $tmp/c.ct: every build of a scenario checked" "text names the contract"
has "$r/report.xml" "<system-out>contract: $tmp/c.ct" "JUnit names the contract"
xmllint --noout --schema tests/conformance/junit.xsd "$r/report.xml" 2>/dev/null && ok || fail "JUnit fits the schema"

# The planted plugin breaks it: its ninth build of one program is refused.
r=$tmp/fault
expect_exit 1 "a plugin that builds per input value fails" "$PLUMB" certify --backend "$BUILD/plugins/fault_cache_params.so" \
    --ops add -q --contract "$tmp/c.ct" --out "$r"
jq_is "$r/report.json" '.cache_stability[] | select(.scenario == "new parameter values") | .pass' false "the scenario fails"
jq_is "$r/report.json" '.cache_stability[] | select(.scenario == "new parameter values") | .reason' \
    "step 8: contract $tmp/c.ct:2: @main would build program 9, max-programs 8; the backend gave no reason for it" \
    "the reason names the contract's line and the rule"
jq_is "$r/report.json" '.cache_stability[] | select(.scenario == "new parameter values") | .compiles' 9 "its builds are counted"
jq_is "$r/report.json" '[.cache_stability[] | select(.scenario == "new parameter values") | .explanations[] | select(startswith("step 8: CONTRACT VIOLATION: contract "))] | length' \
    1 "the violation is among the scenario's lines"
grep -q "^      step 8: CONTRACT VIOLATION: contract $tmp/c.ct:2: @main would build program 9" "$r/report.txt" && ok || fail "text report: the violation"
has "$r/report.xml" "CONTRACT VIOLATION: contract $tmp/c.ct:2" "JUnit: the violation"
xmllint --noout --schema tests/conformance/junit.xsd "$r/report.xml" 2>/dev/null && ok || fail "JUnit with a violation fits the schema"

# Without the contract the same plugin fails only the suite's own count.
r=$tmp/nocontract
expect_exit 1 "without a contract" "$PLUMB" certify --backend "$BUILD/plugins/fault_cache_params.so" --ops add -q --out "$r"
jq_is "$r/report.json" '.certificate.scope.contract' null "no contract named"
jq_is "$r/report.json" '[.cache_stability[] | .explanations[]? | select(contains("CONTRACT"))] | length' 0 "no violation without one"

# PLUMB_CONTRACT applies it without the option.
r=$tmp/env
expect_exit 1 "PLUMB_CONTRACT" env PLUMB_CONTRACT="$tmp/c.ct" "$PLUMB" certify --backend "$BUILD/plugins/fault_cache_params.so" \
    --ops add -q --out "$r"
jq_is "$r/report.json" '.certificate.scope.contract' "$tmp/c.ct" "JSON names the contract from the environment"

# A contract that does not parse: usage error, file and line, nothing run.
printf 'module * entry main max-programs none\n' > "$tmp/bad.ct"
expect_exit 2 "a bad contract" "$PLUMB" certify --backend runtime --ops add -q --contract "$tmp/bad.ct" --out "$tmp/bad"
has "$tmp/err" "bad.ct:1: max-programs takes one number" "the error names the file and line"
[ ! -e "$tmp/bad/report.json" ] && ok || fail "nothing was run"

# Shards of a run gated on a contract merge into a report that still names
# it (text, JSON, JUnit); the contract is hashed into the digest, so an
# edited contract path is refused; shards with different contracts are not
# shards of one run.
for i in 0 1; do
    expect_exit 0 "shard $i/2 with the contract" "$PLUMB" certify --backend runtime --ops add -q --shard $i/2 \
        --contract "$tmp/c.ct" --out "$tmp/sh$i"
done
expect_exit 0 "shard 1/2 without the contract" "$PLUMB" certify --backend runtime --ops add -q --shard 1/2 --out "$tmp/shx"
expect_exit 0 "merge of the shards" "$PLUMB" certify merge --out "$tmp/merged" "$tmp/sh0/report.json" "$tmp/sh1/report.json"
jq_is "$tmp/merged/report.json" '.certificate.scope.contract' "$tmp/c.ct" "the merged JSON names the contract"
has "$tmp/merged/report.txt" "  contract $tmp/c.ct: every build of a scenario checked" "the merged text names the contract"
has "$tmp/merged/report.xml" "contract: $tmp/c.ct" "the merged JUnit names the contract"
expect_exit 2 "shards with and without a contract" "$PLUMB" certify merge --out "$tmp/m2" "$tmp/sh0/report.json" "$tmp/shx/report.json"
has "$tmp/err" "compile contract" "the refusal names the contract as the difference"
sed "s|\"contract\": \"$tmp/c.ct\"|\"contract\": \"$tmp/other.ct\"|" "$tmp/sh0/report.json" > "$tmp/edited.json"
if cmp -s "$tmp/edited.json" "$tmp/sh0/report.json"; then
    fail "the contract path could be edited in the report (sed matched nothing)"
else
    expect_exit 2 "a report whose contract was edited" "$PLUMB" certify merge --out "$tmp/m3" "$tmp/edited.json" \
        "$tmp/sh1/report.json"
    has "$tmp/err" "does not match" "the edit breaks the digest"
fi

# The built-in runtime backend ignores the environment's PLUMB_CONTRACT and
# PLUMB_CACHE_DIR: a contract allowing one program per entry would refuse
# every case after an entry's first, and a cache folder would be filled (and
# read) by certification. cache_dir=DIR asks for the disk cache explicitly.
printf 'module * entry * max-programs 1\n' > "$tmp/one.ct"
mkdir -m 700 "$tmp/envcache" "$tmp/optcache"
expect_exit 0 "PLUMB_CONTRACT does not reach the runtime's cases" env PLUMB_CONTRACT="$tmp/one.ct" \
    PLUMB_CACHE_DIR="$tmp/envcache" "$PLUMB" certify --backend runtime --ops add -q --no-cache-suite --out "$tmp/envrt"
jq_is "$tmp/envrt/report.json" '.failed' 0 "no case failed under the environment's contract"
[ -z "$(ls -A "$tmp/envcache")" ] && ok || fail "PLUMB_CACHE_DIR was written by certification"
expect_exit 0 "cache_dir=DIR" "$PLUMB" certify --backend runtime --ops add -q --no-cache-suite --option cache_dir="$tmp/optcache" \
    --out "$tmp/optrt"
[ -n "$(ls -A "$tmp/optcache")" ] && ok || fail "--option cache_dir=DIR filled the folder"

# --help lists the option.
"$PLUMB" certify --help > "$tmp/out" 2>&1
has "$tmp/out" "--contract FILE" "certify --help lists --contract"

finish
