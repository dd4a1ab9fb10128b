#!/bin/sh
# Tests of the goldens (docs/golden.md): the reference and the runtime pass
# `plumb golden check`; a planted backend 2 ULP off on exp fails it, naming
# the op and the inputs; planted faults of compare NE, clamp and convert
# fail only their ops' files; --ops says the run is partial; the JSON report;
# golden files truncated, corrupted, of another version, stale against the
# manifest or missing are rejected with the file and the reason; the drift
# ratchet passes on the committed runtime baseline, fails when a figure got
# worse, reports improvements, passes after --update, and rejects a
# baseline of another backend or suite. Run by tests/run.sh with PLUMB and
# BUILD set. Ends with "N passed, N failed". JSON is checked with jq.
PLUMB=${PLUMB:-build/plumb}
BUILD=${BUILD:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
MANIFEST=$ROOT/golden/manifest
DATA=$ROOT/golden/data
BASELINE=$ROOT/golden/baseline-runtime.json
FAULT=$BUILD/plugins/fault_exp_ulp.so
. "$(dirname "$0")/../cli/lib.sh"
lib_init golden
# expect_in FILE DESCRIPTION TEXT: FILE ($tmp/out or $tmp/err) contains TEXT.
expect_in() {
    if grep -F -- "$3" "$1" > /dev/null; then ok "$2"; else fail "$2 (no '$3' in $(basename "$1"))"; fi
}
golden() { run "$PLUMB" golden "$@"; }

need_plumb
n_entries=$(grep -c '^[a-z]*\.' "$MANIFEST")

# ---- check: ref, runtime, a planted fault ----------------------------------------
for b in ref runtime; do
    golden check --backend $b --manifest "$MANIFEST" --dir "$DATA" --json "$tmp/$b.json" -q
    expect_rc "golden check --backend $b passes" 0
    expect_in "$tmp/out" "golden check --backend $b checked every file" "$n_entries files"
    expect_in "$tmp/out" "golden check --backend $b says PASS" ": PASS"
    if jq -e --argjson n "$n_entries" '.ok == true and .partial == false and (.entries | length) == $n and
            all(.entries[]; .status == "pass" and .failed == 0 and .cases > 0 and
                (.histogram | add) == .cases)' "$tmp/$b.json" > /dev/null 2>&1; then
        ok "golden check --backend $b --json: every entry passes, histograms count every case"
    else
        fail "golden check --backend $b --json: every entry passes, histograms count every case"
    fi
done
# The reference is correctly rounded everywhere: bit for bit on every stored case.
if jq -e 'all(.entries[]; .worst == 0)' "$tmp/ref.json" > /dev/null 2>&1; then
    ok "the reference matches every stored value bit for bit (budget used 0)"
else
    fail "the reference matches every stored value bit for bit (budget used 0)"
fi

if [ -f "$FAULT" ]; then
    golden check --backend "$FAULT" --manifest "$MANIFEST" --dir "$DATA" -q
    expect_rc "a backend 2 ulp off on f32 exp fails golden check" 1
    expect_in "$tmp/out" "the failure names the file" "FAIL  exponential-f32.gold"
    expect_in "$tmp/out" "the failure names the op and the inputs" "stablehlo.exponential f32 record"
    expect_in "$tmp/out" "the failure gives the input bits" ": x=0x"
    expect_in "$tmp/out" "the failure gives the error and the bound" "error 2 ulp, bound 1 ulp"
    if [ "$(grep -c '^FAIL ' "$tmp/out")" = 1 ]; then ok "only the planted op fails"; else fail "only the planted op fails"; fi
    golden check --backend "$FAULT" --manifest "$MANIFEST" --dir "$DATA" --ops stablehlo.exponential --json "$tmp/p.json" -q
    expect_rc "a partial run (--ops) on the planted op still fails" 1
    expect_in "$tmp/out" "a partial run says so" "(partial: --ops)"
    if jq -e '.partial == true and .ok == false and (.entries | length) == 4 and
              ([.entries[] | select(.status == "fail")] | length) == 1' "$tmp/p.json" > /dev/null 2>&1; then
        ok "the partial run's JSON: partial, 4 files, one failing"
    else
        fail "the partial run's JSON: partial, 4 files, one failing"
    fi
else
    fail "the planted backend $FAULT is built (make all)"
fi
TIE=$BUILD/plugins/fault_add_overflow_tie.so
if [ -f "$TIE" ]; then
    golden check --backend "$TIE" --manifest "$MANIFEST" --dir "$DATA" -q
    expect_rc "a backend rounding the f32 overflow tie max + ulp(max)/2 down fails golden check" 1
    expect_in "$tmp/out" "the overflow tie is named with its inputs" "x=0x7f7fffff (3.40282347e+38), y=0x73000000"
else
    fail "the planted backend $TIE is built (make all)"
fi
# The goldens of ops with attributes catch the conformance suite's planted
# faults of those ops, and only in the files of the planted op.
# plugin ; the files that must fail (grep -E) ; a fragment of the failure line
for spec in "fault_ne_nan;compare-(f16|bf16|f32|f64)-NE\.gold;stablehlo.compare NE f32 record" \
            "fault_clamp_nan;clamp-f32\.gold;stablehlo.clamp f32 record" \
            "fault_double_round;convert-f64-f16\.gold;stablehlo.convert f64 -> f16 record"; do
    p=${spec%%;*}
    rest=${spec#*;}
    files=${rest%%;*}
    frag=${rest#*;}
    if [ ! -f "$BUILD/plugins/$p.so" ]; then fail "the planted backend $p is built (make all)"; continue; fi
    golden check --backend "$BUILD/plugins/$p.so" --manifest "$MANIFEST" --dir "$DATA" -q
    expect_rc "$p fails golden check" 1
    expect_in "$tmp/out" "$p: the failure names the op, its attribute and the record" "$frag"
    if [ "$(grep -c '^FAIL ' "$tmp/out")" -gt 0 ] &&
       [ "$(grep '^FAIL ' "$tmp/out" | grep -cvE "^FAIL  ($files):")" = 0 ]; then
        ok "$p: only the files of the planted op fail"
    else
        fail "$p: only the files of the planted op fail"
    fi
done
golden check --backend ref --manifest "$MANIFEST" --dir "$DATA" --ops stablehlo.tanh,stablehlo.reduce
expect_rc "--ops with a reduction passes on the reference" 0
n_sel=$(grep -cE '^stablehlo\.(tanh|reduce) ' "$MANIFEST")
expect_in "$tmp/out" "--ops checks only the ops named" "$n_sel files"
golden check --backend ref --ops stablehlo.constant --manifest "$MANIFEST" --dir "$DATA"
expect_rc "--ops naming an op without goldens is a usage error" 2

# ---- bad input: each rejected with the file and the reason --------------------------------
bad_dir() { rm -rf "$tmp/d"; cp -r "$DATA" "$tmp/d"; }
F=exponential-f32.gold
bad_dir
head -c 200 "$DATA/$F" > "$tmp/d/$F"
golden check --backend ref --manifest "$MANIFEST" --dir "$tmp/d"
expect_rc "a truncated golden file is rejected" 2
expect_in "$tmp/err" "the truncated file is named with the reason" "$F: truncated"
bad_dir
head -c 50 "$DATA/$F" > "$tmp/d/$F"
golden check --backend ref --manifest "$MANIFEST" --dir "$tmp/d"
expect_in "$tmp/err" "a file cut inside its header is truncated" "$F: truncated"
bad_dir
# flip one byte of the payload (offset 300)
{ head -c 300 "$DATA/$F"; head -c 1 "$DATA/$F" | tr 'P' 'Q'; tail -c +302 "$DATA/$F"; } > "$tmp/d/$F"
golden check --backend ref --manifest "$MANIFEST" --dir "$tmp/d"
expect_rc "a corrupted golden file is rejected" 2
expect_in "$tmp/err" "the corrupted file is named with the reason" "$F: corrupted: payload checksum mismatch"
bad_dir
{ head -c 20 "$DATA/$F"; printf 'X'; tail -c +22 "$DATA/$F"; } > "$tmp/d/$F"
golden check --backend ref --manifest "$MANIFEST" --dir "$tmp/d"
expect_in "$tmp/err" "a corrupted header is named with the reason" "$F: corrupted: header checksum mismatch"
bad_dir
{ head -c 8 "$DATA/$F"; printf '\002'; tail -c +10 "$DATA/$F"; } > "$tmp/d/$F"
golden check --backend ref --manifest "$MANIFEST" --dir "$tmp/d"
expect_rc "a golden file of another format version is rejected" 2
expect_in "$tmp/err" "the version is named" "$F: format version 2, this plumb reads version 1"
bad_dir
rm "$tmp/d/$F"
golden check --backend ref --manifest "$MANIFEST" --dir "$tmp/d"
expect_rc "a missing golden file is rejected" 2
expect_in "$tmp/err" "the missing file is named" "$F"
# stale: the manifest's seed changed, the files were not regenerated
sed 's/^seed .*/seed 1/' "$MANIFEST" > "$tmp/manifest"
golden check --backend ref --manifest "$tmp/manifest" --dir "$DATA"
expect_rc "golden files stale against the manifest are rejected" 2
expect_in "$tmp/err" "the stale file is named with the reason" "abs-f16.gold: stale"
# a file holding another entry's data under this entry's name
bad_dir
cp "$DATA/tanh-f32.gold" "$tmp/d/$F"
golden check --backend ref --manifest "$MANIFEST" --dir "$tmp/d"
expect_in "$tmp/err" "a file of another entry is rejected" "$F: holds stablehlo.tanh f32"
printf 'plumb-golden-manifest 1\nseed 3\nstablehlo.exponential i32\n' > "$tmp/manifest"
golden check --backend ref --manifest "$tmp/manifest" --dir "$DATA"
expect_in "$tmp/err" "a bad manifest line is named" "manifest:3: element type 'i32'"

# ---- the reader in docs/golden.md: C and libc only --------------------------------------------
sed -n '/^```c$/,/^```$/p' "$ROOT/docs/golden.md" | sed '1d;$d' > "$tmp/reader.c"
if ${CC:-cc} -std=c99 -Wall -Werror -o "$tmp/reader" "$tmp/reader.c" 2> "$tmp/err"; then
    ok "the reader in docs/golden.md compiles"
    run "$tmp/reader" "$DATA/$F"
    expect_rc "the reader reads a golden file" 0
    size=$(wc -c < "$DATA/$F")
    count=$(( (size - 96) / 8 ))
    expect_in "$tmp/out" "the reader's header line" "stablehlo.exponential f32: $count records of 1 inputs and 1 outputs"
    if [ "$(grep -c ' -> ' "$tmp/out")" = "$count" ]; then ok "the reader prints every record"; else fail "the reader prints every record"; fi
    bad_dir
    { head -c 300 "$DATA/$F"; head -c 1 "$DATA/$F" | tr 'P' 'Q'; tail -c +302 "$DATA/$F"; } > "$tmp/d/$F"
    run "$tmp/reader" "$tmp/d/$F"
    expect_in "$tmp/out" "the reader rejects a corrupted file" "bad checksum"
else
    fail "the reader in docs/golden.md compiles"
fi

# ---- gen: byte for byte ------------------------------------------------------------------------
golden gen -q --manifest "$MANIFEST" --dir "$tmp/gen"
expect_rc "golden gen regenerates the files" 0
if diff -r "$tmp/gen" "$DATA" > /dev/null 2>&1; then ok "the goldens regenerate byte for byte"; else fail "the goldens regenerate byte for byte"; fi

# ---- ratchet ------------------------------------------------------------------------------------
golden ratchet --backend runtime --baseline "$BASELINE" --manifest "$MANIFEST" --dir "$DATA"
expect_rc "the runtime passes the ratchet on its committed baseline" 0
expect_in "$tmp/out" "the ratchet says nothing got worse" "0 figures worse"
# plant: the baseline promises a better worst case for one file than the runtime has
f=$(jq -r '[.entries[] | select(.worst > 0)][0].file' "$BASELINE")
jq --arg f "$f" '(.entries[] | select(.file == $f) | .worst) |= . / 2' "$BASELINE" > "$tmp/bl.json"
golden ratchet --backend runtime --baseline "$tmp/bl.json" --manifest "$MANIFEST" --dir "$DATA"
expect_rc "a figure worse than the baseline fails the ratchet" 1
expect_in "$tmp/out" "the worse figure is named" "WORSE $f: worst budget used"
golden ratchet --backend runtime --baseline "$tmp/bl.json" --update --manifest "$MANIFEST" --dir "$DATA"
expect_rc "--update writes the baseline" 0
golden ratchet --backend runtime --baseline "$tmp/bl.json" --manifest "$MANIFEST" --dir "$DATA"
expect_rc "the ratchet passes after --update" 0
if cmp -s "$tmp/bl.json" "$BASELINE"; then ok "--update writes what the committed baseline holds"; else fail "--update writes what the committed baseline holds"; fi
jq --arg f "$f" '(.entries[] | select(.file == $f) | .worst) |= . * 2' "$BASELINE" > "$tmp/bl.json"
golden ratchet --backend runtime --baseline "$tmp/bl.json" --manifest "$MANIFEST" --dir "$DATA"
expect_rc "an improvement passes the ratchet" 0
expect_in "$tmp/out" "the improvement is reported" "better $f: worst budget used"
golden ratchet --backend ref --baseline "$BASELINE" --manifest "$MANIFEST" --dir "$DATA"
expect_rc "a baseline of another backend is rejected" 2
expect_in "$tmp/err" "the rejection names both backends" "a baseline for backend 'runtime', not 'ref'"
jq '.suite = "golden-v1-00000000"' "$BASELINE" > "$tmp/bl.json"
golden ratchet --backend runtime --baseline "$tmp/bl.json" --manifest "$MANIFEST" --dir "$DATA"
expect_rc "a baseline of another suite is rejected" 2
expect_in "$tmp/err" "the rejection names the suites" "a baseline for suite 'golden-v1-00000000'"
jq 'del(.entries[0])' "$BASELINE" > "$tmp/bl.json"
golden ratchet --backend runtime --baseline "$tmp/bl.json" --manifest "$MANIFEST" --dir "$DATA"
expect_rc "a file missing from the baseline fails the ratchet" 1
printf '{"backend": "runtime"}' > "$tmp/bl.json"
golden ratchet --backend runtime --baseline "$tmp/bl.json" --manifest "$MANIFEST" --dir "$DATA"
expect_rc "a file that is not a baseline is rejected" 2
expect_in "$tmp/err" "the rejection names the file" "bl.json: not a golden baseline"

finish
