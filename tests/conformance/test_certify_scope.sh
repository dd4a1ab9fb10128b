#!/bin/sh
# plumb certify's scope and the runs built on reports: partial runs (--ops,
# --limit, --shard, --case) are never certificates; `certify merge` of the
# shards of a run gives the unsharded run's digest and rejects shards that
# are missing, repeated or of another run; --case and --rerun-failures
# replay failures of a planted fault; --baseline and --retry (known
# failures, flaky crashes); bad baseline and report files are rejected
# naming the file and the problem. Needs jq (ci/deps.sh installs it).
# Also the cache suite's reasons on the whole quick suite (section 1 of
# test_cache_reasons.sh until 2026-11-26): they are read from this test's
# whole runtime run, which make check used to run a second time there.
# Ends with "N passed, N failed, N skipped".
BUILD=${BUILD:-build}
PLUMB=${PLUMB:-$BUILD/plumb}
. "$(dirname "$0")/../cli/lib.sh"
lib_init certify_scope
# Absolute paths, then work in $tmp: runs without --out leave their
# reproducers in ./certify-repro, which must not land in the source tree.
case $BUILD in /*) ;; *) BUILD=$(pwd)/$BUILD ;; esac
case $PLUMB in /*) ;; *) PLUMB=$(pwd)/$PLUMB ;; esac
# The whole runtime run and its shards run the seed scenarios of the source
# tree's scenarios/ (the cache reasons below need them); only they get it,
# so the fault plugin's whole run below stays as cheap as before.
SCENARIOS=$(pwd)/scenarios
cd "$tmp" || exit 1
command -v jq > /dev/null || { echo "test_certify_scope: jq not found (run ci/deps.sh)"; echo "0 passed, 1 failed"; exit 1; }


# has FILE TEXT DESCRIPTION: FILE contains TEXT (fixed string)
has() { grep -qF -- "$2" "$1" && ok || { fail "$3: '$2' not in $1"; head -n 5 "$1"; }; }
hasnt() { grep -qF -- "$2" "$1" && fail "$3: '$2' in $1" || ok; }
# jq_ok FILE FILTER DESCRIPTION: the filter is true on FILE
jq_ok() { jq -e "$2" "$1" > /dev/null 2>&1 && ok || fail "$3: jq '$2' on $1"; }
digest() { jq -r .certificate.digest "$1"; }
# The runtime's whole quick suite runs once here, one way in make check
# and the other under the sanitizers (make asan sets SANITIZED=yes); CI
# runs both, so every check below is made on every CI run:
#  - make check runs it as 4 shards and merges them: the shards are no
#    certificates, the merge is one (JSON, JUnit), and the whole-suite and
#    cache-reason checks read the merged report;
#  - make asan runs it unsharded (the -q verdict of a whole run, 2 checks
#    make check skips) and makes the same whole-suite and cache-reason
#    checks on that report (the 4 shards and their merge, 12 checks, are
#    skipped there: they would cost a second whole suite under ASan).
# That merging the shards gives the unsharded run's digest and counts, and
# that a complete run with known failures is a certificate with a baseline,
# are checked on a backend that claims few ops (fault_exp_ulp_few_ops: the
# fault of fault_exp_ulp; a complete run of a few CPU-seconds) instead of
# on the whole suite of ops (until 2026-11-28 the runtime's whole suite ran
# twice here, unsharded and sharded, and the fault plugin's once more, about
# 130 CPU-s of make check's).
# asan_skip N WHAT: counts N checks as skipped, saying why.
SANITIZED=${SANITIZED:-no}
# The whole-suite runs get a generous per-case limit: the slowest quick case
# (chlo.zeta on f8E8M0FNU, an MPFR oracle) takes 7-15 s alone and came near
# the default 60 s on a loaded 2-core machine under ASan. The limit itself is
# checked by the runner's own tests, not here.
WHOLE_TIMEOUT=300
asan_skip() {
    skipped=$((${skipped:-0} + $1))
    echo "skipped: $2 ($1 checks) runs in make check only, not under the sanitizers"
}
skipped=0
# jq_is FILE FILTER WANT WHAT: the filter's raw output on FILE is WANT
jq_is() {
    got=$(jq -r "$2" "$1" 2>&1)
    [ "$got" = "$3" ] && ok || fail "$4: got '$got', want '$3'"
}

FAULT=$BUILD/plugins/fault_exp_ulp.so
FEW=$BUILD/plugins/fault_exp_ulp_few_ops.so
FLAKY=$BUILD/plugins/run_crash_flaky.so
CRASH=$BUILD/plugins/run_crash_one.so

# ---- partial runs are never certificates -------------------------------------
# ref claims every op; --ops add used to print CERTIFIED and "certified": true
expect_exit 0 "--ops run that passes" "$PLUMB" certify --backend ref --ops add --out "$tmp/ops"
has "$tmp/out" "verdict       PARTIAL (ops: add) — not a certificate: every case run passed" "--ops verdict"
hasnt "$tmp/out" "CERTIFIED" "--ops verdict"
jq_ok "$tmp/ops/report.json" '.certificate.certified == false and .certificate.gate_ok == true
    and .certificate.scope == {"ops": ["stablehlo.add"], "limit": null, "shard": null, "cases": null, "contract": null,
                               "cache_suite": true, "complete": false}' "--ops JSON scope"
# which cases reran on a fresh instance is reported: a sanitized plumb
# (make asan) samples fewer and its text report says so on its own line
if [ "$SANITIZED" = yes ]; then
    jq_ok "$tmp/ops/report.json" '.certificate.fresh_instance_rerun == "batch_last"' "sanitized rerun sampling JSON"
    has "$tmp/out" "isolation     sanitized build: batches mix element types" "sanitized rerun sampling text"
else
    jq_ok "$tmp/ops/report.json" '.certificate.fresh_instance_rerun == "one_in_16"' "rerun sampling JSON"
    hasnt "$tmp/out" "isolation" "rerun sampling text"
fi
has "$tmp/ops/report.xml" '<property name="certified" value="false"/>' "--ops JUnit"
has "$tmp/ops/report.xml" '<property name="scope" value="ops: add"/>' "--ops JUnit scope"

expect_exit 0 "--shard run" "$PLUMB" certify --backend ref --ops add --shard 1/4 --json "$tmp/shard.json" -q
has "$tmp/out" "verdict: PARTIAL (ops: add; shard 1/4) — not a certificate" "--shard verdict"
jq_ok "$tmp/shard.json" '.certificate.certified == false and .certificate.scope.shard == {"index": 1, "count": 4}' "--shard JSON"

expect_exit 1 "--limit run" "$PLUMB" certify --backend ref --ops abs --limit 2 --json "$tmp/limit.json" -q
has "$tmp/out" "PARTIAL (ops: abs; limit 2) — not a certificate: FAILED" "--limit verdict"
jq_ok "$tmp/limit.json" '.certificate.certified == false and .certificate.scope.limit == 2' "--limit JSON"

# ---- the whole quick suite: 4 shards merged (make check), unsharded (make asan)
if [ "$SANITIZED" = yes ]; then
    expect_exit 0 "whole quick suite" env PLUMB_SCENARIOS_DIR="$SCENARIOS" "$PLUMB" certify --backend runtime --jobs 2 --timeout $WHOLE_TIMEOUT --out "$tmp/whole" -q
    has "$tmp/out" "verdict: CERTIFIED: every claimed op passed" "whole-suite verdict"
    asan_skip 12 "the whole quick suite as 4 shards and their merge"
    r=$tmp/whole
else
    skipped=$((skipped + 2))
    echo "skipped: the whole quick suite unsharded (2 checks: its exit status and -q verdict) runs under the sanitizers (make asan); make check runs it as 4 shards and checks their merge"
    for i in 0 1 2 3; do
        expect_exit 0 "quick suite shard $i/4" env PLUMB_SCENARIOS_DIR="$SCENARIOS" "$PLUMB" certify --backend runtime --jobs 2 --timeout $WHOLE_TIMEOUT --shard $i/4 --json "$tmp/q$i.json" -q
        jq_ok "$tmp/q$i.json" '.certificate.certified == false' "shard $i is no certificate"
    done
    expect_exit 0 "merge 4 shards" "$PLUMB" certify merge --out "$tmp/merged" "$tmp/q2.json" "$tmp/q0.json" "$tmp/q3.json" "$tmp/q1.json"
    has "$tmp/out" "verdict       CERTIFIED: every claimed op passed" "merged verdict"
    jq_ok "$tmp/merged/report.json" '.certificate.shard_count == 1 and .certificate.scope.shard == null' "merged JSON"
    [ -s "$tmp/merged/report.xml" ] && ok || fail "merge wrote no JUnit"
    r=$tmp/merged
fi
jq_ok "$r/report.json" '.certificate.certified == true and .certificate.scope.complete == true
    and .certificate.scope.ops == "all" and (.cases | length) == (.passed - (.cache_stability | length))' "whole-suite JSON"

# ---- the cache suite's reasons, from the whole runtime run ---------------------
# Every seed scenario runs, leak and fix, with the builds docs/scenarios.md
# states (one per distinct program of the leak: 20 learning rates, 8 counter
# totals, create and accumulate, 4 field combinations, capacities 9..13, k in
# {2,3,5,6,8}, 20 lengths; the fix once), and the runtime names each build's
# cause (ABI 1.2 explain) in the text, JSON and JUnit reports ($r: the
# merged report in make check, the unsharded one under the sanitizers).
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

# shards of an --ops run merge to a partial run with the unsharded digest
expect_exit 0 "ops run" "$PLUMB" certify --backend ref --ops add,negate --json "$tmp/an.json" -q
for i in 0 1 2 3; do
    "$PLUMB" certify --backend ref --ops add,negate --shard $i/4 --json "$tmp/an$i.json" -q > /dev/null 2>&1
done
expect_exit 0 "merge ops shards" "$PLUMB" certify merge --json "$tmp/anm.json" -q "$tmp/an0.json" "$tmp/an1.json" "$tmp/an2.json" "$tmp/an3.json"
has "$tmp/out" "verdict: PARTIAL (ops: negate,add) — not a certificate" "merged --ops verdict"
[ "$(digest "$tmp/anm.json")" = "$(digest "$tmp/an.json")" ] && ok || fail "merged --ops digest differs"
jq_ok "$tmp/anm.json" '.certificate.certified == false and .certificate.scope.shard == null' "merged --ops JSON"

# merge rejects what is not the shards of one run (exit 2, naming the problem)
expect_exit 2 "missing shard" "$PLUMB" certify merge "$tmp/an0.json" "$tmp/an1.json" "$tmp/an2.json"
has "$tmp/err" "shard 3/4 is missing" "missing shard message"
expect_exit 2 "duplicate shard" "$PLUMB" certify merge "$tmp/an0.json" "$tmp/an1.json" "$tmp/an1.json" "$tmp/an3.json"
has "$tmp/err" "$tmp/an1.json: shard 1/4 is given twice" "duplicate shard message"
"$PLUMB" certify --backend ref --ops add,negate --shard 1/4 --seed 7 --json "$tmp/seed7.json" -q > /dev/null 2>&1
expect_exit 2 "other seed" "$PLUMB" certify merge "$tmp/an0.json" "$tmp/seed7.json" "$tmp/an2.json" "$tmp/an3.json"
has "$tmp/err" "$tmp/seed7.json: disagrees with $tmp/an0.json on the seed" "other seed message"
"$PLUMB" certify --backend runtime --ops add,negate --shard 1/4 --json "$tmp/rt1.json" -q > /dev/null 2>&1
expect_exit 2 "other backend" "$PLUMB" certify merge "$tmp/an0.json" "$tmp/rt1.json" "$tmp/an2.json" "$tmp/an3.json"
has "$tmp/err" "on the backend name" "other backend message"
"$PLUMB" certify --backend ref --ops add --shard 1/4 --json "$tmp/add1.json" -q > /dev/null 2>&1
expect_exit 2 "other scope" "$PLUMB" certify merge "$tmp/an0.json" "$tmp/add1.json" "$tmp/an2.json" "$tmp/an3.json"
has "$tmp/err" "on the scope (--ops)" "other scope message"
"$PLUMB" certify --backend ref --ops add,negate --suite full --shard 1/4 --json "$tmp/full1.json" -q > /dev/null 2>&1
expect_exit 2 "other suite" "$PLUMB" certify merge "$tmp/an0.json" "$tmp/full1.json" "$tmp/an2.json" "$tmp/an3.json"
has "$tmp/err" "on the suite" "other suite message"

# bad report files: missing, truncated, not a report, edited
expect_exit 2 "missing report" "$PLUMB" certify merge "$tmp/nosuch.json"
has "$tmp/err" "$tmp/nosuch.json" "missing report message"
head -c 3000 "$tmp/an1.json" > "$tmp/trunc.json"
expect_exit 2 "truncated report" "$PLUMB" certify merge "$tmp/an0.json" "$tmp/trunc.json"
grep -Eq "^$tmp/trunc.json:[0-9]+:[0-9]+: error: .*truncated" "$tmp/err" && ok || { fail "truncated report message"; cat "$tmp/err"; }
echo '{"passed": 1}' > "$tmp/other.json"
expect_exit 2 "not a report" "$PLUMB" certify merge "$tmp/other.json"
has "$tmp/err" "not a plumb certify report" "not-a-report message"
# one budget changed by hand: the records no longer match the digest
sed '0,/"pass", 0,/s//"pass", 0.5,/' "$tmp/an2.json" > "$tmp/edited.json"
cmp -s "$tmp/an2.json" "$tmp/edited.json" && fail "edit did not change the report" || ok
expect_exit 2 "edited report" "$PLUMB" certify merge "$tmp/an0.json" "$tmp/an1.json" "$tmp/edited.json" "$tmp/an3.json"
has "$tmp/err" "does not match the report's terms and case records" "edited report message"

# ---- --case and --rerun-failures replay a planted fault ----------------------
expect_exit 1 "fault certify fails" "$PLUMB" certify --backend "$FAULT" --ops exponential,negate --out "$tmp/fault" -q
nfail=$(jq '[.failures[] | select(.status == "fail")] | length' "$tmp/fault/report.json")
[ "$nfail" -gt 0 ] && ok || fail "the fault plugin failed no case"
id=$(jq -r '.failures[0].id' "$tmp/fault/report.json")
expect_exit 1 "--case reproduces the failure" "$PLUMB" certify --backend "$FAULT" --case "$id" --out "$tmp/case"
has "$tmp/out" "$id  [fail] " "--case names the case"
has "$tmp/out" "error 2 ulp, bound 1 ulp" "--case gives the same reason"
has "$tmp/out" "PARTIAL (case $id) — not a certificate: FAILED" "--case verdict"
tail -n 1 "$tmp/out" | grep -qx "certify: 0 passed, 1 failed, 0 skipped" && ok || fail "--case ran more than the case: $(tail -n 1 "$tmp/out")"
ls "$tmp"/case/repro/*/program.mlir > /dev/null 2>&1 && ok || fail "--case saved no reproducer"
jq -e --arg id "$id" '.certificate.scope.cases == [$id] and .certificate.certified == false' "$tmp/case/report.json" > /dev/null && ok || fail "--case JSON scope"
expect_exit 0 "--case passes on the reference" "$PLUMB" certify --backend ref --case "$id" -q
# unknown ids: usage error with the nearest ids
expect_exit 2 "unknown case id" "$PLUMB" certify --backend ref --case "exponential/f32/odd/nromal/0"
has "$tmp/err" "'exponential/f32/odd/nromal/0' is no case of the quick suite (seed 1); nearest: exponential/f32/odd/normal/0" "unknown id suggestion"
expect_exit 2 "misspelt op in a case id" "$PLUMB" certify --backend ref --case "exponentail/f32/odd/normal/0"
has "$tmp/err" "nearest: exponential/f32/odd/normal/0" "misspelt op suggestion"
expect_exit 2 "--case with --ops" "$PLUMB" certify --backend ref --case "$id" --ops add
# --rerun-failures: the failed cases of a report, on its backend unless told
expect_exit 1 "--rerun-failures" "$PLUMB" certify --rerun-failures "$tmp/fault/report.json" -q
tail -n 1 "$tmp/out" | grep -qx "certify: 0 passed, $nfail failed, 0 skipped" && ok || fail "--rerun-failures: $(tail -n 1 "$tmp/out"), want $nfail failed"
expect_exit 0 "--rerun-failures on ref" "$PLUMB" certify --rerun-failures "$tmp/fault/report.json" --backend ref -q
tail -n 1 "$tmp/out" | grep -qx "certify: $nfail passed, 0 failed, 0 skipped" && ok || fail "--rerun-failures on ref: $(tail -n 1 "$tmp/out")"
expect_exit 0 "--rerun-failures, nothing failed" "$PLUMB" certify --rerun-failures "$tmp/an.json"
has "$tmp/out" "has no failed case to rerun" "nothing to rerun message"
expect_exit 2 "--rerun-failures, missing report" "$PLUMB" certify --rerun-failures "$tmp/nosuch.json"
has "$tmp/err" "$tmp/nosuch.json" "missing rerun report message"
expect_exit 2 "--rerun-failures, other seed" "$PLUMB" certify --rerun-failures "$tmp/fault/report.json" --seed 9
has "$tmp/err" "--seed disagrees with $tmp/fault/report.json" "rerun seed message"

# ---- baselines ------------------------------------------------------------------
{ echo "# known failures of fault_exp_ulp"; echo "# suite: quick"; echo "# seed: 1"
  jq -r '.failures[].id' "$tmp/fault/report.json"; echo "negate/f32/odd/normal/0"; } > "$tmp/base.txt"
expect_exit 0 "baseline excuses known failures" "$PLUMB" certify --backend "$FAULT" --ops exponential,negate --baseline "$tmp/base.txt" --out "$tmp/bl"
has "$tmp/out" "negate/f32/odd/normal/0  fixed — remove it from the baseline" "fixed entry"
has "$tmp/out" "[fail] (known failure, in the baseline)" "excused failure shown"
has "$tmp/out" "passed with $nfail known failures excused by $tmp/base.txt" "baseline verdict"
jq_ok "$tmp/bl/report.json" ".baseline.excused == $nfail and .baseline.fixed == [\"negate/f32/odd/normal/0\"] and .certificate.gate_ok == true" "baseline JSON"
# a failure the baseline does not list still fails
grep -v "$id" "$tmp/base.txt" > "$tmp/base2.txt"
expect_exit 1 "new failure fails despite the baseline" "$PLUMB" certify --backend "$FAULT" --ops exponential,negate --baseline "$tmp/base2.txt" -q
has "$tmp/out" "$id [fail] output" "new failure named"
# a complete run with its known failures: a certificate that says so. The
# backend claims few ops (exponential with fault_exp_ulp's fault, negate,
# and the ops of the cache suite's built-in scenarios, which run), so its
# complete run is cheap; until 2026-11-28 this was fault_exp_ulp's whole
# suite (every op, about 40 CPU-s).
expect_exit 0 "complete run with a baseline" "$PLUMB" certify --backend "$FEW" --jobs 2 --baseline "$tmp/base.txt" --out "$tmp/few" -q
has "$tmp/out" "verdict: CERTIFIED WITH BASELINE ($nfail known failures excused by $tmp/base.txt)" "baseline certificate"
jq_ok "$tmp/few/report.json" '.certificate.certified == true and (.certificate.verdict | startswith("CERTIFIED WITH BASELINE"))
    and .certificate.scope.complete == true and .certificate.scope.ops == "all" and (.cache_stability | length) > 0' "baseline certificate JSON"
# merge: the 4 shards of a complete run give the unsharded run's digest
# and counts (with the cache suite, which shard 0 runs, and the baseline)
if [ "$SANITIZED" = yes ]; then
    asan_skip 12 "the 4 shards of fault_exp_ulp_few_ops' complete run and their merge"
else
    for i in 0 1 2 3; do
        expect_exit 0 "few-ops shard $i/4" "$PLUMB" certify --backend "$FEW" --jobs 2 --shard $i/4 --baseline "$tmp/base.txt" --json "$tmp/f$i.json" -q
        jq_ok "$tmp/f$i.json" '.certificate.certified == false' "few-ops shard $i is no certificate"
    done
    expect_exit 0 "merge 4 few-ops shards" "$PLUMB" certify merge --baseline "$tmp/base.txt" --out "$tmp/fm" "$tmp/f2.json" "$tmp/f0.json" "$tmp/f3.json" "$tmp/f1.json"
    has "$tmp/out" "verdict       CERTIFIED WITH BASELINE ($nfail known failures excused by $tmp/base.txt)" "merged baseline verdict"
    [ "$(digest "$tmp/fm/report.json")" = "$(digest "$tmp/few/report.json")" ] && ok ||
        fail "merged digest $(digest "$tmp/fm/report.json") != unsharded $(digest "$tmp/few/report.json")"
    [ "$(tail -n 1 "$tmp/out")" = "$(tail -n 1 "$tmp/few/report.txt")" ] && ok || fail "merged counts differ: $(tail -n 1 "$tmp/out")"
fi
# bad baselines: exit 2, naming the file and the problem
bl_bad() { # $1 description, $2 expected message; the baseline is $tmp/b.txt
    expect_exit 2 "baseline: $1" "$PLUMB" certify --backend ref --ops add --baseline "$tmp/b.txt"
    has "$tmp/err" "$2" "baseline: $1"
    has "$tmp/err" "$tmp/b.txt" "baseline: $1 names the file"
}
rm -f "$tmp/b.txt"
bl_bad "missing" "cannot be read"
: > "$tmp/b.txt"
bl_bad "empty" "empty file (truncated?)"
printf 'add/f32/odd/normal/0\nadd/f32/od' > "$tmp/b.txt"
bl_bad "truncated" "truncated: the last line has no newline"
printf '# suite: full\nadd/f32/odd/normal/0\n' > "$tmp/b.txt"
bl_bad "another suite" "b.txt:1:1: error: baseline: it is a baseline of the full suite, this run is the quick suite"
printf '# seed: 5\nadd/f32/odd/normal/0\n' > "$tmp/b.txt"
bl_bad "another seed" "it is a baseline of seed 5, this run uses seed 1"
printf 'add/f32/odd/normal/0\nadd/f32/odd/normal/9\n' > "$tmp/b.txt"
bl_bad "unknown case" "b.txt:2:1: error: baseline: 'add/f32/odd/normal/9' is no case of the quick suite (seed 1); nearest: add/f32/odd/normal/0"
printf 'add/f32/odd/normal/0\nadd/f32/odd/normal/0\n' > "$tmp/b.txt"
bl_bad "duplicate" "'add/f32/odd/normal/0' is listed twice"
printf 'add/f32/odd/normal/0 add/f32/odd/uniform/0\n' > "$tmp/b.txt"
bl_bad "two ids on a line" "is not one case id"
expect_exit 2 "merge with a bad baseline" "$PLUMB" certify merge --baseline "$tmp/b.txt" "$tmp/an.json"
has "$tmp/err" "$tmp/b.txt" "merge baseline message"

# ---- retries: a crash that passes on a retry is flaky, not failing --------------
PLUMB_TEST_FLAKY_MARKER="$tmp/marker"
export PLUMB_TEST_FLAKY_MARKER
expect_exit 1 "flaky crash without --retry fails" "$PLUMB" certify --backend "$FLAKY" --ops exponential,add -q
has "$tmp/out" "[crash] worker died of signal 11" "flaky crash reported"
rm -f "$tmp/marker"
expect_exit 0 "flaky crash with --retry passes" "$PLUMB" certify --backend "$FLAKY" --ops exponential,add --retry 2 --out "$tmp/flaky"
has "$tmp/out" "passed on attempt 2; first: worker died of signal 11" "flaky case listed"
has "$tmp/out" "1 flaky case (passed on retry)" "flaky in the verdict"
jq_ok "$tmp/flaky/report.json" '.flaky == 1 and ([.failures[] | select(.status == "flaky" and .attempts == 2)] | length) == 1 and .failed == 0' "flaky JSON"
unset PLUMB_TEST_FLAKY_MARKER
expect_exit 1 "a crash on every attempt fails" "$PLUMB" certify --backend "$CRASH" --ops exponential,add --retry 2
has "$tmp/out" "attempts: 3" "attempts counted"

finish
