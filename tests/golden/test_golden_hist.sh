#!/bin/sh
# Budget-used histograms (conf.h's bins: 0, (0,1/16], (1/16,1/8], (1/8,1/4],
# (1/4,1/2], (1/2,1], over 1) on a planted backend with a known error:
# fault_log_1ulp is exactly 1 ULP off on f32 log results in the normal range
# below the top binade and exact elsewhere. log's f32 bound is 1 ULP, so
# every such record uses its whole budget (1: the (1/2, 1] bin) and every
# other record uses none. The expected counts are derived here from the
# golden file's stored results with od (no plumb code), then compared with
# `plumb golden check --json` and with `plumb certify`'s JSON per op (jq).
# Run by tests/run.sh with PLUMB and BUILD set. Ends with "N passed, N failed".
PLUMB=${PLUMB:-build/plumb}
BUILD=${BUILD:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
MANIFEST=$ROOT/golden/manifest
DATA=$ROOT/golden/data
FAULT=$BUILD/plugins/fault_log_1ulp.so
. "$(dirname "$0")/../cli/lib.sh"
lib_init golden-hist
check_jq() {   # check_jq DESCRIPTION FILE FILTER [jq args...]
    d=$1 f=$2 q=$3
    shift 3
    if jq -e "$@" "$q" "$f" > /dev/null 2> "$tmp/err"; then ok "$d"; else fail "$d"; fi
}

if [ ! -x "$PLUMB" ] || [ ! -f "$FAULT" ]; then
    fail "the plumb binary and $FAULT are built (make all)"
    finish
fi

# ---- hand-derived counts from log-f32.gold ------------------------------------------
# Records are (x, log x) as little-endian f32 bit patterns after the
# 96-byte header; od -tx4 reads them in this machine's (little-endian) order.
F=$DATA/log-f32.gold
n=0
k=0
for w in $(od -An -v -tx4 -j96 "$F"); do
    n=$((n + 1))
    [ $((n % 2)) = 0 ] || continue
    e=$(( 0x$w & 0x7F800000 ))
    if [ "$e" -ge $((0x00800000)) ] && [ "$e" -lt $((0x7F000000)) ]; then k=$((k + 1)); fi
done
records=$((n / 2))
zeros=$((records - k))
if [ "$records" -gt 0 ] && [ "$k" -gt 0 ] && [ "$zeros" -gt 0 ]; then
    ok "log-f32.gold has $records records, $k of them with a normal result the plant moves"
else
    fail "log-f32.gold has records of both kinds ($records records, $k moved)"
fi
# nearest-rank quantile of q percent over zeros 0s then k 1s
quant() { r=$(( (records * $1 + 99) / 100 )); [ "$r" -lt 1 ] && r=1; if [ "$r" -gt "$zeros" ]; then echo 1; else echo 0; fi; }
p50=$(quant 50)
p90=$(quant 90)
p99=$(quant 99)

# ---- golden check --json --------------------------------------------------------------
run "$PLUMB" golden check --backend "$FAULT" --manifest "$MANIFEST" --dir "$DATA" --json "$tmp/g.json" -q
if [ "$rc" = 0 ]; then ok "a backend exactly 1 ulp off on a 1-ulp op passes golden check"; else fail "golden check passes (exit $rc)"; fi
check_jq "the JSON names the histogram edges 0, 1/16, 1/8, 1/4, 1/2, 1" "$tmp/g.json" \
    '.histogram_edges == [0, 0.0625, 0.125, 0.25, 0.5, 1]'
check_jq "log-f32.gold: $zeros records in the 0 bin, $k in (1/2, 1], none elsewhere" "$tmp/g.json" \
    '.entries[] | select(.file == "log-f32.gold") | .histogram == [$z, 0, 0, 0, 0, $k, 0] and .worst == 1' \
    --argjson z "$zeros" --argjson k "$k"
check_jq "log-f32.gold: quantiles p50 $p50, p90 $p90, p99 $p99" "$tmp/g.json" \
    '.entries[] | select(.file == "log-f32.gold") | .p50 == $a and .p90 == $b and .p99 == $c' \
    --argjson a "$p50" --argjson b "$p90" --argjson c "$p99"
check_jq "every other file has all its records in the 0 bin" "$tmp/g.json" \
    'all(.entries[] | select(.file != "log-f32.gold"); .histogram[0] == .cases and .worst == 0)'
check_jq "per op x type: log f32 is the same distribution" "$tmp/g.json" \
    '.ops[] | select(.op == "stablehlo.log" and .dtype == "f32") |
     .files == 1 and .cases == $n and .histogram == [$z, 0, 0, 0, 0, $k, 0] and .p50 == $a' \
    --argjson n "$records" --argjson z "$zeros" --argjson k "$k" --argjson a "$p50"
check_jq "per op x type: the sums (add body) of 3 lengths are one entry with every row" "$tmp/g.json" \
    '([.entries[] | select(.op == "stablehlo.reduce" and .dtype == "f32" and .attr == "") | .cases] | add) as $c |
     [.ops[] | select(.op == "stablehlo.reduce" and .dtype == "f32" and .attr == "")] | length == 1 and
     .[0].files == 3 and .[0].cases == $c and .[0].histogram[0] == $c'

# ---- certify: the histogram per op x type ----------------------------------------------
run "$PLUMB" certify --backend "$FAULT" --ops stablehlo.log --out "$tmp/c" -q
if [ "$rc" = 0 ] || [ "$rc" = 1 ]; then ok "certify runs on the planted backend"; else fail "certify runs (exit $rc)"; fi
J=$tmp/c/report.json
check_jq "certify's JSON names the histogram edges" "$J" '.budget_histogram_edges == [0, 0.0625, 0.125, 0.25, 0.5, 1]'
check_jq "certify: log f32's cases are all at budget 0 or exactly 1, and some at 1" "$J" \
    '.ops[] | select(.op == "stablehlo.log") | .budget_histograms.f32 as $h |
     $h.bins[1:5] == [0, 0, 0, 0] and $h.bins[6] == 0 and $h.bins[5] > 0 and $h.worst == 1'
check_jq "certify: log f32's bins count the case records at 0 and at 1" "$J" \
    '([.cases[] | select(.[0] | startswith("log/f32/")) | select(.[1] == "pass" or .[1] == "fail")]) as $r |
     (.ops[] | select(.op == "stablehlo.log") | .budget_histograms.f32) as $h |
     $h.cases == ($r | length) and $h.bins[0] == ([$r[] | select(.[2] == 0)] | length) and
     $h.bins[5] == ([$r[] | select(.[2] == 1)] | length)'
check_jq "certify: the exact types (f16, bf16, f64) have every case in the 0 bin" "$J" \
    '.ops[] | select(.op == "stablehlo.log") | .budget_histograms as $b |
     all("f16", "bf16", "f64"; $b[.].cases > 0 and $b[.].bins[0] == $b[.].cases and $b[.].p99 == 0)'
finish
