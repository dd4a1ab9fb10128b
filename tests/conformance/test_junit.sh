#!/bin/sh
# plumb certify's JUnit XML is what CI systems accept: every report
# validates against tests/conformance/junit.xsd (xmllint, from
# libxml2-utils, which ci/deps.sh installs), and the tests / failures /
# errors / skipped attributes of <testsuites> and of every <testsuite> equal
# the elements they hold. Reports cover passes, failures with reproducers,
# crashes, known failures (baseline), flaky cases, a manifest failure,
# unsupported ops and a merged run. Ends with "N passed, N failed".
BUILD=${BUILD:-build}
PLUMB=${PLUMB:-$BUILD/plumb}
XSD=tests/conformance/junit.xsd
. "$(dirname "$0")/../cli/lib.sh"
lib_init junit
# Absolute paths, then work in $tmp: runs without --out leave their
# reproducers in ./certify-repro, which must not land in the source tree.
case $BUILD in /*) ;; *) BUILD=$(pwd)/$BUILD ;; esac
case $PLUMB in /*) ;; *) PLUMB=$(pwd)/$PLUMB ;; esac
XSD=$(pwd)/$XSD
cd "$tmp" || exit 1
if ! command -v xmllint > /dev/null; then
    echo "test_junit: xmllint not found: install libxml2-utils (ci/deps.sh does)"
    echo "0 passed, 1 failed"
    exit 1
fi


# counts_ok FILE: each <testsuite> line's counts (and the <testsuites>
# totals) equal the <testcase>, <failure>, <error> and <skipped> elements
# up to its </testsuite>. The writer puts each testcase on one line.
counts_ok() {
    awk '
    function attr(s, name,   m) {
        if (match(s, " " name "=\"[0-9]+\"")) { m = substr(s, RSTART, RLENGTH); gsub(/[^0-9]/, "", m); return m + 0 }
        return -1
    }
    function count(s, tag,   n) { n = 0; while ((i = index(s, "<" tag)) > 0) { n++; s = substr(s, i + 1) } return n }
    /<testsuites / { T = attr($0, "tests"); F = attr($0, "failures"); E = attr($0, "errors"); S = attr($0, "skipped") }
    /<testsuite / { name = $0; t = attr($0, "tests"); f = attr($0, "failures"); e = attr($0, "errors"); s = attr($0, "skipped"); ct = cf = ce = cs = 0; suites++ }
    /<testcase / { ct++; cf += count($0, "failure "); ce += count($0, "error "); cs += count($0, "skipped") }
    /<\/testsuite>/ {
        if (t != ct || f != cf || e != ce || s != cs) { print "suite counts " t "/" f "/" e "/" s " but elements " ct "/" cf "/" ce "/" cs ": " name; bad = 1 }
        at += ct; af += cf; ae += ce; as += cs
    }
    END {
        if (T != at || F != af || E != ae || S != as) { print "testsuites counts " T "/" F "/" E "/" S " but elements " at "/" af "/" ae "/" as; bad = 1 }
        if (suites == 0) { print "no testsuite"; bad = 1 }
        exit bad
    }' "$1"
}

# check FILE DESCRIPTION: schema-valid, counts match, time and timestamp
check() {
    if xmllint --noout --schema "$XSD" "$1" > "$tmp/xl" 2>&1; then ok; else fail "$2: does not validate"; head -n 5 "$tmp/xl"; fi
    if counts_ok "$1" > "$tmp/cnt"; then ok; else fail "$2: counts disagree with elements"; head -n 5 "$tmp/cnt"; fi
    grep -Eq '<testsuites [^>]*time="[0-9.]+" timestamp="[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}"' "$1" && ok || fail "$2: no time/timestamp on testsuites"
}

# every failure has a message attribute and a body
failures_described() {
    n=$(grep -c '<failure ' "$1")
    d=$(grep -Ec '<failure [^>]*message="[^"]+">[^<]' "$1")
    [ "$n" -gt 0 ] && [ "$n" = "$d" ] && ok || fail "$2: $n failures, $d with message and body"
}

FAULT=$BUILD/plugins/fault_exp_ulp.so
MINI=$BUILD/backends/minicpu.so

# the schema is live: it rejects a failure without a message and a count that is not a number
printf '<?xml version="1.0"?>\n<testsuites tests="1" failures="1" errors="0" skipped="0" time="0">\n  <testsuite name="s" tests="1" failures="1" errors="0" skipped="0" time="0" timestamp="2026-01-01T00:00:00">\n    <testcase classname="c" name="n" time="0"><failure>body</failure></testcase>\n  </testsuite>\n</testsuites>\n' > "$tmp/nomsg.xml"
xmllint --noout --schema "$XSD" "$tmp/nomsg.xml" > /dev/null 2>&1 && fail "schema accepts a failure without message" || ok
sed 's/failures="1" errors="0" skipped="0" time="0" timestamp/failures="x" errors="0" skipped="0" time="0" timestamp/; s/<failure>/<failure message="m">/' "$tmp/nomsg.xml" > "$tmp/nan.xml"
xmllint --noout --schema "$XSD" "$tmp/nan.xml" > /dev/null 2>&1 && fail "schema accepts a non-numeric count" || ok
# ... and the count check catches a report whose attributes disagree
sed 's/<testsuites tests="1"/<testsuites tests="6246"/' "$tmp/nomsg.xml" > "$tmp/miscount.xml"
counts_ok "$tmp/miscount.xml" > /dev/null && fail "count check accepts tests=6246 for one testcase" || ok

# a passing run; the example backend (most ops unsupported, non-f32 types unclaimed)
"$PLUMB" certify --backend ref --ops add,negate --junit "$tmp/pass.xml" -q > /dev/null 2>&1
check "$tmp/pass.xml" "passing run"
"$PLUMB" certify --backend "$MINI" --junit "$tmp/mini.xml" -q > /dev/null 2>&1
check "$tmp/mini.xml" "example backend"
grep -q '<skipped message="not claimed by the backend' "$tmp/mini.xml" && ok || fail "unsupported ops not skipped"
# failures with reproducers, and a manifest failure
"$PLUMB" certify --backend "$FAULT" --ops exponential,negate --out "$tmp/fault" -q > /dev/null 2>&1
check "$tmp/fault/report.xml" "failing run"
failures_described "$tmp/fault/report.xml" "failing run"
grep -q 'reproducer: ' "$tmp/fault/report.xml" && ok || fail "failure body has no reproducer"
"$PLUMB" certify --backend ref --ops abs --limit 2 --junit "$tmp/limit.xml" -q > /dev/null 2>&1
check "$tmp/limit.xml" "manifest failure"
grep -q 'name="manifest"' "$tmp/limit.xml" && ok || fail "manifest testcase missing"
# crashes, retried: flaky (passes) and persistent (fails)
PLUMB_TEST_FLAKY_MARKER="$tmp/marker" "$PLUMB" certify --backend "$BUILD/plugins/run_crash_flaky.so" --ops exponential \
    --retry 1 --junit "$tmp/flaky.xml" -q > /dev/null 2>&1
check "$tmp/flaky.xml" "flaky run"
grep -q '<system-out>flaky: passed on attempt 2' "$tmp/flaky.xml" && ok || fail "flaky case not noted"
"$PLUMB" certify --backend "$BUILD/plugins/run_crash_one.so" --ops exponential --junit "$tmp/crash.xml" -q > /dev/null 2>&1
check "$tmp/crash.xml" "crash"
failures_described "$tmp/crash.xml" "crash"
# known failures excused by a baseline are skipped, not failures
jq -r '.failures[].id' "$tmp/fault/report.json" > "$tmp/base.txt"
"$PLUMB" certify --backend "$FAULT" --ops exponential,negate --baseline "$tmp/base.txt" --junit "$tmp/base.xml" -q > /dev/null 2>&1
check "$tmp/base.xml" "baseline run"
[ "$(grep -c '<failure ' "$tmp/base.xml")" = 0 ] && ok || fail "baseline failures still <failure>"
grep -q '<skipped message="known failure (baseline)' "$tmp/base.xml" && ok || fail "known failures not reported"
# a merged run
for i in 0 1; do "$PLUMB" certify --backend ref --ops add,negate --shard $i/2 --json "$tmp/s$i.json" -q > /dev/null 2>&1; done
"$PLUMB" certify merge --junit "$tmp/merged.xml" -q "$tmp/s0.json" "$tmp/s1.json" > /dev/null 2>&1
check "$tmp/merged.xml" "merged run"
grep -q '<property name="certified" value="false"/>' "$tmp/merged.xml" && ok || fail "merged partial run certified"

finish
