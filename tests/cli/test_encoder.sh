#!/bin/sh
# Issue 13's encoder scenario from the command line: the polymorphic
# encoder examples/encoder/encoder.mlir (sequence length '?' bounded by 64)
# at 20 lengths within 1..64.
#  - exact inputs (examples/encoder/make_inputs.sh: every op exact in f32):
#    at every length --compare finds the runtime bit-identical to the
#    reference, and the runtime's bits equal the result derived by hand
#    (in awk, from the input files: layer_norm gives each row's sign
#    pattern, the attention adds 0, then the residual MLP);
#  - generated weights (--random-inputs) with valid ids: --compare passes at
#    every length with the actual shape;
#  - one runtime session over the 20 lengths: exactly 1 compile, 19 cache
#    hits (--stats --json); length 65 is refused naming the parameter and
#    dimension, with no second compile;
#  - static twins: the runtime's bytes on the polymorphic program equal its
#    bytes on the program refined to that length (plumb refine, a static
#    compile).
# Run from the repository's top folder. Ends with "N passed, N failed".
BUILD=${BUILD:-build}
PLUMB=${PLUMB:-$BUILD/plumb}
ENC=examples/encoder/encoder.mlir
. "$(dirname "$0")/lib.sh"
lib_init encoder

# run CMD...: stdout in $tmp/out, stderr in $tmp/err, status in $rc.
# has FILE TEXT DESCRIPTION: FILE contains TEXT (fixed string).
has() {
    if grep -F -q -- "$2" "$1"; then ok "$3"; else fail "$3 ('$2' not in $(basename "$1"))"; fi
}
# hasnt FILE TEXT DESCRIPTION: FILE does not contain TEXT.
hasnt() {
    if grep -F -q -- "$2" "$1"; then fail "$3 ('$2' found in $(basename "$1"))"; else ok "$3"; fi
}
# jq_is FILE FILTER VALUE DESCRIPTION: jq -r FILTER on FILE prints VALUE.
jq_is() {
    v=$(jq -r "$2" "$1" 2> /dev/null)
    if [ "$v" = "$3" ]; then ok "$4"; else fail "$4 ($2 is '$v', expected $3)"; fi
}

if [ ! -x "$PLUMB" ]; then
    fail "the plumb binary '$PLUMB' exists and is executable"
    finish
fi
if [ ! -f "$ENC" ]; then
    fail "$ENC exists (run from the repository's top folder)"
    finish
fi

# 20 lengths within the bound: both ends, powers of two and their
# neighbours (tile and row-block edges), odd sizes.
LENGTHS="1 2 3 4 5 7 8 9 13 16 17 23 31 32 33 40 47 55 63 64"
LIST=$(echo $LENGTHS | tr ' ' ',')

run "$PLUMB" verify "$ENC"
expect_rc "plumb verify accepts the polymorphic encoder" 0
has "$ENC" "tensor<?xi32, #stablehlo.bounds<64>>" "the sequence length is '?' bounded by 64"

if ! sh examples/encoder/make_inputs.sh "$tmp/in" $LENGTHS 65 > /dev/null 2> "$tmp/err"; then
    fail "examples/encoder/make_inputs.sh writes the exact inputs"
    finish
fi
W="--input emb=$tmp/in/emb.txt --input gamma=$tmp/in/gamma.txt --input beta=$tmp/in/beta.txt"
W="$W --input wq=$tmp/in/wq.txt --input wk=$tmp/in/wk.txt --input wv=$tmp/in/wv.txt"
W="$W --input w1=$tmp/in/w1.txt --input w2=$tmp/in/w2.txt"

# expected_hex N: the result at length N on the exact inputs, derived by
# hand, as --hex prints it (f32 little-endian bytes). Row p has id
# r = ids[p]. layer_norm: x - mean is +-a_r (the sign of emb[r][j] - mean_r)
# and sqrt(a_r^2 + 1e-5) rounds to a_r in f32, so the normalized row is the
# sign pattern t; h = t * gamma + beta. wq = 0 makes every score 0 and
# wv = 0 the attention 0, so r1 = h; out = h + max(h w1, 0) w2. Every value
# is a short dyadic number, exact in awk's doubles and in f32.
expected_hex() {
    awk -v dir="$tmp/in" -v len="$1" '
        function load(file, a,    line, s, n, i, v) {
            line = ""
            while ((getline s < file) > 0)
                line = line s
            close(file)
            sub(/^dense</, "", line)
            sub(/>.*$/, "", line)
            gsub(/[][ ]/, "", line)
            n = split(line, v, ",")
            for (i = 1; i <= n; i++)
                a[i - 1] = v[i] + 0
            return n
        }
        # the 8 hex digits of f32 x (exactly representable), low byte first
        function hex(x,    sign, e, bits, s, k) {
            if (x == 0)
                return "00000000"
            sign = 0
            if (x < 0) { sign = 1; x = -x }
            e = 0
            while (x >= 2) { x /= 2; e++ }
            while (x < 1) { x *= 2; e-- }
            bits = sign * 2147483648 + (e + 127) * 8388608 + (x - 1) * 8388608
            s = ""
            for (k = 0; k < 4; k++) {
                s = s sprintf("%02X", bits % 256)
                bits = int(bits / 256)
            }
            return s
        }
        BEGIN {
            D = 32; F = 64
            n = load(dir "/ids_" len ".txt", ids)
            load(dir "/emb.txt", emb); load(dir "/gamma.txt", g); load(dir "/beta.txt", b)
            load(dir "/w1.txt", w1); load(dir "/w2.txt", w2)
            out = ""
            for (p = 0; p < n; p++) {
                r = ids[p]
                mean = 0
                for (j = 0; j < D; j++) mean += emb[r * D + j]
                mean /= D
                for (j = 0; j < D; j++) h[j] = (emb[r * D + j] > mean ? 1 : -1) * g[j] + b[j]
                for (k = 0; k < F; k++) {
                    m = 0
                    for (j = 0; j < D; j++) m += h[j] * w1[j * F + k]
                    m1[k] = m > 0 ? m : 0
                }
                for (c = 0; c < D; c++) {
                    m = 0
                    for (k = 0; k < F; k++) m += m1[k] * w2[k * D + c]
                    out = out hex(h[c] + m)
                }
            }
            printf "tensor<%dx32xf32> dense<\"0x%s\">\n", n, out
        }'
}

# ---- exact inputs: bit-identical to the reference and to the hand derivation ----
for n in $LENGTHS; do
    run "$PLUMB" run --compare --input ids="$tmp/in/ids_$n.txt" $W "$ENC"
    expect_rc "length $n: --compare on exact inputs exits 0" 0
    has "$tmp/out" "result 0 tensor<${n}x32xf32>: composite: bit-identical to the reference" \
        "length $n: the runtime's result is bit-identical to the reference's"
    run "$PLUMB" run --backend runtime --hex --input ids="$tmp/in/ids_$n.txt" $W "$ENC"
    expected_hex "$n" > "$tmp/want"
    if [ "$rc" = 0 ] && cmp -s "$tmp/want" "$tmp/out"; then
        ok "length $n: the runtime's bits equal the result derived by hand"
    else
        fail "length $n: the runtime's bits equal the result derived by hand (exit $rc)"
    fi
done
# The derivation holds for the reference too (at the ends and an odd length).
for n in 1 23 64; do
    run "$PLUMB" run --backend ref --hex --input ids="$tmp/in/ids_$n.txt" $W "$ENC"
    expected_hex "$n" > "$tmp/want"
    if [ "$rc" = 0 ] && cmp -s "$tmp/want" "$tmp/out"; then
        ok "length $n: the reference's bits equal the result derived by hand"
    else
        fail "length $n: the reference's bits equal the result derived by hand (exit $rc)"
    fi
done

# ---- generated weights, valid ids: --compare at every length ----------------------
# The result is composite (many ops), so --compare states no per-op bound
# for it: it must agree in shape and report no result outside a bound.
for n in $LENGTHS; do
    run "$PLUMB" run --compare --random-inputs "$n" --input ids="$tmp/in/ids_$n.txt" "$ENC"
    expect_rc "length $n: --compare on generated weights exits 0" 0
    has "$tmp/out" "result 0 tensor<${n}x32xf32>: composite:" "length $n: both backends give shape ${n}x32"
    hasnt "$tmp/err" "outside their bound" "length $n: no result outside its bound"
done

# ---- one runtime session over the 20 lengths: one compile ---------------------------
run "$PLUMB" run --backend runtime --stats --json --error-on-recompile --random-inputs 1 --dim-size "$LIST" \
    --repeat 20 "$ENC"
expect_rc "one session runs the 20 lengths" 0
heads=$(grep -c '^// ' "$tmp/out")
if [ "$heads" = 20 ]; then ok "the session made 20 runs"; else fail "the session made 20 runs ($heads)"; fi
grep -o 'tensor<[0-9]*x32xf32>' "$tmp/out" | sed 's/tensor<\([0-9]*\)x32xf32>/\1/' | tr '\n' ' ' > "$tmp/sizes"
if [ "$(cat "$tmp/sizes")" = "$LENGTHS " ]; then
    ok "run r has the r-th length"
else
    fail "run r has the r-th length (got $(cat "$tmp/sizes"))"
fi
grep '"entry": null' "$tmp/err" > "$tmp/total.json"
jq_is "$tmp/total.json" '.stats.programs' 1 "--stats --json: 1 program"
jq_is "$tmp/total.json" '.stats.compiles' 1 "--stats --json: exactly 1 compile for 20 lengths"
jq_is "$tmp/total.json" '.stats.recompiles' 0 "--stats --json: no recompile"
jq_is "$tmp/total.json" '.stats.cache_hits' 19 "--stats --json: 19 cache hits"
jq_is "$tmp/total.json" '.stats.runs' 20 "--stats --json: 20 runs"

# ---- length 65, above the bound --------------------------------------------------------
# After the 20 lengths, in the same session: refused naming the parameter and
# dimension, and nothing compiled again.
run "$PLUMB" run --backend runtime --stats --random-inputs 1 --dim-size "$LIST,65" --repeat 21 "$ENC"
expect_rc "length 65 after the 20 lengths is refused (exit 2)" 2
has "$tmp/err" "@main parameter 0 (%ids) dimension 0: size 65 exceeds its bound 64" \
    "the error names the parameter, the dimension, the size and the bound"
has "$tmp/err" "plumb: stats total: 1 programs, 1 compiles (0 recompiles), 19 cache hits" \
    "no second compile for length 65"
has "$tmp/err" " 20 runs," "the 20 runs within the bound ran"
# An input file of length 65: refused before anything compiles.
for be in runtime ref; do
    run "$PLUMB" run --backend $be --stats --input ids="$tmp/in/ids_65.txt" $W "$ENC"
    expect_rc "$be: an ids file of length 65 is refused (exit 2)" 2
    has "$tmp/err" "@main parameter 0 (%ids) dimension 0: size 65 exceeds its bound 64" \
        "$be: the error names the parameter, the dimension, the size and the bound"
done
hasnt "$tmp/out" "tensor<" "no result is printed for length 65"

# ---- static twins: the polymorphic program's bytes are a static compile's --------------
# Generated weights (not exact): the bytes depend on the order of every
# accumulation, so equality means the same kernels ran over the same extents.
for n in 1 17 64; do
    run "$PLUMB" refine "$ENC" --shape ids="$n" -o "$tmp/static_$n.mlir"
    expect_rc "length $n: plumb refine specializes the encoder" 0
    hasnt "$tmp/static_$n.mlir" "?" "length $n: the refined program is static"
    run "$PLUMB" run --backend runtime --hex --random-inputs 7 --input 0="$tmp/in/ids_$n.txt" "$ENC"
    cp "$tmp/out" "$tmp/poly_$n.hex"
    run "$PLUMB" run --backend runtime --hex --random-inputs 7 --input 0="$tmp/in/ids_$n.txt" "$tmp/static_$n.mlir"
    cp "$tmp/out" "$tmp/static_$n.hex"
    if [ -s "$tmp/poly_$n.hex" ] && grep -q "tensor<${n}x32xf32> dense<\"0x" "$tmp/poly_$n.hex" &&
        cmp -s "$tmp/poly_$n.hex" "$tmp/static_$n.hex"; then
        ok "length $n: the polymorphic program's result is byte-identical to the static compile's"
    else
        fail "length $n: the polymorphic program's result is byte-identical to the static compile's"
    fi
    # the same through --output-dir files
    "$PLUMB" run --backend runtime --random-inputs 7 --input 0="$tmp/in/ids_$n.txt" --output-dir "$tmp/po_$n" \
        "$ENC" > /dev/null 2> "$tmp/err"
    "$PLUMB" run --backend runtime --random-inputs 7 --input 0="$tmp/in/ids_$n.txt" --output-dir "$tmp/so_$n" \
        "$tmp/static_$n.mlir" > /dev/null 2>> "$tmp/err"
    if [ -s "$tmp/po_$n/result_0.tensor" ] && cmp -s "$tmp/po_$n/result_0.tensor" "$tmp/so_$n/result_0.tensor"; then
        ok "length $n: the --output-dir tensor files are identical (cmp)"
    else
        fail "length $n: the --output-dir tensor files are identical (cmp)"
    fi
done

finish
