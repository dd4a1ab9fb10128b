#!/bin/sh
# Runs every test: the cmocka binaries under $BUILD/tests and the shell tests
# tests/*/test_*.sh (which end with a line "N passed, N failed" or
# "N passed, N failed, N skipped"). Prints each suite's result and a last
# line "check: N passed, N failed, N skipped".
#
# A test skips what it cannot run here (cmocka's skip(), or a shell test's
# skipped count) and says why on a line starting "skipped:"; that line is
# repeated in the suite's result. The StableHLO test files are read from
# STABLEHLO_TESTDATA when set (then a missing folder fails), else from
# $SHARED/stablehlo-testdata (skipped when missing).
BUILD=${BUILD:-build}
SHARED=${SHARED:-../shared}
export BUILD SHARED PLUMB="$BUILD/plumb"
if [ -n "${STABLEHLO_TESTDATA:-}" ]; then export STABLEHLO_TESTDATA; fi
passed=0
failed=0
skipped=0
failed_suites=""
log=$(mktemp)
trap 'rm -f "$log"' EXIT

count() { # $1 = suite name, $2 = exit status; reads $log
    p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
    f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
    s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
    if [ -z "$p$f" ]; then
        p=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed.*/\1/p' "$log" | tail -n 1)
        f=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed.*/\2/p' "$log" | tail -n 1)
        s=$(sed -n 's/^[0-9]* passed, [0-9]* failed, \([0-9]*\) skipped.*/\1/p' "$log" | tail -n 1)
    fi
    p=${p:-0}
    f=${f:-0}
    s=${s:-0}
    if [ "$2" != 0 ] && [ "$f" = 0 ]; then
        f=1   # crashed or failed without saying how many
    fi
    passed=$((passed + p))
    failed=$((failed + f))
    skipped=$((skipped + s))
    if [ "$f" != 0 ]; then
        failed_suites="$failed_suites $1"
        cat "$log"
        echo "FAIL $1 ($p passed, $f failed, $s skipped)"
    elif [ "$s" != 0 ]; then
        why=$(sed -n 's/^.*\(skipped: .*\)$/\1/p' "$log" | head -n 1)
        echo "ok   $1 ($p passed, $s skipped)"
        [ -z "$why" ] || echo "     $why"
    else
        echo "ok   $1 ($p passed)"
    fi
}

for t in $(find "$BUILD/tests" -type f -name 'test_*' -perm -u+x 2>/dev/null | sort); do
    "$t" > "$log" 2>&1
    count "$t" $?
done
for t in $(ls tests/*/test_*.sh 2>/dev/null | sort); do
    sh "$t" > "$log" 2>&1
    count "$t" $?
done
[ -n "$failed_suites" ] && echo "failed suites:$failed_suites"
echo "check: $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
