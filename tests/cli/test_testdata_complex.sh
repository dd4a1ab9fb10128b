#!/bin/sh
# StableHLO's own programs on complex<f32>/complex<f64> (docs/spec/complex.md)
# that use only ops plumb supports: the testdata files of
# $STABLEHLO_TESTDATA/v2 (default $SHARED/stablehlo-testdata/v2) and the
# interpreter-test samples (run with --split-input-file) pass on the
# reference and on the runtime, every check passing; a complex check that
# must fail does fail, per component, on both; complex programs print and
# parse back. Missing folders are skipped with a line saying how to enable
# them. Ends with "N passed, N failed, N skipped".
PLUMB=${PLUMB:-build/plumb}
SHARED=${SHARED:-../shared}
TDIR=${STABLEHLO_TESTDATA:-$SHARED/stablehlo-testdata}/v2
IDIR=${STABLEHLO_INTERPRET:-$SHARED/stablehlo-interpret}
passed=0
failed=0
skipped=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/plumb-complex.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

ok() { passed=$((passed + 1)); echo "ok - $1"; }
bad() {
    failed=$((failed + 1))
    echo "FAIL - $1"
    if [ -s "$tmp/err" ]; then tail -n 3 "$tmp/err" | sed 's/^/    /'; fi
}

# complex data movement, reduce, dot_general (mixed f64 x complex), sign,
# sine, the complex/real/imag ops and compare on parts; CHLO's asinh, asin, atan;
# reduce_window with a lexicographic-minimum body (cummin)
PASS="reshape_complex128_2_3.mlir reduce_sum_complex128_2_3.mlir reduce_min_complex64_2_3.mlir
dot_general_float64_4_3_complex64_3_6.mlir dot_general_float64_4_3_complex128_3_6.mlir
sign_complex64_20_20.mlir sin_complex128_20_20.mlir conj_float64_3_4.mlir le_complex128_complex128.mlir
asinh_complex128_20_20_chlo.mlir asin_complex64_20_20_chlo.mlir atan_complex64_20_20_chlo.mlir
cummin_complex64_8_9.mlir"
# complex constants, iota, multiply, expm1 and log among their cases; fft (all four types)
INTERPRET="constant.mlir iota.mlir multiply.mlir exponential_minus_one.mlir math_log_complex64.mlir
math_log_complex128.mlir math_asinh_complex64.mlir math_asinh_complex128.mlir math_acos_complex128.mlir
math_atan_complex64.mlir math_square_complex64.mlir
fft.mlir"

if [ ! -x "$PLUMB" ]; then
    bad "the plumb binary '$PLUMB' exists and is executable"
    echo "$passed passed, $failed failed, $skipped skipped"
    exit 1
fi

run_file() {
    b=$1
    f=$2
    shift 2
    "$PLUMB" run --backend "$b" "$@" "$f" > "$tmp/out" 2> "$tmp/err"
}

if [ -n "${STABLEHLO_TESTDATA:-}" ] && [ ! -d "$STABLEHLO_TESTDATA" ]; then
    echo "STABLEHLO_TESTDATA=$STABLEHLO_TESTDATA is not a folder" > "$tmp/err"
    bad "the testdata folder exists"
elif [ -d "$TDIR" ]; then
    for name in $PASS; do
        for b in ref runtime; do
            if [ ! -f "$TDIR/$name" ]; then
                echo "no such file: $TDIR/$name" > "$tmp/err"
                bad "$name exists"
            elif run_file "$b" "$TDIR/$name" && ! grep -q "check failed" "$tmp/err"; then
                ok "$name passes on $b"
            else
                bad "$name passes on $b"
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
                bad "$name (--split-input-file) passes on $b"
            fi
        done
    done
else
    echo "skipped: StableHLO interpreter test files not found; set STABLEHLO_INTERPRET=DIR (see README)"
    skipped=$((skipped + 1))
fi

# (1+2i)(3+4i) = -5+10i and (1+2i)/(3+4i) = 0.44+0.08i (0.08 rounded in
# the literal and in the result alike); the second check expects a wrong
# imaginary part and must fail on both backends, naming the component.
cat > "$tmp/c.mlir" <<'MLIR'
func.func @main() -> (tensor<2xcomplex<f64>>) {
  %a = stablehlo.constant dense<[(1.0,2.0), (1.0,2.0)]> : tensor<2xcomplex<f64>>
  %b = stablehlo.constant dense<[(3.0,4.0), (3.0,4.0)]> : tensor<2xcomplex<f64>>
  %m = stablehlo.multiply %a, %b : tensor<2xcomplex<f64>>
  %d = stablehlo.divide %a, %b : tensor<2xcomplex<f64>>
  %m0 = stablehlo.slice %m [0:1] : (tensor<2xcomplex<f64>>) -> tensor<1xcomplex<f64>>
  %d0 = stablehlo.slice %d [0:1] : (tensor<2xcomplex<f64>>) -> tensor<1xcomplex<f64>>
  %r = stablehlo.concatenate %m0, %d0, dim = 0 : (tensor<1xcomplex<f64>>, tensor<1xcomplex<f64>>) -> tensor<2xcomplex<f64>>
  %want = stablehlo.constant dense<[(-5.0,10.0), (0.44,0.08)]> : tensor<2xcomplex<f64>>
  %wrong = stablehlo.constant dense<[(-5.0,11.0), (0.44,0.08)]> : tensor<2xcomplex<f64>>
  stablehlo.custom_call @check.expect_close(%r, %want) {has_side_effect = true} : (tensor<2xcomplex<f64>>, tensor<2xcomplex<f64>>) -> ()
  stablehlo.custom_call @check.expect_eq(%r, %wrong) {has_side_effect = true} : (tensor<2xcomplex<f64>>, tensor<2xcomplex<f64>>) -> ()
  return %r : tensor<2xcomplex<f64>>
}
MLIR
for b in ref runtime; do
    run_file "$b" "$tmp/c.mlir"
    rc=$?
    if [ "$rc" = 1 ] && grep -q "1 of 2 checks failed\|1 checks\{0,1\} failed" "$tmp/err" && grep -q "at \[0, 1\]" "$tmp/err" &&
        grep -q "dense<\[(-5.0,10.0), (0.44,0.08)\]>" "$tmp/out"; then
        ok "complex multiply and divide on $b: the right check passes, the wrong one fails at [0, 1] (imaginary part)"
    else
        bad "complex multiply and divide on $b: the right check passes, the wrong one fails at [0, 1] (exit $rc)"
    fi
done

# The canonical printer writes complex types and literals that parse back
# to the same program.
if "$PLUMB" fmt "$tmp/c.mlir" > "$tmp/f1.mlir" 2> "$tmp/err" && "$PLUMB" fmt "$tmp/f1.mlir" > "$tmp/f2.mlir" 2>> "$tmp/err" &&
    cmp -s "$tmp/f1.mlir" "$tmp/f2.mlir" && grep -q "complex<f64>" "$tmp/f1.mlir"; then
    ok "plumb fmt round-trips a complex program"
else
    bad "plumb fmt round-trips a complex program"
fi

# --random-inputs fills complex parameters, and the runtime at its default
# optimization level (fusion on) keeps complex values and complex/real/imag
# out of fused float loops: both backends print the same results.
cat > "$tmp/f.mlir" <<'MLIR'
func.func @main(%a: tensor<4xcomplex<f32>>, %b: tensor<4xcomplex<f32>>, %x: tensor<4xf32>) -> (tensor<4xcomplex<f32>>, tensor<4xf32>) {
  %0 = stablehlo.add %a, %b : tensor<4xcomplex<f32>>
  %1 = stablehlo.multiply %0, %b : tensor<4xcomplex<f32>>
  %c = stablehlo.convert %x : (tensor<4xf32>) -> tensor<4xcomplex<f32>>
  %2 = stablehlo.subtract %1, %c : tensor<4xcomplex<f32>>
  %3 = stablehlo.negate %2 : tensor<4xcomplex<f32>>
  %r = stablehlo.real %3 : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %i = stablehlo.real %x : (tensor<4xf32>) -> tensor<4xf32>
  %s = stablehlo.add %r, %i : tensor<4xf32>
  %e = stablehlo.negate %s : tensor<4xf32>
  return %3, %e : tensor<4xcomplex<f32>>, tensor<4xf32>
}
MLIR
if "$PLUMB" run --random-inputs "$tmp/f.mlir" > "$tmp/f_ref" 2> "$tmp/err" &&
    "$PLUMB" run --backend runtime --random-inputs "$tmp/f.mlir" > "$tmp/f_rt" 2>> "$tmp/err" &&
    cmp -s "$tmp/f_ref" "$tmp/f_rt" && grep -q "complex<f32>> dense<\[(" "$tmp/f_ref"; then
    ok "random complex inputs: a fused runtime program prints the reference's results"
else
    bad "random complex inputs: a fused runtime program prints the reference's results"
fi

# compare in an ordered direction is the lexicographic order of (real,
# imag) pairs (the spec's compare on complex): (-5,10) < (-5,11) by the
# imaginary part; (0.44,0.08) < (0.44,0.08) is false.
sed 's/stablehlo.custom_call @check.expect_eq(%r, %wrong).*$/%lt = stablehlo.compare LT, %r, %wrong : (tensor<2xcomplex<f64>>, tensor<2xcomplex<f64>>) -> tensor<2xi1>\
  %ltw = stablehlo.constant dense<[true, false]> : tensor<2xi1>\
  stablehlo.custom_call @check.expect_eq(%lt, %ltw) {has_side_effect = true} : (tensor<2xi1>, tensor<2xi1>) -> ()/' "$tmp/c.mlir" > "$tmp/lt.mlir"
for b in ref runtime; do
    if grep -q "compare LT" "$tmp/lt.mlir" && run_file "$b" "$tmp/lt.mlir" && ! grep -q "check failed" "$tmp/err"; then
        ok "compare LT on complex is lexicographic on $b"
    else
        bad "compare LT on complex is lexicographic on $b"
    fi
done

# sort whose comparator orders complex values by their real parts (stable:
# equal real parts keep their order) runs on both backends.
cat > "$tmp/sort.mlir" <<'EOF'
func.func @main() -> tensor<4xcomplex<f64>> {
  %a = stablehlo.constant dense<[(2.0,1.5), (1.0,-2.5), (2.0,-1.5), (0.5,3.25)]> : tensor<4xcomplex<f64>>
  %r = "stablehlo.sort"(%a) <{dimension = 0 : i64, is_stable = true}> ({
  ^bb0(%x: tensor<complex<f64>>, %y: tensor<complex<f64>>):
    %p = stablehlo.real %x : (tensor<complex<f64>>) -> tensor<f64>
    %q = stablehlo.real %y : (tensor<complex<f64>>) -> tensor<f64>
    %c = stablehlo.compare LT, %p, %q, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }) : (tensor<4xcomplex<f64>>) -> tensor<4xcomplex<f64>>
  %w = stablehlo.constant dense<[(0.5,3.25), (1.0,-2.5), (2.0,1.5), (2.0,-1.5)]> : tensor<4xcomplex<f64>>
  stablehlo.custom_call @check.expect_eq(%r, %w) {has_side_effect = true} : (tensor<4xcomplex<f64>>, tensor<4xcomplex<f64>>) -> ()
  return %r : tensor<4xcomplex<f64>>
}
EOF
for b in ref runtime; do
    if run_file "$b" "$tmp/sort.mlir" && ! grep -q "check failed" "$tmp/err"; then
        ok "sort of complex<f64> by real part on $b"
    else
        bad "sort of complex<f64> by real part on $b"
    fi
done

# triangular_solve on complex (docs/spec/linalg.md): a = [[2, 0], [1+i, 1]],
# lower, ADJOINT: op(a) = [[2, 1-i], [0, 1]]; b = [3-i, 2i] gives x1 = 2i and
# x0 = (3-i - (1-i)(2i))/2 = (1-3i)/2 on both backends.
cat > "$tmp/ts.mlir" <<'EOF'
func.func @main() -> tensor<2x1xcomplex<f32>> {
  %a = stablehlo.constant dense<[[(2.0, 0.0), (0.0, 0.0)], [(1.0, 1.0), (1.0, 0.0)]]> : tensor<2x2xcomplex<f32>>
  %b = stablehlo.constant dense<[[(3.0, -1.0)], [(0.0, 2.0)]]> : tensor<2x1xcomplex<f32>>
  %r = "stablehlo.triangular_solve"(%a, %b) <{left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose ADJOINT>}> : (tensor<2x2xcomplex<f32>>, tensor<2x1xcomplex<f32>>) -> tensor<2x1xcomplex<f32>>
  return %r : tensor<2x1xcomplex<f32>>
}
EOF
for b in ref runtime; do
    if run_file "$b" "$tmp/ts.mlir" && grep -qF "[[(0.5,-1.5)], [(0.0,2.0)]]" "$tmp/out"; then
        ok "triangular_solve ADJOINT on complex<f32> on $b"
    else
        bad "triangular_solve ADJOINT on complex<f32> on $b"
    fi
done

echo "$passed passed, $failed failed, $skipped skipped"
