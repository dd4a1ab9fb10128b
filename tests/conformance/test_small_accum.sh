#!/bin/sh
# The accumulators of the FP8/FP6/FP4 formats (ABI 1.4 accum_small,
# docs/abi.md): the certificate names them; a convolution that rounds its
# sum to the format after every product fails when it declares f32 (the
# default) and passes when it declares the format itself, whose void bound
# the certificate then states as a limitation. Ends with "N passed, N failed".
# Run from the top of the tree (tests/run.sh does): the plugins are built
# from paths relative to it.
BUILD=${BUILD:-build}
PLUMB=${PLUMB:-$BUILD/plumb}
. "$(dirname "$0")/../cli/lib.sh"
lib_init small_accum
need_plumb
certify() { # $1 backend, $2 output name; exit status in $tmp/$2.rc
    "$PLUMB" certify --backend "$1" --ops convolution --suite quick --jobs 1 --timeout 20 --out "$tmp/$2" \
        > "$tmp/$2.txt" 2>&1
    echo $? > "$tmp/$2.rc"
}

# runtime: f32 for every format but f8E8M0FNU (f64), and it certifies
certify runtime rt
if [ "$(cat "$tmp/rt.rc")" = 0 ] &&
    grep -q "accumulators  f8E4M3FN->f32 .*f8E8M0FNU->f64 .*f4E2M1FN->f32" "$tmp/rt.txt"; then
    ok "runtime declares f32 (f8E8M0FNU f64) and certifies"
else fail "runtime: $(grep accumulators "$tmp/rt.txt" | tail -1) rc $(cat "$tmp/rt.rc")"; fi
# ref: f64 for all, one entry
certify ref ref
if [ "$(cat "$tmp/ref.rc")" = 0 ] && grep -q "accumulators  FP8/FP6/FP4->f64$" "$tmp/ref.txt"; then
    ok "ref declares f64 and certifies"
else fail "ref: $(grep accumulators "$tmp/ref.txt" | tail -1) rc $(cat "$tmp/ref.rc")"; fi
# the JSON certificate carries every format's accumulator
if grep -q '"f8E4M3FN": "f32"' "$tmp/rt/report.json" && grep -q '"f8E8M0FNU": "f64"' "$tmp/rt/report.json"; then
    ok "report.json lists the small formats' accumulators"
else fail "report.json: no small-format accumulators"; fi

FAULT=$(plugin fault_fp8_conv_accum) || { fail "cannot build fault_fp8_conv_accum.so"; finish; }
OWN=$(plugin own_fp8_conv_accum) || { fail "cannot build own_fp8_conv_accum.so"; finish; }
# rounding in the format while declaring f32: the frequency statistic
certify "$FAULT" fault
if [ "$(cat "$tmp/fault.rc")" != 0 ] &&
    grep -q "convolution/f8E4M3FN/odd/finite/.*elements differ from the correctly rounded sum where a f32 accumulator" \
        "$tmp/fault.txt"; then
    ok "f8E4M3FN summed in the format while declaring f32 fails"
else fail "fault: rc $(cat "$tmp/fault.rc"); $(grep 'f8E4M3FN/odd/finite' "$tmp/fault.txt" | head -1)"; fi
# the same sums, declared: the format's own bound (void at K = 27), certified,
# and the certificate says so
certify "$OWN" own
if [ "$(cat "$tmp/own.rc")" = 0 ]; then ok "declared in-format accumulation certifies"
else fail "own: $(grep 'fail\]' "$tmp/own.txt" | head -3)"; fi
if grep -q "accumulators  f8E4M3FN->f8E4M3FN .*; summed in the format itself: f8E4M3FN f8E5M2 .* f4E2M1FN (limitation: the data bound gamma(K) is void" \
    "$tmp/own.txt"; then
    ok "the certificate names the in-format accumulators as a limitation"
else fail "own certificate: $(grep accumulators "$tmp/own.txt" | tail -1)"; fi
finish
