#!/bin/sh
# Runs every test: the cmocka binaries under $BUILD/tests and the shell tests
# tests/*/test_*.sh (which end with a line "N passed, N failed"). Prints each
# suite's result and a last line "check: N passed, N failed".
BUILD=${BUILD:-build}
SHARED=${SHARED:-../shared}
export BUILD SHARED PLUMB="$BUILD/plumb"
passed=0
failed=0
failed_suites=""
log=$(mktemp)
trap 'rm -f "$log"' EXIT

count() { # $1 = suite name, $2 = exit status; reads $log
    p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
    f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
    if [ -z "$p$f" ]; then
        p=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed.*/\1/p' "$log" | tail -n 1)
        f=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed.*/\2/p' "$log" | tail -n 1)
    fi
    p=${p:-0}
    f=${f:-0}
    if [ "$2" != 0 ] && [ "$f" = 0 ]; then
        f=1   # crashed or failed without saying how many
    fi
    passed=$((passed + p))
    failed=$((failed + f))
    if [ "$f" != 0 ]; then
        failed_suites="$failed_suites $1"
        cat "$log"
        echo "FAIL $1 ($p passed, $f failed)"
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
echo "check: $passed passed, $failed failed"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
