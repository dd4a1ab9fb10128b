#!/bin/sh
# plumb certify --type-coverage (docs/certify.md "Type coverage"): every op
# x element type pair of the types issue 20 added (FP8/FP6/FP4/E8M0,
# i2/i4/ui2/ui4, complex) that the verifier accepts has certification
# cases in the full suite, except the pairs listed below, each with its
# reason; an exception that has cases now is stale and fails too, so the
# list only shrinks. Also checks the listing itself against hand-counted
# cells and its usage errors. Needs jq (ci/deps.sh installs it).
# Ends with "N passed, N failed".
BUILD=${BUILD:-build}
PLUMB=${PLUMB:-$BUILD/plumb}
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v jq > /dev/null || { echo "test_type_coverage: jq not found (run ci/deps.sh)"; echo "0 passed, 1 failed"; exit 1; }

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $1"; }
jq_ok() { jq -e "$2" "$1" > /dev/null 2>&1 && ok || bad "$3: jq '$2'"; }

LOWP="f8E4M3FN f8E5M2 f8E4M3FNUZ f8E5M2FNUZ f8E4M3B11FNUZ f8E3M4 f8E4M3 f8E8M0FNU f6E2M3FN f6E3M2FN f4E2M1FN i2 i4 ui2 ui4"
CPLX="complex<f32> complex<f64>"

# The exceptions: "op type reason", one pair a line.
: > "$tmp/exc"
exc() { echo "$1 $2 $3" >> "$tmp/exc"; }
# (none left: f8E8M0FNU batch norm and linear algebra have cases since
# their results are judged by enclosing the wide value, conformance/e8m0_judge.h)

# 1. The listing: text and JSON, nothing generated the verifier would refuse.
"$PLUMB" certify --type-coverage --new-types --json "$tmp/tc.json" > "$tmp/tc.txt" 2> "$tmp/err"
rc=$?
[ $rc = 0 ] && ok || { bad "--type-coverage --new-types: exit $rc"; cat "$tmp/err"; }
tail -n 1 "$tmp/tc.txt" | grep -q '^type coverage (new types): [0-9]* op x type pairs accepted, [0-9]* with cases, [0-9]* holes' && ok ||
    bad "summary line: $(tail -n 1 "$tmp/tc.txt")"
jq_ok "$tmp/tc.json" '.not_accepted == 0' "no case of a type the verifier refuses"
jq_ok "$tmp/tc.json" '.pairs == .covered + .holes + .no_cases_of_own' "the pairs add up"
jq_ok "$tmp/tc.json" '[.cells[] | select(.new_type | not)] | length == 0' "--new-types lists only the new types"
# the text and the JSON agree cell by cell
jq -r '.cells[] | "\(.op) \(.type) \(.quick) \(.full) \(.status)"' "$tmp/tc.json" | sort > "$tmp/j"
sed '1d;$d' "$tmp/tc.txt" | awk '{print $1, $2, $3, $4, $5}' | sort > "$tmp/t"
cmp -s "$tmp/j" "$tmp/t" && ok || bad "text and JSON cells differ"

# 2. Every hole is an exception, every exception still a hole.
jq -r '.cells[] | select(.status == "hole") | "\(.op) \(.type)"' "$tmp/tc.json" | sort > "$tmp/holes"
cut -d' ' -f1,2 "$tmp/exc" | sort > "$tmp/excpairs"
comm -23 "$tmp/holes" "$tmp/excpairs" > "$tmp/unexcused"
if [ -s "$tmp/unexcused" ]; then
    bad "op x new type pairs the verifier accepts with no certification case:"
    sed 's/^/  /' "$tmp/unexcused"
else ok; fi
comm -13 "$tmp/holes" "$tmp/excpairs" > "$tmp/stale"
if [ -s "$tmp/stale" ]; then
    bad "exceptions that have cases now (remove them from this test):"
    sed 's/^/  /' "$tmp/stale"
else ok; fi

# 3. Cells counted by hand from the generators (docs/conformance.md):
# the small types' elementwise family, one case per type; reduce_window,
# one case per shape class (pool2 pool3 dilated r1 r3) in both suites; the
# complex data movement, one case per complex type; slice on i4 from the
# plan's main loop (5 shapes x 2 value classes, x 3 repetitions in full).
cell() { jq -e --arg op "$1" --arg t "$2" ".cells[] | select(.op == \$op and .type == \$t) | .quick == $3 and .full == $4" "$tmp/tc.json" > /dev/null && ok || bad "cell $1 $2: want quick $3 full $4, got $(jq -c --arg op "$1" --arg t "$2" '.cells[] | select(.op == $op and .type == $t)' "$tmp/tc.json")"; }
cell stablehlo.add f8E4M3FN 1 1
cell stablehlo.reduce_window f4E2M1FN 5 5
cell stablehlo.select_and_scatter ui2 4 4
cell stablehlo.dynamic_slice "complex<f64>" 1 1
cell stablehlo.slice i4 6 30

# 4. --ops narrows the listing; usage errors.
"$PLUMB" certify --type-coverage --ops reduce_window,while > "$tmp/o.txt" 2>&1 && ok || bad "--type-coverage --ops: exit $?"
[ "$(sed '1d;$d' "$tmp/o.txt" | awk '{print $1}' | sort -u | tr '\n' ' ')" = "stablehlo.reduce_window stablehlo.while " ] && ok ||
    bad "--ops lists other ops: $(sed '1d;$d' "$tmp/o.txt" | awk '{print $1}' | sort -u | tr '\n' ' ')"
"$PLUMB" certify --type-coverage --ops no_such_op > /dev/null 2> "$tmp/e"; rc=$?
[ $rc = 2 ] && grep -q "unknown op 'no_such_op'" "$tmp/e" && ok || bad "unknown op: exit $rc, $(cat "$tmp/e")"
"$PLUMB" certify --new-types > /dev/null 2> "$tmp/e"; rc=$?
[ $rc = 2 ] && grep -q -- "--new-types is an option of --type-coverage" "$tmp/e" && ok || bad "--new-types alone: exit $rc"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
