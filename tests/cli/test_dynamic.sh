#!/bin/sh
# plumb run, verify and fmt on programs with polymorphic ('?') dimensions:
# a bounded elementwise program runs at several sizes on the reference and
# the runtime with hand-derived results, a size above the bound is refused
# naming the parameter and the dimension (exit 2), a session over several
# sizes and files compiles once, --random-inputs sizes '?' dimensions
# (--dim-size, --shape, bounds, JAX's leading dimension-size scalars),
# --compare checks dynamic results (shapes first: a planted backend that
# swaps a result's dims is caught), and the dynamic ops run with results
# worked out by hand. Ends with "N passed, N failed".
BUILD=${BUILD:-build}
PLUMB=${PLUMB:-$BUILD/plumb}
. "$(dirname "$0")/lib.sh"
lib_init dynamic

# run CMD...: stdout in $tmp/out, stderr in $tmp/err, status in $rc.
# has FILE TEXT DESCRIPTION: FILE contains TEXT (fixed string).
has() {
    if grep -F -q -- "$2" "$1"; then ok "$3"; else fail "$3 ('$2' not in $(basename "$1"))"; fi
}
# hasnt FILE TEXT DESCRIPTION: FILE does not contain TEXT.
hasnt() {
    if grep -F -q -- "$2" "$1"; then fail "$3 ('$2' found in $(basename "$1"))"; else ok "$3"; fi
}
# count FILE TEXT N DESCRIPTION: TEXT occurs on exactly N lines of FILE.
count() {
    n=$(grep -F -c -- "$2" "$1")
    if [ "$n" = "$3" ]; then ok "$4"; else fail "$4 ($n lines with '$2', expected $3)"; fi
}
# same DESCRIPTION EXPECTED: stdout of the last run is exactly EXPECTED.
same() {
    printf '%s\n' "$2" > "$tmp/want"
    if cmp -s "$tmp/want" "$tmp/out"; then
        ok "$1"
    else
        diff "$tmp/want" "$tmp/out" | head -n 6 > "$tmp/err"
        fail "$1"
    fi
}

if [ ! -x "$PLUMB" ]; then
    fail "the plumb binary '$PLUMB' exists and is executable"
    finish
fi

# ---- a bounded elementwise program ---------------------------------------------
B='tensor<?x4xf32, #stablehlo.bounds<8, ?>>'
cat > "$tmp/add.mlir" <<EOF
func.func @main(%x: $B, %y: $B) -> $B {
  %0 = stablehlo.add %x, %y : $B
  return %0 : $B
}
EOF
cp "$tmp/add.mlir" "$tmp/add_copy.mlir"

run "$PLUMB" verify "$tmp/add.mlir"
expect_rc "verify accepts a bounded '?' program" 0
run "$PLUMB" fmt "$tmp/add.mlir"
cp "$tmp/out" "$tmp/add_fmt.mlir"
has "$tmp/add_fmt.mlir" "#stablehlo.bounds<8, ?>" "fmt keeps the bounds"
run "$PLUMB" fmt "$tmp/add_fmt.mlir"
if cmp -s "$tmp/out" "$tmp/add_fmt.mlir"; then ok "fmt of a '?' program is stable"; else fail "fmt of a '?' program is stable"; fi

# Inputs at sizes 1, 3, 8 (the bound) and 0; the sums are exact in f32.
echo 'dense<[[1.0, 2.0, 3.0, 4.0]]> : tensor<1x4xf32>' > "$tmp/x1.txt"
echo 'dense<[[0.5, 0.5, 0.5, 0.5]]> : tensor<1x4xf32>' > "$tmp/y1.txt"
echo 'dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [-1.0, -2.0, -3.0, -4.0]]> : tensor<3x4xf32>' > "$tmp/x3.txt"
echo 'dense<[[0.25, 0.25, 0.25, 0.25], [10.0, 20.0, 30.0, 40.0], [1.0, 2.0, 3.0, 4.0]]> : tensor<3x4xf32>' > "$tmp/y3.txt"
echo 'dense<1.5> : tensor<8x4xf32>' > "$tmp/x8.txt"
echo 'dense<-0.25> : tensor<8x4xf32>' > "$tmp/y8.txt"
echo 'dense<> : tensor<0x4xf32>' > "$tmp/x0.txt"
echo 'dense<2.0> : tensor<9x4xf32>' > "$tmp/x9.txt"
echo 'dense<2.0> : tensor<2x5xf32>' > "$tmp/x2x5.txt"
for be in ref runtime; do
    run "$PLUMB" run --backend $be --input x="$tmp/x1.txt" --input y="$tmp/y1.txt" "$tmp/add.mlir"
    same "$be: size 1 gives the sum (by hand)" 'tensor<1x4xf32> dense<[[1.5, 2.5, 3.5, 4.5]]>'
    run "$PLUMB" run --backend $be --input x="$tmp/x3.txt" --input y="$tmp/y3.txt" "$tmp/add.mlir"
    same "$be: size 3 gives the sum (by hand)" \
        'tensor<3x4xf32> dense<[[1.25, 2.25, 3.25, 4.25], [15.0, 26.0, 37.0, 48.0], [0.0, 0.0, 0.0, 0.0]]>'
    run "$PLUMB" run --backend $be --input x="$tmp/x8.txt" --input y="$tmp/y8.txt" "$tmp/add.mlir"
    same "$be: size 8, the bound, gives the sum (by hand; printed as a splat)" 'tensor<8x4xf32> dense<1.25>'
    run "$PLUMB" run --backend $be --input x="$tmp/x0.txt" --input y="$tmp/x0.txt" "$tmp/add.mlir"
    same "$be: size 0 gives an empty result" 'tensor<0x4xf32> dense<>'
    run "$PLUMB" run --backend $be --input x="$tmp/x9.txt" --input y="$tmp/x9.txt" "$tmp/add.mlir"
    expect_rc "$be: size 9 above the bound 8 is refused (exit 2)" 2
    has "$tmp/err" "parameter 0 (%x) dimension 0: size 9 exceeds its bound 8" "$be: the error names parameter, dimension, size and bound"
    run "$PLUMB" run --backend $be --input x="$tmp/x2x5.txt" --input y="$tmp/x2x5.txt" "$tmp/add.mlir"
    expect_rc "$be: a wrong static dimension is refused (exit 2)" 2
    has "$tmp/err" "parameter 0 (%x) dimension 1" "$be: the error names the static dimension"
done
# Operands of different sizes for one '?': the add's shapes must agree.
run "$PLUMB" run --input x="$tmp/x1.txt" --input y="$tmp/x3.txt" "$tmp/add.mlir"
expect_rc "operands of sizes 1 and 3 for an elementwise op fail the run (exit 1)" 1
has "$tmp/err" "stablehlo.add" "the error names the op"

# One session, three sizes and two files of the same program: one compile.
run "$PLUMB" run --stats --random-inputs 7 --dim-size 1,5,8 --repeat 2 "$tmp/add.mlir" "$tmp/add_copy.mlir"
expect_rc "a session over sizes 1, 5, 8 and two files runs" 0
count "$tmp/out" "// " 4 "four runs"
has "$tmp/out" "tensor<1x4xf32> dense<" "run 1 has size 1"
has "$tmp/out" "tensor<5x4xf32> dense<" "run 2 has size 5"
has "$tmp/out" "tensor<8x4xf32> dense<" "run 3 has size 8"
has "$tmp/err" "plumb: stats total: 1 programs, 1 compiles (0 recompiles), 3 cache hits" \
    "sizes within the bound never compile again"
run "$PLUMB" run --stats --error-on-recompile --input x="$tmp/x3.txt" --input y="$tmp/y3.txt" "$tmp/add.mlir" "$tmp/add_copy.mlir"
expect_rc "the same program from two files with explicit inputs passes --error-on-recompile" 0
has "$tmp/err" "1 compiles (0 recompiles), 1 cache hits" "the second file is a cache hit"
run "$PLUMB" run --random-inputs --dim-size 9 --repeat 2 "$tmp/add.mlir"
expect_rc "--dim-size above a bound is a usage error" 2
has "$tmp/err" "parameter 0 (%x) dimension 0: size 9 exceeds its bound 8" "the --dim-size error names parameter and dimension"

# ---- --random-inputs on '?' parameters ------------------------------------------
run "$PLUMB" run --random-inputs 1 "$tmp/add.mlir"
expect_rc "--random-inputs runs a bounded program" 0
has "$tmp/out" "tensor<8x4xf32> dense<" "a bounded '?' gets its bound"
cp "$tmp/out" "$tmp/seed1.out"
run "$PLUMB" run --random-inputs 1 "$tmp/add.mlir"
if cmp -s "$tmp/out" "$tmp/seed1.out"; then ok "the same seed gives the same inputs"; else fail "the same seed gives the same inputs"; fi
run "$PLUMB" run --random-inputs=1 "$tmp/add.mlir"
if cmp -s "$tmp/out" "$tmp/seed1.out"; then ok "--random-inputs=1 is --random-inputs 1"; else fail "--random-inputs=1 is --random-inputs 1"; fi
run "$PLUMB" run --random-inputs 2 "$tmp/add.mlir"
if cmp -s "$tmp/out" "$tmp/seed1.out"; then fail "another seed gives other inputs"; else ok "another seed gives other inputs"; fi
run "$PLUMB" run --random-inputs=x "$tmp/add.mlir"
expect_rc "a seed that is not a number is a usage error" 2
run "$PLUMB" run --random-inputs 1 --shape x=2x4 --shape 1=2x4 "$tmp/add.mlir"
expect_rc "--shape by name and by index" 0
has "$tmp/out" "tensor<2x4xf32> dense<" "--shape sets the parameter's dims"
run "$PLUMB" run --random-inputs 1 --shape x=9x4 "$tmp/add.mlir"
expect_rc "--shape above the bound is a usage error" 2
has "$tmp/err" "parameter 0 (%x) dimension 0: size 9 exceeds its bound 8" "the --shape error names parameter and dimension"
run "$PLUMB" run --random-inputs 1 --shape x=2x5 "$tmp/add.mlir"
expect_rc "--shape with a wrong static dimension is a usage error" 2
has "$tmp/err" "dimension 1: size 5 differs from its static size 4" "the static dimension is named"
run "$PLUMB" run --random-inputs 1 --shape x=2 "$tmp/add.mlir"
expect_rc "--shape of the wrong rank is a usage error" 2
run "$PLUMB" run --random-inputs 1 --shape z=2x4 "$tmp/add.mlir"
expect_rc "--shape of an unknown parameter is a usage error" 2
has "$tmp/err" "its parameters: %x (index 0), %y (index 1)" "the parameters are listed"
run "$PLUMB" run --random-inputs 1 --shape x=2x4 --input x="$tmp/x1.txt" "$tmp/add.mlir"
expect_rc "--shape and --input for one parameter is a usage error" 2
run "$PLUMB" run --dim-size 2 "$tmp/add.mlir"
expect_rc "--dim-size without --random-inputs is a usage error" 2
run "$PLUMB" run --random-inputs --dim-size 2,3 "$tmp/add.mlir"
expect_rc "several --dim-size sizes for one run is a usage error" 2
run "$PLUMB" run --random-inputs --dim-size x "$tmp/add.mlir"
expect_rc "a malformed --dim-size is a usage error" 2

# --compare on a dynamic program: both backends, actual shapes.
run "$PLUMB" run --random-inputs 3 --dim-size 5 --compare "$tmp/add.mlir"
expect_rc "--compare on a '?' program finds no difference" 0
has "$tmp/out" "result 0 tensor<5x4xf32>: exact: bit-exact" "--compare shows the actual shape"

# A backend returning the right bytes in the wrong (transposed) shape: the
# comparison checks shapes before values.
cat > "$tmp/add2.mlir" <<'EOF'
func.func @main(%x: tensor<?x?xf32>, %y: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = stablehlo.add %x, %y : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
EOF
so="$BUILD/plugins/fault_dyn_shape.so"
if [ -f "$so" ]; then
    run "$PLUMB" run --backend "$so" --compare --random-inputs 1 --shape x=2x3 --shape y=2x3 "$tmp/add2.mlir"
    expect_rc "--compare fails a result of the wrong shape (exit 1)" 1
    has "$tmp/out" "result 0 tensor<2x3xf32>: MISMATCH: $so returned tensor<3x2xf32>" "both shapes are named"
else
    fail "the planted backend $so is built (make BUILD=$BUILD)"
fi

# JAX's convention: the leading integer scalars are the dimension sizes.
cat > "$tmp/jax.mlir" <<'EOF'
func.func @main(%h: tensor<i64>, %w: tensor<i32>, %x: tensor<3x?x?xf32>) -> (tensor<i64>, tensor<i32>, tensor<3x?x?xf32>) {
  return %h, %w, %x : tensor<i64>, tensor<i32>, tensor<3x?x?xf32>
}
EOF
run "$PLUMB" run --random-inputs 1 "$tmp/jax.mlir"
expect_rc "an unbounded program runs with generated inputs" 0
has "$tmp/out" "tensor<i64> dense<3>" "an unbounded '?' gets 3, and the first scalar its size"
has "$tmp/out" "tensor<3x3x3xf32>" "every unbounded '?' gets 3"
run "$PLUMB" run --random-inputs 1 --shape x=3x2x7 "$tmp/jax.mlir"
has "$tmp/out" "tensor<i64> dense<2>" "the first scalar gets the first '?' size"
has "$tmp/out" "tensor<i32> dense<7>" "the second scalar gets the second '?' size"
has "$tmp/out" "tensor<3x2x7xf32>" "the tensor has the --shape"
echo 'dense<5> : tensor<i32>' > "$tmp/w5.txt"
run "$PLUMB" run --random-inputs 1 --dim-size 4 --input w="$tmp/w5.txt" "$tmp/jax.mlir"
has "$tmp/out" "tensor<i64> dense<4>" "--dim-size sizes the scalars"
has "$tmp/out" "tensor<i32> dense<5>" "--input overrides a dimension-size scalar"

# ---- the dynamic ops ----------------------------------------------------------------
cat > "$tmp/ops.mlir" <<'EOF'
func.func @main(%n: tensor<i64>, %x: tensor<?x3xf32>) -> (tensor<i32>, tensor<?x3xf32>, tensor<?xi32>, tensor<?x2x3xf32>) {
  %d = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
  %s = stablehlo.reshape %d : (tensor<i32>) -> tensor<1xi32>
  %c3 = stablehlo.constant dense<3> : tensor<1xi32>
  %sh = stablehlo.concatenate %s, %c3, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %r = stablehlo.dynamic_reshape %x, %sh : (tensor<?x3xf32>, tensor<2xi32>) -> tensor<?x3xf32>
  %io = stablehlo.dynamic_iota %s, dim = 0 : (tensor<1xi32>) -> tensor<?xi32>
  %c2 = stablehlo.constant dense<2> : tensor<1xi32>
  %sh3 = stablehlo.concatenate %s, %c2, %c3, dim = 0 : (tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<3xi32>
  %b = stablehlo.dynamic_broadcast_in_dim %x, %sh3, dims = [0, 2] : (tensor<?x3xf32>, tensor<3xi32>) -> tensor<?x2x3xf32>
  %n32 = stablehlo.convert %n : (tensor<i64>) -> tensor<i32>
  %eq = stablehlo.compare EQ, %n32, %d, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
  stablehlo.custom_call @shape_assertion(%eq, %n, %d) {error_message = "n = {0} but x has {1} rows", has_side_effect = true} : (tensor<i1>, tensor<i64>, tensor<i32>) -> ()
  return %d, %r, %io, %b : tensor<i32>, tensor<?x3xf32>, tensor<?xi32>, tensor<?x2x3xf32>
}
EOF
cat > "$tmp/ops2.mlir" <<'EOF'
func.func @main(%x: tensor<?x?xf32>, %start: tensor<2xi64>, %limit: tensor<2xi64>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %st = stablehlo.constant dense<1> : tensor<2xi64>
  %s = stablehlo.real_dynamic_slice %x, %start, %limit, %st : (tensor<?x?xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %lo = stablehlo.constant dense<[1, 0]> : tensor<2xi64>
  %hi = stablehlo.constant dense<[0, 1]> : tensor<2xi64>
  %in = stablehlo.constant dense<0> : tensor<2xi64>
  %p = stablehlo.dynamic_pad %x, %z, %lo, %hi, %in : (tensor<?x?xf32>, tensor<f32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?xf32>
  return %s, %p : tensor<?x?xf32>, tensor<?x?xf32>
}
EOF
for f in ops ops2; do
    run "$PLUMB" verify "$tmp/$f.mlir"
    expect_rc "verify accepts the dynamic ops ($f)" 0
    "$PLUMB" fmt "$tmp/$f.mlir" > "$tmp/${f}_fmt.mlir" 2> "$tmp/err"
    run "$PLUMB" fmt "$tmp/${f}_fmt.mlir"
    if [ -s "$tmp/out" ] && cmp -s "$tmp/out" "$tmp/${f}_fmt.mlir"; then
        ok "fmt of the dynamic ops is stable ($f)"
    else
        fail "fmt of the dynamic ops is stable ($f)"
    fi
    run "$PLUMB" verify "$tmp/${f}_fmt.mlir"
    expect_rc "the canonical form of the dynamic ops verifies ($f)" 0
done
echo 'dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>' > "$tmp/x23.txt"
echo 'dense<2> : tensor<i64>' > "$tmp/n2.txt"
echo 'dense<3> : tensor<i64>' > "$tmp/n3.txt"
echo 'dense<[0, 1]> : tensor<2xi64>' > "$tmp/start.txt"
echo 'dense<[2, 3]> : tensor<2xi64>' > "$tmp/limit.txt"
echo 'dense<[2, 4]> : tensor<2xi64>' > "$tmp/limit_out.txt"
for be in ref runtime; do
    # get_dimension_size 2; the reshape to [2, 3] is x; iota [0, 1];
    # b[i][j][k] = x[i][k]
    run "$PLUMB" run --backend $be --input n="$tmp/n2.txt" --input x="$tmp/x23.txt" "$tmp/ops.mlir"
    same "$be: get_dimension_size, dynamic_reshape, dynamic_iota, dynamic_broadcast_in_dim (by hand)" \
'tensor<i32> dense<2>
tensor<2x3xf32> dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]>
tensor<2xi32> dense<[0, 1]>
tensor<2x2x3xf32> dense<[[[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]], [[4.0, 5.0, 6.0], [4.0, 5.0, 6.0]]]>'
    run "$PLUMB" run --backend $be --input n="$tmp/n3.txt" --input x="$tmp/x23.txt" "$tmp/ops.mlir"
    expect_rc "$be: a failing shape_assertion fails the run (exit 1)" 1
    has "$tmp/err" "n = 3 but x has 2 rows" "$be: the assertion's message, with its operands' values"
    # rows 0..1, columns 1..2 of x; x padded with one row above and one column right
    run "$PLUMB" run --backend $be --input x="$tmp/x23.txt" --input start="$tmp/start.txt" --input limit="$tmp/limit.txt" "$tmp/ops2.mlir"
    same "$be: real_dynamic_slice and dynamic_pad (by hand)" \
'tensor<2x2xf32> dense<[[2.0, 3.0], [5.0, 6.0]]>
tensor<3x4xf32> dense<[[0.0, 0.0, 0.0, 0.0], [1.0, 2.0, 3.0, 0.0], [4.0, 5.0, 6.0, 0.0]]>'
    run "$PLUMB" run --backend $be --input x="$tmp/x23.txt" --input start="$tmp/start.txt" --input limit="$tmp/limit_out.txt" "$tmp/ops2.mlir"
    expect_rc "$be: a real_dynamic_slice limit beyond the operand fails the run (exit 1)" 1
    has "$tmp/err" "real_dynamic_slice" "$be: the error names the op"
    hasnt "$tmp/out" "tensor<" "$be: no result is printed after the failure"
done
run "$PLUMB" run --compare --random-inputs 1 --dim-size 4 "$tmp/ops.mlir"
expect_rc "--compare on the dynamic ops with generated inputs (n = the size)" 0
has "$tmp/out" "result 3 tensor<4x2x3xf32>: exact: bit-exact" "--compare shows the broadcast's actual shape"
run "$PLUMB" run --stats --random-inputs 1 --dim-size 1,2,6 --repeat 3 "$tmp/ops.mlir"
expect_rc "the dynamic ops at three sizes in one session" 0
has "$tmp/err" "plumb: stats total: 1 programs, 1 compiles (0 recompiles), 2 cache hits" \
    "the dynamic ops compile once for three sizes"

finish
