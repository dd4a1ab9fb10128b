#!/bin/sh
# make_inputs.sh DIR N [N...]: writes text tensor files for encoder.mlir into
# DIR: ids_N.txt for each length N (token ids (7j + 3) mod 64, every one a
# row of the embedding table), and emb.txt, gamma.txt, beta.txt, wq.txt,
# wk.txt, wv.txt, w1.txt, w2.txt.
#
# The values are chosen so that every op of the encoder is exact in f32:
# every sum and product is representable, and rsqrt and exp meet exactly
# representable results (1/a_r, exp(0) = 1), which faithful rounding
# returns unchanged. Any correct executor, whatever its order of
# accumulation, must then return the reference's bits, so a difference is a
# bug (a wrong extent, stride or stale row), not rounding.
#   - embedding row r is m_r + a_r * t_rj, where t_rj is +1 for the 16
#     columns j with (j + r) mod 32 < 16 and -1 for the other 16, m_r a
#     multiple of 1/8 and a_r = 16, 32 or 64: the row sum 32 m_r, the mean
#     m_r, the deviations +-a_r and the variance a_r^2 are exact; a_r^2 >=
#     256 makes a_r^2 + 1e-5 round to a_r^2 (1e-5 is below half an ULP of
#     256, 2^-16), whose rsqrt 1/a_r is a power of two, so the normalized
#     row is exactly t_rj (a sign pattern of its own for each id mod 32, so
#     the rows of the result differ);
#   - gamma and beta are multiples of 1/8 in [-1/2, 1/2], wk, w1, w2
#     multiples of 1/16 in [-1/4, 1/4]: every dot product sums exact terms
#     far inside f32's 24 bits;
#   - wq is 0, so every score is 0, exp(0) = 1 and each probability is 1/n,
#     one correctly rounded division; wv is 0, so the attention adds 0.
# Used by tests/cli/test_encoder.sh and examples/encoder/README.md; POSIX sh
# and awk only.
set -e
if [ $# -lt 2 ]; then
    echo "usage: make_inputs.sh DIR N [N...]" >&2
    exit 2
fi
dir=$1
shift
mkdir -p "$dir"

# matrix NAME ROWS COLS EXPR: a ROWS x COLS f32 tensor whose element (i, j)
# is the awk expression EXPR (of i and j).
matrix() {
    awk -v rows="$2" -v cols="$3" "
        function v(i, j) { return $4 }
        BEGIN {
            printf \"dense<[\"
            for (i = 0; i < rows; i++) {
                printf \"%s[\", i ? \", \" : \"\"
                for (j = 0; j < cols; j++)
                    printf \"%s%.10g\", j ? \", \" : \"\", v(i, j)
                printf \"]\"
            }
            printf \"]> : tensor<%dx%dxf32>\\n\", rows, cols
        }" > "$dir/$1.txt"
}
# vector NAME LEN EXPR: the same for a vector, EXPR of i.
vector() {
    awk -v len="$2" "
        function v(i) { return $3 }
        BEGIN {
            printf \"dense<[\"
            for (i = 0; i < len; i++)
                printf \"%s%.10g\", i ? \", \" : \"\", v(i)
            printf \"]> : tensor<%dxf32>\\n\", len
        }" > "$dir/$1.txt"
}

matrix emb 64 32 '((i * 5) % 17 - 8) / 8 + ((i + j) % 32 < 16 ? 1 : -1) * 16 * 2 ^ (i % 3)'
vector gamma 32 '((i * 2 + 1) % 9 - 4) / 8'
vector beta 32 '((i * 5 + 1) % 9 - 4) / 8'
matrix wq 32 32 '0'
matrix wk 32 32 '((i * 7 + j * 3) % 9 - 4) / 16'
matrix wv 32 32 '0'
matrix w1 32 64 '((i * 5 + j * 11 + 2) % 9 - 4) / 16'
matrix w2 64 32 '((i * 13 + j * 2 + 5) % 9 - 4) / 16'
for n in "$@"; do
    awk -v n="$n" 'BEGIN {
        printf "dense<["
        for (j = 0; j < n; j++)
            printf "%s%d", j ? ", " : "", (7 * j + 3) % 64
        printf "]> : tensor<%dxi32>\n", n
    }' > "$dir/ids_$n.txt"
done
