#!/bin/sh
# fft and the batch_norm ops on polymorphic ('?') batch dimensions, as JAX's
# batched (vmap) exports write them: the run-time shape rules give fft the
# operand's dims with RFFT's last dim fft_length/2 + 1, and batch_norm's
# per-feature results the size of the feature dimension, on both backends,
# with results worked out by hand. Ends with "N passed, N failed".
PLUMB=${PLUMB:-${BUILD:-build}/plumb}
. "$(dirname "$0")/lib.sh"
lib_init dynfftbn
need_plumb
# same DESCRIPTION LINE...: stdout of the last run is exactly the LINEs.
same() {
    d=$1
    shift
    printf '%s\n' "$@" > "$tmp/want"
    if [ "$rc" = 0 ] && cmp -s "$tmp/want" "$tmp/out"; then
        ok "$d"
    else
        diff "$tmp/want" "$tmp/out" | head -n 6 >> "$tmp/err"
        fail "$d (exit $rc)"
    fi
}

cat > "$tmp/rfft.mlir" <<'EOF'
func.func @main(%x: tensor<?x4xf32>) -> tensor<?x3xcomplex<f32>> {
  %0 = stablehlo.fft %x, type = RFFT, length = [4] : (tensor<?x4xf32>) -> tensor<?x3xcomplex<f32>>
  return %0 : tensor<?x3xcomplex<f32>>
}
EOF
cat > "$tmp/fft.mlir" <<'EOF'
func.func @main(%x: tensor<?x4xcomplex<f32>>) -> tensor<?x4xcomplex<f32>> {
  %0 = stablehlo.fft %x, type = FFT, length = [4] : (tensor<?x4xcomplex<f32>>) -> tensor<?x4xcomplex<f32>>
  return %0 : tensor<?x4xcomplex<f32>>
}
EOF
cat > "$tmp/bnt.mlir" <<'EOF'
func.func @main(%x: tensor<?x2xf32>) -> (tensor<?x2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %s = stablehlo.constant dense<1.0> : tensor<2xf32>
  %o = stablehlo.constant dense<0.0> : tensor<2xf32>
  %0:3 = "stablehlo.batch_norm_training"(%x, %s, %o) {epsilon = 0.0 : f32, feature_index = 1 : i64} : (tensor<?x2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<?x2xf32>, tensor<2xf32>, tensor<2xf32>)
  return %0#0, %0#1, %0#2 : tensor<?x2xf32>, tensor<2xf32>, tensor<2xf32>
}
EOF
cat > "$tmp/bni.mlir" <<'EOF'
func.func @main(%x: tensor<?x2xf32>) -> tensor<?x2xf32> {
  %s = stablehlo.constant dense<[2.0, 1.0]> : tensor<2xf32>
  %o = stablehlo.constant dense<[0.0, 1.0]> : tensor<2xf32>
  %m = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %v = stablehlo.constant dense<[4.0, 1.0]> : tensor<2xf32>
  %0 = "stablehlo.batch_norm_inference"(%x, %s, %o, %m, %v) {epsilon = 0.0 : f32, feature_index = 1 : i64} : (tensor<?x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<?x2xf32>
  return %0 : tensor<?x2xf32>
}
EOF
# RFFT of [1, 2, 3, 4]: X0 = 10, X1 = 1 - 2i - 3 + 4i = -2 + 2i, X2 = 1 - 2 + 3 - 4 = -2;
# of [1, 1, 1, 1]: 4, 0, 0. FFT of the impulse (1, 0, 0, 0) is all ones.
echo 'dense<[[1.0, 2.0, 3.0, 4.0], [1.0, 1.0, 1.0, 1.0]]> : tensor<2x4xf32>' > "$tmp/x24.txt"
echo 'dense<[[(1.0, 0.0), (0.0, 0.0), (0.0, 0.0), (0.0, 0.0)]]> : tensor<1x4xcomplex<f32>>' > "$tmp/c14.txt"
# batch_norm_training over rows [1, 2] and [3, 6]: means [2, 4], variances
# [1, 4] (population), normalized [-1, -1] and [1, 1].
echo 'dense<[[1.0, 2.0], [3.0, 6.0]]> : tensor<2x2xf32>' > "$tmp/x22.txt"
# batch_norm_inference: (x - m) / sqrt(v) * s + o per feature: row [3, 4]
# gives [(3-1)/2*2 + 0, (4-2)/1*1 + 1] = [2, 3]; rows [1, 2] [5, 0] [-1, 3]
# give [0, 1], [4, -1], [-2, 2].
echo 'dense<[[3.0, 4.0], [1.0, 2.0], [5.0, 0.0], [-1.0, 3.0]]> : tensor<4x2xf32>' > "$tmp/x42.txt"
for be in ref runtime; do
    run "$PLUMB" run --backend $be --input x="$tmp/x24.txt" "$tmp/rfft.mlir"
    same "$be: RFFT on a '?' batch of 2 (by hand)" \
        'tensor<2x3xcomplex<f32>> dense<[[(10.0,0.0), (-2.0,2.0), (-2.0,0.0)], [(4.0,0.0), (0.0,0.0), (0.0,0.0)]]>'
    run "$PLUMB" run --backend $be --input x="$tmp/c14.txt" "$tmp/fft.mlir"
    same "$be: FFT on a '?' batch of 1 (by hand)" 'tensor<1x4xcomplex<f32>> dense<(1.0,0.0)>'
    run "$PLUMB" run --backend $be --input x="$tmp/x22.txt" "$tmp/bnt.mlir"
    same "$be: batch_norm_training on a '?' batch of 2 (by hand)" 'tensor<2x2xf32> dense<[[-1.0, -1.0], [1.0, 1.0]]>' \
        'tensor<2xf32> dense<[2.0, 4.0]>' 'tensor<2xf32> dense<[1.0, 4.0]>'
    run "$PLUMB" run --backend $be --input x="$tmp/x42.txt" "$tmp/bni.mlir"
    same "$be: batch_norm_inference on a '?' batch of 4 (by hand)" \
        'tensor<4x2xf32> dense<[[2.0, 3.0], [0.0, 1.0], [4.0, -1.0], [-2.0, 2.0]]>'
done
finish
