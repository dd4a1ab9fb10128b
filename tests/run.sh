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
#
# Suites run PLUMB_TEST_JOBS at a time (default: the online CPUs, at most 8;
# 1 runs them one after another). PLUMB_TEST_ONLY, an extended regular
# expression (grep -E), runs only the suites whose path it matches (e.g.
# 'test_runner$|test_faults' after a change to those); a pattern that
# matches none fails. Every suite keeps its files in its own
# temporary folder and none is timed, so they may share the machine; a
# suite's result lines print when it ends, failures with their log. The
# totals are the same whatever the order.
BUILD=${BUILD:-build}
SHARED=${SHARED:-../shared}
export BUILD SHARED PLUMB="$BUILD/plumb"
if [ -n "${STABLEHLO_TESTDATA:-}" ]; then export STABLEHLO_TESTDATA; fi
# Under the sanitizers (make asan sets SANITIZED=yes) the suites whose point
# is many cases of one check run their quick counts (PLUMB_TEST_QUICK, read
# by tests/ref/test_crmath.c: a tenth of its random cases and sweep
# points); make check, with the full counts, runs on every CI run as well.
# Suites read SANITIZED themselves for the checks make check alone makes
# (tests/conformance/test_certify_scope.sh, tests/install/test_install.sh),
# and SANITIZER (gcc or clang, set by make asan) for the runs made under one
# of the two sanitizers only (tests/conformance/test_coverage.sh,
# tests/conformance/test_faults.sh; docs/ci.md says which and why).
if [ "${SANITIZED:-no}" = yes ]; then
    PLUMB_TEST_QUICK=1
    SANITIZER=${SANITIZER:-}
    export SANITIZED SANITIZER PLUMB_TEST_QUICK
fi
count() { # $1 = suite name, $2 = exit status, $3 = its log; prints the result, writes "p f s" to $4
    log=$3
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
    echo "$p $f $s" > "$4"
    if [ "$f" != 0 ]; then
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

# One suite (run by xargs below): its output, counts and result go to files
# named after it in the folder $2; the result is printed in one write.
if [ "${1:-}" = --one ]; then
    dir=$2
    t=$3
    id=$(echo "$t" | tr '/' '_')
    t0=$(date +%s)
    case "$t" in
        *.sh) sh "$t" > "$dir/$id.log" 2>&1 ;;
        *) "$t" > "$dir/$id.log" 2>&1 ;;
    esac
    rc=$?
    echo "$(($(date +%s) - t0)) $t" > "$dir/$id.t"
    count "$t" $rc "$dir/$id.log" "$dir/$id.n" > "$dir/$id.out"
    cat "$dir/$id.out"
    exit 0
fi

jobs=${PLUMB_TEST_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)}
case "$jobs" in
    ''|*[!0-9]*|0) echo "tests/run.sh: PLUMB_TEST_JOBS must be a positive integer (got '$jobs')" >&2; exit 2 ;;
esac
[ "$jobs" -le 8 ] || jobs=8
dir=$(mktemp -d "${TMPDIR:-/tmp}/plumb-check.XXXXXX") || exit 2
trap 'rm -rf "$dir"' EXIT
{
    find "$BUILD/tests" -type f -name 'test_*' -perm -u+x 2>/dev/null | sort
    ls tests/*/test_*.sh 2>/dev/null | sort
} > "$dir/all"
if [ -n "${PLUMB_TEST_ONLY:-}" ]; then
    grep -E -- "$PLUMB_TEST_ONLY" "$dir/all" > "$dir/list" ||
        { echo "tests/run.sh: PLUMB_TEST_ONLY '$PLUMB_TEST_ONLY' matches no suite" >&2; exit 2; }
else
    cp "$dir/all" "$dir/list"
fi
# PLUMB_TEST_PART=K/N runs part K (1-based) of N disjoint parts whose union
# is every suite, e.g. gcc's sanitizers on part 1/2 and clang's on 2/2 so
# that each suite runs under one of them (docs/ci.md; CI runs 1/1 under
# clang's: every suite, each whole).
# A suite's part depends only on its path below $BUILD: the typical slow
# suites (the fixed list further down, not this build folder's own times)
# are spread by weight, every other suite goes by a hash of its path, so two
# build folders split alike even when one holds a suite the other lacks.
# A suite that runs once must run whole: SANITIZER is cleared
# (test_coverage.sh and test_faults.sh otherwise leave half of their runs
# to the other sanitizer).
part=${PLUMB_TEST_PART:-}
if [ -n "$part" ]; then
    bad_part() { echo "tests/run.sh: PLUMB_TEST_PART must be K/N with 1 <= K <= N (got '$part')" >&2; exit 2; }
    case "$part" in
        */*/*|/*|*/|*[!0-9/]*) bad_part ;;
        */*) ;;
        *) bad_part ;;
    esac
    pk=${part%/*}
    pn=${part#*/}
    [ "$pk" -ge 1 ] && [ "$pk" -le "$pn" ] || bad_part
    SANITIZER=
    export SANITIZER
fi
# Longest first, so that no long suite starts near the end and runs alone
# while the other lanes idle (in name order the ~110 s certify_scope
# started after some 200 short suites and ended the run alone). The order
# comes from the seconds each suite took in this build folder's last run
# ($BUILD/tests/suite-times, written below); a suite without a time (a
# fresh build, as in CI) gets its typical seconds from the list below, else
# 1: the first column in make check (2-core machine, 2026-11-28, lightly
# loaded; test_certify_scope.sh's scaled by its CPU time since it runs the
# whole quick suite once instead of three times, docs/ci.md), the second
# under the sanitizers when the suite runs whole
# (estimated from the sanitized runs of 2026-11-27; the certify runs,
# test_faults.sh above all, run their whole share there). The order
# changes when suites start, never what runs or the totals.
times=$BUILD/tests/suite-times
col=1
[ "${SANITIZED:-no}" = yes ] && col=2
awk -v c="$col" -v b="$BUILD/" '{ p = $3; sub(/^BUILD\//, b, p); print $c, p }' > "$dir/fixed" <<'LIST'
100 110 tests/conformance/test_certify_scope.sh
145 150 tests/conformance/test_faults.sh
95 120 tests/conformance/test_coverage.sh
81 10 BUILD/tests/ref/test_crmath
66 56 BUILD/tests/runtime/test_reduce_cols
51 28 BUILD/tests/conformance/test_gen
40 5 BUILD/tests/runtime/test_math_f64
36 5 BUILD/tests/runtime/test_math_f64_atan2
33 15 BUILD/tests/runtime/test_ew_convert
16 28 tests/fuzz/test_fuzz.sh
14 24 tests/runtime/test_forced_isa.sh
5 40 tests/ir/test_fmt_roundtrip.sh
7 30 tests/cli/test_testdata.sh
6 20 tests/golden/test_golden.sh
LIST
{ [ -f "$times" ] && cat "$times"; cat "$dir/fixed"; } > "$dir/known"
if [ -n "$part" ]; then
    # The suites of the fixed list go, heaviest first, each to the lighter
    # part so far (by the list alone, whether or not a folder has them); every
    # other suite to the part its path's hash names. A suite's part thus
    # never depends on which other suites a build folder holds.
    awk -v b="$BUILD/" '{ p = $2; if (index(p, b) == 1) p = substr(p, length(b) + 1); print $1, p }' \
        "$dir/fixed" | sort -k1,1nr -k2,2 > "$dir/fixedrel"
    awk -v k="$pk" -v n="$pn" -v b="$BUILD/" '
        BEGIN { for (i = 1; i < 128; i++) ord[sprintf("%c", i)] = i }
        NR == FNR { best = 1; for (i = 2; i <= n; i++) if (load[i] < load[best]) best = i
                    load[best] += $1; fixed[$2] = best; next }
        { name = $0; if (index(name, b) == 1) name = substr(name, length(b) + 1)
          if (name in fixed) q = fixed[name]
          else { h = 0; for (i = 1; i <= length(name); i++) h = (h * 31 + ord[substr(name, i, 1)]) % 1000003
                 q = h % n + 1 }
          if (q == k) print $0 }' "$dir/fixedrel" "$dir/list" | sort > "$dir/part"
    [ -s "$dir/part" ] || { echo "tests/run.sh: part $part of these suites is empty" >&2; exit 2; }
    cp "$dir/part" "$dir/list"
    echo "part $part: $(wc -l < "$dir/list") of $(wc -l < "$dir/all") suites"
fi
awk 'NR == FNR { if (!($2 in t)) t[$2] = $1; next } { print (($0 in t) ? t[$0] : 1), FNR, $0 }' \
    "$dir/known" "$dir/list" | sort -k1,1nr -k2,2n | cut -d' ' -f3- > "$dir/order"
xargs -P "$jobs" -n 1 sh tests/run.sh --one "$dir" < "$dir/order"

passed=0
failed=0
skipped=0
failed_suites=""
while read -r t; do
    id=$(echo "$t" | tr '/' '_')
    if [ -f "$dir/$id.n" ]; then
        read -r p f s < "$dir/$id.n"
    else
        echo "FAIL $t (did not report)"
        p=0 f=1 s=0
    fi
    passed=$((passed + p))
    failed=$((failed + f))
    skipped=$((skipped + s))
    [ "$f" = 0 ] || failed_suites="$failed_suites $t"
done < "$dir/list"
[ -n "$failed_suites" ] && echo "failed suites:$failed_suites"
# Where the wall time went (seconds, while sharing the machine with the
# other lanes): the list to start from when the whole run grows too long.
# This run's seconds order the next run in this build folder (a
# PLUMB_TEST_ONLY or PLUMB_TEST_PART run keeps the others' seconds).
cat "$dir"/*.t 2>/dev/null | sort -rn > "$dir/times" && mkdir -p "$BUILD/tests" &&
    if [ -n "${PLUMB_TEST_ONLY:-}$part" ] && [ -f "$times" ]; then
        awk 'NR == FNR { new[$2] = 1; print; next } !($2 in new)' "$dir/times" "$times" | sort -rn > "$dir/merged" &&
            cp "$dir/merged" "$times" 2>/dev/null
    else
        cp "$dir/times" "$times" 2>/dev/null
    fi
echo "slowest suites (s): $(cat "$dir"/*.t 2>/dev/null | sort -rn | head -n 10 | awk '{printf "%s%s %s", (NR > 1 ? ", " : ""), $2, $1}')"
echo "check: $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
