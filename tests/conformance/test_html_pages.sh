#!/bin/sh
# plumb golden check --html, plumb fuzz --html and plumb run --stats --html
# (cli/html_reports.c): on runs with a planted fault or a recompile leak, one self-contained page each whose rows and
# counts are those of the JSON report of the same run (read with jq), with
# failures first, replay commands, inline SVG and nothing loaded from
# outside; a replayed fuzz finding shows again. Ends with "N passed, N failed".
BUILD=${BUILD:-build}
PLUMB=${PLUMB:-$BUILD/plumb}
. "$(dirname "$0")/../cli/lib.sh"
lib_init html_pages
check() { # $1 = name; the rest is a command that must succeed
    name=$1
    shift
    if "$@"; then ok "$name"; else fail "$name"; fi
}
self_contained() { # $1 = page
    grep -o '<[^>]*>' "$1" | sed 's/="[^"]*"/=""/g' > "$1.tags"
    head -c 15 "$1" | grep -q '^<!DOCTYPE html>' && tail -n 1 "$1" | grep -q '^</html>$' &&
        ! grep -qiE 'https?:|url\(|@import' "$1" &&
        ! grep -qiE '[[:space:]](src|srcset|data|action)=|^<(link|iframe|object|embed|img|base)[[:space:]>]' "$1.tags" &&
        ! grep -oE 'href="[^"]*"' "$1" | grep -qv '^href="#'
}

so="$BUILD/plugins/fault_exp_ulp.so"
if [ ! -f "$so" ]; then
    echo "FAIL $so not built (make all builds the test plugins)"
    echo "0 passed, 1 failed"
    exit 1
fi

# ---- golden check: exponential is 2 ulp off where the bound is 1 ----------------
"$PLUMB" golden check --backend "$so" --ops exponential -q --json "$tmp/g.json" --html "$tmp/g.html" \
    > "$tmp/g.out" 2>&1
check "golden check with the fault fails and writes the page" test $? = 1 -a -s "$tmp/g.html"
check "the golden page is self-contained" self_contained "$tmp/g.html"
n=$(jq '.entries | length' "$tmp/g.json")
check "one row per golden file of the JSON ($n)" test "$(grep -c '<tr class="file' "$tmp/g.html")" = "$n" -a "$n" -gt 0
rows_ok=1
for f in $(jq -r '.entries[].file' "$tmp/g.json"); do
    want=$(jq -r --arg f "$f" '.entries[] | select(.file == $f) | "\(.length) \(.cases) \(.failed)"' "$tmp/g.json")
    got=$(grep "<tr class=\"file[^\"]*\" data-file=\"$f\"" "$tmp/g.html" | grep -o 'class="n[^"]*" data-v="[0-9]*"' |
        head -3 | sed 's/.*data-v="\([0-9]*\)"/\1/' | tr '\n' ' ' | sed 's/ $//')
    [ "$got" = "$want" ] || { echo "  $f: page '$got', JSON '$want'"; rows_ok=0; }
done
check "every golden row has the JSON's length, cases and failed" test "$rows_ok" = 1
bad_file=$(jq -r '[.entries[] | select(.status == "fail")][0].file' "$tmp/g.json")
check "the failing file ($bad_file) is the first row, marked" sh -c \
    "grep -o '<tr class=\"file[^\"]*\" data-file=\"[^\"]*\"' '$tmp/g.html' | head -n 1 |
     grep -q 'file bad\" data-file=\"$bad_file\"'"
check "the failing file has its replay command and histogram" sh -c \
    "grep '<tr class=\"file bad\" data-file=\"$bad_file\"' '$tmp/g.html' |
     grep -q '<code class=\"replay\">plumb golden check --backend .*fault_exp_ulp.so --ops stablehlo.exponential</code>' &&
     grep '<tr class=\"file bad\" data-file=\"$bad_file\"' '$tmp/g.html' | grep -q '<svg class=\"hist\"'"
check "the golden verdict is FAIL" grep -q '<section id="verdict" class="verdict v-fail" data-ok="false">' "$tmp/g.html"
"$PLUMB" golden gen --html "$tmp/x.html" > /dev/null 2>&1
check "golden gen refuses --html (usage error)" test $? = 2

# ---- fuzz: the same fault, found by the agreement oracle -----------------------
"$PLUMB" fuzz --backend "$so" --ops exponential,add --dtypes f32 --count 40 -q --json "$tmp/f.json" \
    --html "$tmp/f.html" > "$tmp/f.out" 2>&1
check "fuzz with the fault finds it and writes the page" test $? = 1 -a -s "$tmp/f.html"
check "the fuzz page is self-contained" self_contained "$tmp/f.html"
n=$(jq '.findings | length' "$tmp/f.json")
check "one item per finding of the JSON ($n)" test "$(grep -c '<li class="finding"' "$tmp/f.html")" = "$n" -a "$n" -gt 0
sum=$(grep -o '<section class="finding-group" data-count="[0-9]*"' "$tmp/f.html" | sed 's/.*="\([0-9]*\)"/\1/' |
    awk '{s += $1} END {print s + 0}')
check "the finding groups count every finding" test "$sum" = "$n"
n_cov=$(jq '.coverage | length' "$tmp/f.json")
check "one coverage row per op of the JSON ($n_cov)" test "$(grep -c '<tr class="op"' "$tmp/f.html")" = "$n_cov"
sig=$(jq -r '.findings[0].signature' "$tmp/f.json")
cmd=$(grep -F "data-signature=\"$sig\"" "$tmp/f.html" | sed -n 's/.*<code class="replay">\([^<]*\)<\/code>.*/\1/p')
check "finding $sig has a replay command" test -n "$cmd"
# the command as printed, its first word the plumb under test
set -- $cmd
shift
"$PLUMB" "$@" -q > "$tmp/replay.out" 2>&1
check "the replay command finds $sig again" grep -qF "FINDING $sig:" "$tmp/replay.out"
check "the fuzz verdict says FINDINGS" grep -q '<p class="word">FINDINGS</p>' "$tmp/f.html"

# ---- run --stats: the baked-learning-rate leak recompiles on every new rate ----
L=scenarios/baked-learning-rate/leak
"$PLUMB" run --random-inputs --stats --json --html "$tmp/r.html" $L/step0*.mlir $L/step01.mlir \
    > /dev/null 2> "$tmp/r.err"
check "run --stats --html writes the page" test $? = 0 -a -s "$tmp/r.html"
check "the run page is self-contained" self_contained "$tmp/r.html"
grep '^{"stats": {"entry": null' "$tmp/r.err" > "$tmp/total.json"
runs=$(jq '.stats.runs' "$tmp/total.json")
compiles=$(jq '.stats.compiles' "$tmp/total.json")
recompiles=$(jq '.stats.recompiles' "$tmp/total.json")
check "one row per run of the stats ($runs)" test "$(grep -c '<tr class="run' "$tmp/r.html")" = "$runs" -a "$runs" -gt 1
check "the runs marked recompiled are the stats' $recompiles recompiles" \
    test "$(grep -c 'data-what="recompiled"' "$tmp/r.html")" = "$recompiles" -a "$recompiles" -gt 0
check "compiled and recompiled runs add up to the $compiles compiles" \
    test $(($(grep -c 'data-what="compiled"' "$tmp/r.html") + recompiles)) = "$compiles"
check "the timelines mark every compile" test "$(grep -o '<circle class="build"' "$tmp/r.html" | wc -l)" = "$compiles"
check "each recompile's explanation is on the page" sh -c \
    "test \$(grep -c '<tr class=\"run bad\" data-what=\"recompiled\"><td class=\"n\">[0-9]*</td><td><code>[^<]*</code></td><td>recompiled</td><td><pre>' '$tmp/r.html') = $recompiles &&
     grep -q 'baked_constant\\|baked constant' '$tmp/r.html'"
check "the total row has the stats' counts" \
    grep -q "<tr class=\"total bad\"><td><strong>total</strong></td><td class=\"n\" data-v=\"[0-9]*\">[0-9]*</td><td class=\"n compiles\" data-v=\"$compiles\">$compiles</td><td class=\"n recompiles\" data-v=\"$recompiles\">" "$tmp/r.html"
"$PLUMB" run --html "$tmp/x.html" $L/step01.mlir > /dev/null 2>&1
check "run --html without --stats is a usage error" test $? = 2

finish
