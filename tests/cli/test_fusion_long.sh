#!/bin/sh
# A chain longer than one fused kernel can hold (4096 values,
# runtime/rt_fusion.h RT_MAX_VALS) is split into several groups rather than
# the program being refused: an elementwise chain of 4,201 ops and a row
# chain of 1,100 reduce / broadcast_in_dim / add / tanh steps compile on the
# runtime and agree with the reference (run --compare). Value derived by
# hand: with x = 0 every step gives tanh(0 + 0) = 0 (the row chain: the
# row sums of 0 are 0), so the result is exactly 0.
# Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"
lib_init fuselong

# ew_chain N: a_{i+1} = tanh(a_i + x), N steps
ew_chain() {
    echo 'func.func @main(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {'
    echo '  %a0 = stablehlo.tanh %x : tensor<8x4xf32>'
    i=0
    while [ $i -lt "$1" ]; do
        j=$((i + 1))
        echo "  %b$i = stablehlo.add %a$i, %x : tensor<8x4xf32>"
        echo "  %a$j = stablehlo.tanh %b$i : tensor<8x4xf32>"
        i=$j
    done
    echo "  return %a$1 : tensor<8x4xf32>"
    echo '}'
}
# row_chain N: a_{i+1} = tanh(a_i + broadcast(rowsum(a_i))), N steps
row_chain() {
    echo 'func.func @main(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {'
    echo '  %z = stablehlo.constant dense<0.0> : tensor<f32>'
    echo '  %a0 = stablehlo.tanh %x : tensor<8x4xf32>'
    i=0
    while [ $i -lt "$1" ]; do
        j=$((i + 1))
        echo "  %r$i = stablehlo.reduce(%a$i init: %z) applies stablehlo.add across dimensions = [1] : (tensor<8x4xf32>, tensor<f32>) -> tensor<8xf32>"
        echo "  %c$i = stablehlo.broadcast_in_dim %r$i, dims = [0] : (tensor<8xf32>) -> tensor<8x4xf32>"
        echo "  %b$i = stablehlo.add %a$i, %c$i : tensor<8x4xf32>"
        echo "  %a$j = stablehlo.tanh %b$i : tensor<8x4xf32>"
        i=$j
    done
    echo "  return %a$1 : tensor<8x4xf32>"
    echo '}'
}
ew_chain 2100 > "$tmp/ew.mlir"
row_chain 1100 > "$tmp/row.mlir"
echo 'dense<0.0> : tensor<8x4xf32>' > "$tmp/zero.txt"
echo 'tensor<8x4xf32> dense<0.0>' > "$tmp/zero.want"

for prog in ew row; do
    if "$PLUMB" run --backend runtime --random-inputs 1 --compare "$tmp/$prog.mlir" > "$tmp/out" 2>&1 &&
       ! grep -q -E "EXCEEDS|MISMATCH" "$tmp/out" && grep -q "^result 0" "$tmp/out"; then
        ok "$prog chain: compiles on the runtime and agrees with the reference"
    else
        fail "$prog chain: compiles on the runtime and agrees with the reference"
    fi
    if "$PLUMB" run --backend runtime --input x="$tmp/zero.txt" "$tmp/$prog.mlir" > "$tmp/out" 2>&1 &&
       cmp -s "$tmp/out" "$tmp/zero.want"; then
        ok "$prog chain: x = 0 gives exactly 0"
    else
        fail "$prog chain: x = 0 gives exactly 0"
    fi
done
finish
