#!/bin/sh
# StableHLO's dynamic test programs ($STABLEHLO_TESTDATA/dynamic/, JAX's
# shape-polymorphic exports): every file that uses only op set ops and
# element types must verify, round-trip through plumb fmt, run with
# generated inputs on the reference and the runtime (--random-inputs 1
# --compare: every '?' gets 3, the leading dimension-size scalars 3 too)
# with no result outside its bound and no failed check, and run at sizes 1,
# 2 and 7 through one runtime with one compile. A file outside the op set
# (tokens, quantized types, ops not in `plumb ops`) must be refused with the
# 'unsupported' message; it is counted as out of the op set, never as
# passed.
# The programs are read from $STABLEHLO_TESTDATA/dynamic when the variable is
# set (a missing STABLEHLO_TESTDATA folder, or an empty dynamic/, is then a
# failure), else from $SHARED/stablehlo-testdata/dynamic; when that does not
# exist the checks are skipped with a line saying how to enable them, and a
# testdata folder without dynamic/ is skipped saying so.
# Ends with "N passed, N failed, N skipped".
SHARED=${SHARED:-../shared}
ROOT=${STABLEHLO_TESTDATA:-$SHARED/stablehlo-testdata}
DIR=$ROOT/dynamic
. "$(dirname "$0")/lib.sh"
lib_init testdata-dyn
skipped=0

if [ ! -x "$PLUMB" ]; then
    fail "the plumb binary '$PLUMB' exists and is executable"
    finish
fi
if [ -z "${STABLEHLO_TESTDATA:-}" ] && [ ! -d "$ROOT" ]; then
    echo "skipped: StableHLO test files not found; set STABLEHLO_TESTDATA=DIR (see README)"
    skipped=1
    finish
fi
if [ ! -d "$ROOT" ]; then
    fail "the testdata folder '$ROOT' exists"
    finish
fi
if [ ! -d "$DIR" ]; then
    # A testdata folder without the dynamic programs (an older copy, or
    # only the static files): nothing here to run, and said so.
    echo "skipped: no dynamic/ folder in $ROOT (StableHLO's testdata/dynamic programs)"
    skipped=1
    finish
fi

# The op set: the first column of `plumb ops` (the op table, ir/ops.def);
# custom_call @X is listed as custom_call.X.
"$PLUMB" ops 2> "$tmp/err" | awk 'NR > 1 { print $1 }' > "$tmp/ops"
if [ ! -s "$tmp/ops" ]; then
    fail "plumb ops lists the op table"
    finish
fi

# out_of_set FILE: prints why FILE is outside the op set (nothing when it is
# inside): an element type the op set lacks, or an op the table lacks.
out_of_set() {
    # The FP8/FP6/FP4 formats, i2/i4/ui2/ui4, complex and tuples are in the
    # op set (issues 19, 20): such files are run like any other.
    if grep -q -E '!stablehlo\.token|!quant' "$1"; then
        echo "an element type outside the op set"
        return
    fi
    grep -o -E '[ "(](stablehlo|chlo|check|func)\.[a-z_]+' "$1" | cut -c2- > "$tmp/used"
    grep -o -E 'custom_call @[A-Za-z_.]+' "$1" | sed 's/^custom_call @/custom_call./' >> "$tmp/used"
    sort -u "$tmp/used" | while read -r op; do
        case $op in func.func) continue ;; esac
        if ! grep -F -x -q "$op" "$tmp/ops"; then
            echo "the op $op"
            break
        fi
    done
}

n=0
n_set=0
n_verified=0
n_ran=0
n_out=0
n_once=0
for f in "$DIR"/*.mlir; do
    [ -f "$f" ] || continue
    n=$((n + 1))
    name=$(basename "$f")
    : > "$tmp/err"
    why=$(out_of_set "$f")
    if [ -n "$why" ]; then
        # Outside the op set: refused, and said so.
        "$PLUMB" verify -q "$f" > /dev/null 2> "$tmp/err"
        rc=$?
        if [ "$rc" = 1 ] && grep -q "unsupported" "$tmp/err"; then
            n_out=$((n_out + 1))
            echo "out of op set - $name ($why): $(head -n 1 "$tmp/err" | sed 's/^.*error: //')"
        else
            fail "$name uses $why: verify must refuse it as unsupported (exit $rc)"
        fi
        continue
    fi
    n_set=$((n_set + 1))
    if ! "$PLUMB" verify -q "$f" > /dev/null 2> "$tmp/err"; then
        fail "verify $name"
        continue
    fi
    n_verified=$((n_verified + 1))
    ok "verify $name"
    # The canonical form is stable and still verifies.
    if ! "$PLUMB" fmt "$f" > "$tmp/once.mlir" 2> "$tmp/err" ||
       ! "$PLUMB" fmt "$tmp/once.mlir" > "$tmp/twice.mlir" 2> "$tmp/err"; then
        fail "fmt $name"
    elif ! cmp -s "$tmp/once.mlir" "$tmp/twice.mlir"; then
        diff "$tmp/once.mlir" "$tmp/twice.mlir" | head -n 4 > "$tmp/err"
        fail "round-trip $name: fmt(fmt(x)) differs from fmt(x)"
    elif ! "$PLUMB" verify -q "$tmp/once.mlir" > /dev/null 2> "$tmp/err"; then
        fail "verify the canonical form of $name"
    else
        ok "round-trip $name"
    fi
    if "$PLUMB" run --random-inputs 1 --compare --timeout 300 "$f" > "$tmp/out" 2> "$tmp/err"; then
        if grep -q -E "EXCEEDS|MISMATCH" "$tmp/out"; then
            grep -E "EXCEEDS|MISMATCH" "$tmp/out" | head -n 3 > "$tmp/err"
            fail "run --compare $name: a result differs"
        else
            n_ran=$((n_ran + 1))
            ok "run --random-inputs 1 --compare $name"
        fi
    else
        { grep -E "EXCEEDS|MISMATCH" "$tmp/out"; tail -n 3 "$tmp/err"; } | head -n 3 > "$tmp/err.tail"
        mv "$tmp/err.tail" "$tmp/err"
        fail "run --random-inputs 1 --compare $name"
    fi
    # One runtime, three sizes: the program compiles once (sizes 1, 2 and 7;
    # 0 is left out, where some programs index an empty dimension and fail
    # as they should).
    if "$PLUMB" run --stats --random-inputs 1 --dim-size 1,2,7 --repeat 3 --timeout 300 "$f" \
            > /dev/null 2> "$tmp/err" &&
       grep -q "stats total: 1 programs, 1 compiles (0 recompiles), 2 cache hits" "$tmp/err"; then
        n_once=$((n_once + 1))
        ok "sizes 1, 2, 7 compile once $name"
    else
        grep "stats total" "$tmp/err" > "$tmp/err.tail" || tail -n 3 "$tmp/err" > "$tmp/err.tail"
        mv "$tmp/err.tail" "$tmp/err"
        fail "sizes 1, 2, 7 compile once $name"
    fi
done
if [ "$n" = 0 ]; then
    fail "'$DIR' holds .mlir files"
    finish
fi
echo "# $n files in $DIR: $n_set in the op set, $n_verified verified, $n_ran ran with 0 differences," \
     "$n_once compiled once for three sizes; $n_out out of the op set"
finish
