#!/bin/sh
# AFL++ smoke run (make fuzz-afl-smoke): afl-fuzz on every target built by
# make fuzz-targets-afl in OUT ($1, default build/fuzz-afl), for
# AFL_SMOKE_SECONDS each (default 10), starting from its seed corpus
# (fuzz/corpus/<target>/) with its dictionary. A target passes when
# afl-fuzz ran it (execs_done > 0) and found no crash; a crash's input is
# left in OUT/afl/<target>/default/crashes/ for replay (the libFuzzer or
# replay binary takes it as an argument). Without afl++: one line, exit 0.
# Ends with "N passed, N failed".
OUT=${1:-build/fuzz-afl}
SECS=${AFL_SMOKE_SECONDS:-10}
if ! command -v afl-fuzz > /dev/null 2>&1; then
    echo "afl smoke: skipped: afl++ is not installed (sh ci/deps.sh --afl)"
    exit 0
fi
pass=0
fail=0
n=0
for src in fuzz/targets/*.c; do
    t=$(basename "$src" .c)
    case "$t" in target_util|replay_main) continue ;; esac
    n=$((n + 1))
    if [ ! -x "$OUT/$t" ]; then
        echo "FAIL $t: $OUT/$t not built (make fuzz-targets-afl)"
        fail=$((fail + 1))
        continue
    fi
    work="$OUT/afl/$t"
    rm -rf "$work"
    mkdir -p "$work"
    dict=""
    [ -f "$OUT/$t.dict" ] && dict="-x $OUT/$t.dict"
    # no UI, no CPU-governor or core-pattern checks (a shared CI machine),
    # no CPU binding (other jobs run on the same cores), and a coverage map
    # as large as the targets ask for (AFL++'s driver reports 2 MiB; without
    # it afl-fuzz refuses to start)
    # shellcheck disable=SC2086
    AFL_NO_UI=1 AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_AFFINITY=1 \
        AFL_MAP_SIZE=${AFL_MAP_SIZE:-2097152} timeout $((SECS + 60)) \
        afl-fuzz -i "fuzz/corpus/$t" -o "$work" -V "$SECS" $dict -- "$OUT/$t" > "$work.log" 2>&1
    stats="$work/default/fuzzer_stats"
    execs=$(sed -n 's/^execs_done *: *//p' "$stats" 2>/dev/null)
    paths=$(sed -n 's/^corpus_count *: *//p' "$stats" 2>/dev/null)
    crashes=$(ls "$work/default/crashes" 2>/dev/null | grep -c '^id:')
    if [ -n "$execs" ] && [ "$execs" -gt 0 ] && [ "$crashes" = 0 ]; then
        echo "ok   $t: $execs execs, $paths inputs in the queue, no crash (${SECS} s)"
        pass=$((pass + 1))
    else
        echo "FAIL $t: execs ${execs:-none}, crashes $crashes (log: $work.log)"
        tail -5 "$work.log"
        fail=$((fail + 1))
    fi
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
