#!/bin/sh
# StableHLO's own programs that use CHLO's math ops (op set v2) with only
# op set v1 besides: the interpreter-test samples (run with
# --split-input-file) and the testdata files of $STABLEHLO_TESTDATA/v2
# (default $SHARED/stablehlo-testdata/v2) run on the reference and on the
# runtime, every check passing. Files whose expected values are XLA's
# approximations more than the check's tolerance away from the correctly
# rounded result are listed in ARBITRATED (docs/testdata-coverage.md, "CHLO
# math"): they pass on both backends by arbitration with its note, and fail
# with exactly one failed check under --no-arbitrate (plumb keeps the
# correctly rounded value; tests/ref/test_crmath.c proves the reference's
# rounding). Missing folders are skipped with a line saying
# how to enable them.
# Ends with "N passed, N failed, N skipped".
SHARED=${SHARED:-../shared}
TDIR=${STABLEHLO_TESTDATA:-$SHARED/stablehlo-testdata}/v2
IDIR=${STABLEHLO_INTERPRET:-$SHARED/stablehlo-interpret}
. "$(dirname "$0")/lib.sh"
lib_init chlo
skipped=0

# Files expected to pass (every check) on both backends.
PASS="asinh_float16_20_20_chlo.mlir asinh_float64_20_20_chlo.mlir atan_bfloat16_20_20_chlo.mlir
nextafter_float32_20_20_float32_20_20_chlo.mlir"
# chlo.erf_inv inside JAX's random_gamma sampler (while loops carrying more
# than 8 values on the runtime)
PASS="$PASS random_gamma_float32_3_chlo.mlir random_gamma_float64_3_chlo.mlir"
# Passing by arbitration (docs/spec/checks.md): XLA's expected value of
# cosh(9.164727) in f32 is 0x4595487A, 4 ULP above the correctly rounded
# 0x45954876 (expect_close allows 3); plumb keeps the correctly rounded
# value, the check accepts it with a note, and fails as written with
# --no-arbitrate.
ARBITRATED="cosh_float32_20_20_chlo.mlir"
INTERPRET="math_asin_float32.mlir math_atan_float64.mlir math_square_float32.mlir"

if [ ! -x "$PLUMB" ]; then
    fail "the plumb binary '$PLUMB' exists and is executable"
    echo "$passed passed, $failed failed, $skipped skipped"
    exit 1
fi

# run_file BACKEND FILE [--split-input-file]: exit status of plumb run
run_file() {
    b=$1
    f=$2
    shift 2
    "$PLUMB" run --backend "$b" "$@" "$f" > "$tmp/out" 2> "$tmp/err"
}

if [ -n "${STABLEHLO_TESTDATA:-}" ] && [ ! -d "$STABLEHLO_TESTDATA" ]; then
    echo "STABLEHLO_TESTDATA=$STABLEHLO_TESTDATA is not a folder" > "$tmp/err"
    fail "the testdata folder exists"
elif [ -d "$TDIR" ]; then
    for name in $PASS; do
        for b in ref runtime; do
            if [ ! -f "$TDIR/$name" ]; then
                echo "no such file: $TDIR/$name" > "$tmp/err"
                fail "$name exists"
            elif run_file "$b" "$TDIR/$name"; then
                ok "$name passes on $b"
            else
                fail "$name passes on $b"
            fi
        done
    done
    for name in $ARBITRATED; do
        for b in ref runtime; do
            run_file "$b" "$TDIR/$name"
            rc=$?
            if [ "$rc" = 0 ] && grep -q "note: check.expect_close: arbitration accepted 1 of 400 elements" "$tmp/err"; then
                ok "$name passes on $b by arbitration, with the note (XLA's expected value, not plumb's)"
            else
                fail "$name passes on $b by arbitration (exit $rc, expected 0 with the note)"
            fi
            run_file "$b" "$TDIR/$name" --no-arbitrate
            rc=$?
            if [ "$rc" = 1 ] && grep -q "1 checks\{0,1\} failed\|1 of 1 checks failed" "$tmp/err"; then
                ok "$name fails on $b with --no-arbitrate (one check)"
            else
                fail "$name fails on $b with --no-arbitrate (exit $rc, expected 1 with one failed check)"
            fi
        done
    done
else
    echo "skipped: $TDIR not found; set STABLEHLO_TESTDATA=DIR (see README)"
    skipped=$((skipped + 1))
fi

if [ -d "$IDIR" ]; then
    for name in $INTERPRET; do
        for b in ref runtime; do
            if run_file "$b" "$IDIR/$name" --split-input-file && grep -q " 0 failed" "$tmp/out" "$tmp/err"; then
                ok "$name (--split-input-file) passes on $b"
            else
                fail "$name (--split-input-file) passes on $b"
            fi
        done
    done
else
    echo "skipped: StableHLO interpreter test files not found; set STABLEHLO_INTERPRET=DIR (see README)"
    skipped=$((skipped + 1))
fi

# A flag may name a chlo op without its dialect, as it may a stablehlo op;
# a program may not (the parser needs the full name), and an unknown name
# is still a usage error.
if "$PLUMB" certify --backend ref --ops acos -q --out "$tmp/cert" > "$tmp/out" 2> "$tmp/err" &&
    grep -q "PARTIAL (ops: chlo.acos\|PARTIAL (ops: acos" "$tmp/out"; then
    ok "certify --ops acos selects chlo.acos"
else
    fail "certify --ops acos selects chlo.acos"
fi
"$PLUMB" certify --backend ref --ops acosx -q > "$tmp/out" 2> "$tmp/err"
if [ $? = 2 ] && grep -q "unknown op 'acosx'" "$tmp/err"; then
    ok "certify --ops acosx: unknown op, exit 2"
else
    fail "certify --ops acosx: unknown op, exit 2"
fi
printf 'func.func @main(%%x: tensor<2xf32>) -> tensor<2xf32> {\n  %%0 = acos %%x : tensor<2xf32> -> tensor<2xf32>\n  return %%0 : tensor<2xf32>\n}\n' > "$tmp/bare.mlir"
if ! "$PLUMB" verify "$tmp/bare.mlir" > "$tmp/out" 2> "$tmp/err"; then
    ok "a program writing 'acos' without chlo. is rejected"
else
    fail "a program writing 'acos' without chlo. is rejected"
fi

finish
