#!/bin/sh
# dot_general's algorithm attribute (docs/spec/dotalg.md): hand-derived
# dots on the reference and the runtime (each case's comment derives its
# value), the verifier's constraints with their messages, the parser's
# errors, the printer's round trip, the cache key, and StableHLO's
# interpreter sample dot_general.mlir (from $STABLEHLO_INTERPRET, default
# $SHARED/stablehlo-interpret; skipped when missing). Ends with
# "N passed, N failed, N skipped".
SHARED=${SHARED:-../shared}
. "$(dirname "$0")/lib.sh"
lib_init dotalg
skipped=0

cat > "$tmp/cases.mlir" <<'EOF2'
// bf16 x1: 1 + 2^-9 (0x3F804000) rounds to bf16's 1 (its spacing at 1 is
// 2^-7), so the dot is 3, not the f32 dot's 3 + 2^-9.
func.func @bf16_rounds_operands() {
  %a = stablehlo.constant dense<[[0x3F804000, 1.0, 1.0]]> : tensor<1x3xf32>
  %b = stablehlo.constant dense<[[1.0], [1.0], [1.0]]> : tensor<3x1xf32>
  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], algorithm = <lhs_precision_type = bf16, rhs_precision_type = bf16, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false> : (tensor<1x3xf32>, tensor<3x1xf32>) -> tensor<1x1xf32>
  check.expect_eq_const %r, dense<3.0> : tensor<1x1xf32>
  func.return
}

// -----

// bf16 x3 (split emulation): the target is the operands' own precision,
// so the same dot is 3 + 2^-9 = 3.001953125.
func.func @bf16_x3_keeps_precision() {
  %a = stablehlo.constant dense<[[0x3F804000, 1.0, 1.0]]> : tensor<1x3xf32>
  %b = stablehlo.constant dense<[[1.0], [1.0], [1.0]]> : tensor<3x1xf32>
  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], algorithm = <lhs_precision_type = bf16, rhs_precision_type = bf16, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 3, allow_imprecise_accumulation = false> : (tensor<1x3xf32>, tensor<3x1xf32>) -> tensor<1x1xf32>
  check.expect_eq_const %r, dense<3.001953125> : tensor<1x1xf32>
  func.return
}

// -----

// tf32 (10 fraction bits, spacing 2^-10 at 1): 1 + 2^-12 (0x3F800800)
// rounds down to 1; 1 + 3·2^-11 (0x3F803000) is a tie between 1 + 2^-10
// and 1 + 2^-9 and goes to the even one, 1 + 2^-9. Sum 2 + 2^-9.
func.func @tf32_rounds_ties_to_even() {
  %a = stablehlo.constant dense<[[0x3F800800, 0x3F803000]]> : tensor<1x2xf32>
  %b = stablehlo.constant dense<[[1.0], [1.0]]> : tensor<2x1xf32>
  %r = "stablehlo.dot_general"(%a, %b) <{algorithm = #stablehlo.dot_algorithm<lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false>, dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<1x2xf32>, tensor<2x1xf32>) -> tensor<1x1xf32>
  check.expect_eq_const %r, dense<2.001953125> : tensor<1x1xf32>
  func.return
}

// -----

// f8E4M3FN (3 fraction bits): 0.3 = 1.2·2^-2 lies between 1.125·2^-2 and
// 1.25·2^-2 and rounds to 0.3125; rhs 3 is exact. 0.3125 · 3 = 0.9375.
func.func @f8e4m3fn_rounds_operands() {
  %a = stablehlo.constant dense<[[0.3]]> : tensor<1x1xf32>
  %b = stablehlo.constant dense<[[3.0]]> : tensor<1x1xf32>
  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], algorithm = <lhs_precision_type = f8E4M3FN, rhs_precision_type = f8E4M3FN, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = true> : (tensor<1x1xf32>, tensor<1x1xf32>) -> tensor<1x1xf32>
  check.expect_eq_const %r, dense<0.9375> : tensor<1x1xf32>
  func.return
}

// -----

// f16 precision: 70000 is beyond f16's largest value 65504 (and past the
// rounding midpoint 65520), so the operand becomes +inf and so does the dot.
func.func @f16_operand_overflows() {
  %a = stablehlo.constant dense<[[70000.0, 1.0]]> : tensor<1x2xf32>
  %b = stablehlo.constant dense<[[1.0], [1.0]]> : tensor<2x1xf32>
  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], algorithm = <lhs_precision_type = f16, rhs_precision_type = f16, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false> : (tensor<1x2xf32>, tensor<2x1xf32>) -> tensor<1x1xf32>
  check.expect_eq_const %r, dense<0x7F800000> : tensor<1x1xf32>
  func.return
}

// -----

// bf16 operands with bf16 precision (rounding is the identity) and bf16
// accumulation, batched: [[1, 2], [3, 4]] · [[5], [6]] = [[17], [39]].
func.func @bf16_bf16_bf16_batched() {
  %a = stablehlo.constant dense<[[[1.0, 2.0]], [[3.0, 4.0]]]> : tensor<2x1x2xbf16>
  %b = stablehlo.constant dense<[[[5.0], [6.0]], [[5.0], [6.0]]]> : tensor<2x2x1xbf16>
  %r = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT], algorithm = <lhs_precision_type = bf16, rhs_precision_type = bf16, accumulation_type = bf16, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false> : (tensor<2x1x2xbf16>, tensor<2x2x1xbf16>) -> tensor<2x1x1xbf16>
  check.expect_eq_const %r, dense<[[[17.0]], [[39.0]]]> : tensor<2x1x1xbf16>
  func.return
}

// -----

// An integer dot is exact integer arithmetic: 4097 needs 13 bits, more
// than tf32's 11, and stays 4097.
func.func @integer_dot_ignores_precision_types() {
  %a = stablehlo.constant dense<[[4097, 1]]> : tensor<1x2xi64>
  %b = stablehlo.constant dense<[[1], [1]]> : tensor<2x1xi64>
  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], algorithm = <lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false> : (tensor<1x2xi64>, tensor<2x1xi64>) -> tensor<1x1xi64>
  check.expect_eq_const %r, dense<4098> : tensor<1x1xi64>
  func.return
}
EOF2

for be in ref runtime; do
    "$PLUMB" run --no-arbitrate --backend $be --split-input-file "$tmp/cases.mlir" > "$tmp/out" 2>&1
    if [ "$(tail -n 1 "$tmp/out")" = "7 passed, 0 failed, 0 unsupported" ]; then
        ok "$be: the hand-derived algorithm dots"
    else
        fail "$be: the hand-derived algorithm dots"
    fi
done

# A parameter-fed dot, so that the runtime's packing rounds at run time:
# bf16 rounds 1 + 2^-9 (0x3F804000) to 1, so the dot is 3.
cat > "$tmp/p.mlir" <<'EOF2'
func.func @main(%a: tensor<1x3xf32>, %b: tensor<3x1xf32>) -> tensor<1x1xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], algorithm = <lhs_precision_type = bf16, rhs_precision_type = bf16, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false> : (tensor<1x3xf32>, tensor<3x1xf32>) -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}
EOF2
echo 'dense<[[0x3F804000, 1.0, 1.0]]> : tensor<1x3xf32>' > "$tmp/a.txt"
echo 'dense<[[1.0], [1.0], [1.0]]> : tensor<3x1xf32>' > "$tmp/b.txt"
for be in ref runtime; do
    if "$PLUMB" run --backend $be --input a="$tmp/a.txt" --input b="$tmp/b.txt" "$tmp/p.mlir" > "$tmp/out" 2>&1 &&
        [ "$(cat "$tmp/out")" = "tensor<1x1xf32> dense<3.0>" ]; then
        ok "$be: operands from parameters are rounded to bf16"
    else
        fail "$be: operands from parameters are rounded to bf16"
    fi
done

# The printer writes StableHLO's pretty form, which parses back to itself;
# the generic form prints the same way.
if "$PLUMB" fmt "$tmp/p.mlir" > "$tmp/f1.mlir" 2> "$tmp/out" && "$PLUMB" fmt "$tmp/f1.mlir" > "$tmp/f2.mlir" 2>> "$tmp/out" &&
    cmp -s "$tmp/f1.mlir" "$tmp/f2.mlir" && grep -q 'algorithm = <lhs_precision_type = bf16, rhs_precision_type = bf16, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false>' "$tmp/f1.mlir"; then
    ok "fmt: the algorithm round-trips"
else
    fail "fmt: the algorithm round-trips"
fi
sed -n '/@tf32_rounds_ties_to_even/,/^}/p' "$tmp/cases.mlir" > "$tmp/g.mlir"
if "$PLUMB" fmt "$tmp/g.mlir" > "$tmp/out" 2>&1 && grep -q 'algorithm = <lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32' "$tmp/out"; then
    ok "fmt: the generic #stablehlo.dot_algorithm form is read"
else
    fail "fmt: the generic #stablehlo.dot_algorithm form is read"
fi

# The cache key holds the algorithm: tf32 instead of bf16 is a recompile
# that names the attribute.
sed 's/_precision_type = bf16/_precision_type = tf32/g' "$tmp/p.mlir" > "$tmp/p2.mlir"
if "$PLUMB" explain "$tmp/p.mlir" "$tmp/p2.mlir" > "$tmp/out" 2>&1 && grep -q 'attribute algorithm' "$tmp/out"; then
    ok "explain: the algorithm is part of the cache key"
else
    fail "explain: the algorithm is part of the cache key"
fi

# verify_error ALG PREC MESSAGE: the verifier (or parser) rejects a dot of
# that algorithm body and precision clause with MESSAGE.
verify_error() {
    cat > "$tmp/e.mlir" <<EOF2
func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> tensor<2x2xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0]$2, algorithm = <$1> : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
EOF2
    if ! "$PLUMB" verify "$tmp/e.mlir" > "$tmp/out" 2>&1 && grep -qF "$3" "$tmp/out"; then
        ok "rejected: $3"
    else
        fail "rejected: $3"
    fi
}
F='lhs_precision_type = f32, rhs_precision_type = f32, accumulation_type = f32'
T='num_primitive_operations = 1, allow_imprecise_accumulation = false'
verify_error "$F, lhs_component_count = 0, rhs_component_count = 1, $T" "" \
    "lhs component count must be positive, found 0 (StableHLO C22)"
verify_error "$F, lhs_component_count = 1, rhs_component_count = -2, $T" "" \
    "rhs component count must be positive, found -2 (StableHLO C23)"
verify_error "$F, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 0, allow_imprecise_accumulation = false" "" \
    "num primitive operations must be positive, found 0 (StableHLO C24)"
verify_error "$F, lhs_component_count = 1, rhs_component_count = 1, $T" ", precision = [DEFAULT, HIGH]" \
    "must specify DEFAULT precision config when algorithm is set (StableHLO C21)"
verify_error "$F, lhs_component_count = 3, rhs_component_count = 1, $T" "" \
    "dot algorithm not known to be supported on any hardware: {lhs:'f32', rhs:'f32', accum:'f32', lhs_components:3, rhs_components:1, primitive_ops:1, imprecise:0}"
verify_error "$F, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = true" "" \
    "imprecise:1}"
verify_error "lhs_precision_type = i32, rhs_precision_type = f32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, $T" "" \
    "lhs_precision_type must be a float type or tf32 (StableHLO I8), found 'i32'"
verify_error "$F, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1" "" \
    "dot algorithm lacks the field 'allow_imprecise_accumulation'"
verify_error "$F, lhs_component_count = 1, lhs_component_count = 1, rhs_component_count = 1, $T" "" \
    "dot algorithm field 'lhs_component_count' is given twice"
if "$PLUMB" verify "$tmp/p.mlir" > "$tmp/out" 2>&1; then
    ok "accepted: a known algorithm"
else
    fail "accepted: a known algorithm"
fi

# StableHLO's interpreter sample (an i64 dot with a tf32 algorithm).
sample="${STABLEHLO_INTERPRET:-$SHARED/stablehlo-interpret}/dot_general.mlir"
if [ -f "$sample" ]; then
    for be in ref runtime; do
        "$PLUMB" run --backend $be --split-input-file "$sample" > "$tmp/out" 2>&1
        if tail -n 1 "$tmp/out" | grep -q '^[0-9]* passed, 0 failed, 0 unsupported$'; then
            ok "$be: $sample"
        else
            fail "$be: $sample"
        fi
    done
else
    echo "skipped: StableHLO interpreter test files not found; set STABLEHLO_INTERPRET=DIR (see README)"
    skipped=$((skipped + 1))
fi
finish
