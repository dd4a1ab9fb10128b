#!/bin/sh
# `stablehlo.custom_call @mhlo.NAME(...) {mhlo.attributes = {...},
# mhlo.version = 1 : i64}`: XLA's MHLO-to-StableHLO legalization writes the
# MHLO ops StableHLO lacks this way, and JAX / torch-xla exports carry GELU's
# erf as @mhlo.erf and top-k as @mhlo.topk. plumb reads them as chlo.erf
# (any elementwise op it has under its chlo or stablehlo name) and
# chlo.top_k. Values by hand: erf(0) = 0, erf(0.5) = 0.5204998778...,
# erf(-1) = -0.8427007929..., erf(inf) = 1 (tables, rounded to f32); the
# top two of [1, 3, 2] are 3, 2 at 1, 2 and of [5, 4, 6] 6, 5 at 2, 0.
. "$(dirname "$0")/lib.sh"
lib_init mhlo_custom_call
need_plumb

cat > "$tmp/m.mlir" <<'P'
func.func @main() -> (tensor<4xf32>, tensor<2x2xf32>, tensor<2x2xi32>) {
  %x = stablehlo.constant dense<[0.0, 0.5, -1.0, 0x7F800000]> : tensor<4xf32>
  %a = stablehlo.custom_call @mhlo.erf(%x) {mhlo.attributes = {}, mhlo.version = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  %y = stablehlo.constant dense<[[1.0, 3.0, 2.0], [5.0, 4.0, 6.0]]> : tensor<2x3xf32>
  %t:2 = stablehlo.custom_call @mhlo.topk(%y) {mhlo.attributes = {k = 2 : i64, largest = true}, mhlo.version = 1 : i64} : (tensor<2x3xf32>) -> (tensor<2x2xf32>, tensor<2x2xi32>)
  return %a, %t#0, %t#1 : tensor<4xf32>, tensor<2x2xf32>, tensor<2x2xi32>
}
P
want='tensor<4xf32> dense<[0.0, 0.5204999, -0.8427008, 1.0]>
tensor<2x2xf32> dense<[[3.0, 2.0], [6.0, 5.0]]>
tensor<2x2xi32> dense<[[1, 2], [2, 0]]>'
expect_both "@mhlo.erf and @mhlo.topk" "$want" "$tmp/m.mlir"

# The generic spelling, with the older empty backend_config.
cat > "$tmp/g.mlir" <<'P'
func.func @main() -> tensor<2xf32> {
  %x = stablehlo.constant dense<[0.0, -1.0]> : tensor<2xf32>
  %a = "stablehlo.custom_call"(%x) <{backend_config = "", call_target_name = "mhlo.erf"}> {mhlo.attributes = {}, mhlo.version = 1 : i64} : (tensor<2xf32>) -> tensor<2xf32>
  return %a : tensor<2xf32>
}
P
expect_both "generic @mhlo.erf" "tensor<2xf32> dense<[0.0, -0.8427008]>" "$tmp/g.mlir"

# The canonical form names the ops themselves and formats to itself.
run "$PLUMB" fmt "$tmp/m.mlir"
cp "$tmp/out" "$tmp/once.mlir"
if [ "$rc" = 0 ] && grep -q 'chlo.erf' "$tmp/once.mlir" && grep -q 'chlo.top_k' "$tmp/once.mlir" && ! grep -q mhlo "$tmp/once.mlir"; then
    ok "fmt writes chlo.erf and chlo.top_k"
else
    fail "fmt writes chlo.erf and chlo.top_k"
fi
run "$PLUMB" fmt "$tmp/once.mlir"
if [ "$rc" = 0 ] && cmp -s "$tmp/out" "$tmp/once.mlir"; then ok "fmt is idempotent"; else fail "fmt is idempotent"; fi

# What has no plumb meaning is refused with its position.
sed 's/largest = true/largest = false/' "$tmp/m.mlir" > "$tmp/b1.mlir"
expect_refused "topk largest = false" "$tmp/b1.mlir" "b1.mlir:5:" "largest = false"
sed 's/mhlo.attributes = {k = 2 : i64, largest = true}/mhlo.attributes = {}/' "$tmp/m.mlir" > "$tmp/b2.mlir"
expect_refused "topk without k" "$tmp/b2.mlir" "b2.mlir:5:" "k = N"
sed 's/@mhlo.erf(%x) {mhlo.attributes = {}/@mhlo.erf(%x) {mhlo.attributes = {foo = 1 : i64}/' "$tmp/m.mlir" > "$tmp/b3.mlir"
expect_refused "an attribute erf does not take" "$tmp/b3.mlir" "b3.mlir:3:" "mhlo.attributes 'foo'"
sed 's/@mhlo.erf/@mhlo.fusion/' "$tmp/m.mlir" > "$tmp/b4.mlir"
expect_refused "an MHLO op plumb does not have" "$tmp/b4.mlir" "b4.mlir:3:" "custom_call target '@mhlo.fusion'"
# mhlo.attributes is read token by token (review5): nothing after a value is
# skipped unread. Each broken dict is refused at the column of the first
# token that does not fit; the column is found here by awk in the text, and
# the values of the accepted forms are the hand values above.
col5() { awk -v p="$2" 'NR == 5 { print index($0, p) }' "$1"; }
sed 's/k = 2 : i64, largest = true/k = 2 : i64 largest = false/' "$tmp/m.mlir" > "$tmp/c1.mlir"
expect_refused "a missing comma (largest = false was dropped)" "$tmp/c1.mlir" "c1.mlir:5:$(col5 "$tmp/c1.mlir" 'largest'):" "expected '}'"
sed 's/k = 2 : i64/k = 2.9 : i64/' "$tmp/m.mlir" > "$tmp/c2.mlir"
expect_refused "a fractional k" "$tmp/c2.mlir" "c2.mlir:5:$(col5 "$tmp/c2.mlir" '2.9'):" "k is not a count"
sed 's/k = 2 : i64/k = 5 : i64, k = 2 : i64/' "$tmp/m.mlir" > "$tmp/c3.mlir"
expect_refused "k written twice" "$tmp/c3.mlir" "c3.mlir:5:$(col5 "$tmp/c3.mlir" 'k = 2'):" "'k' twice"
sed 's/largest = true/largest = trueish/' "$tmp/m.mlir" > "$tmp/c4.mlir"
expect_refused "largest = trueish" "$tmp/c4.mlir" "c4.mlir:5:$(col5 "$tmp/c4.mlir" 'trueish'):" "'true' or 'false'"
sed 's/k = 2 : i64/k = 2 : f32/' "$tmp/m.mlir" > "$tmp/c5.mlir"
expect_refused "k of a float type" "$tmp/c5.mlir" "c5.mlir:5:$(col5 "$tmp/c5.mlir" 'f32'):" "found type 'f32'"
sed 's/largest = true}/largest = true, largest = true}/' "$tmp/m.mlir" > "$tmp/c6.mlir"
expect_refused "largest written twice" "$tmp/c6.mlir" "c6.mlir:5:$(col5 "$tmp/c6.mlir" 'largest = true}'):" "'largest' twice"
sed 's/k = 2 : i64/k = -1 : i64/' "$tmp/m.mlir" > "$tmp/c7.mlir"
expect_refused "a negative k" "$tmp/c7.mlir" "c7.mlir:5:$(col5 "$tmp/c7.mlir" '-1'):" "k is not a count"
# MLIR's hex integer 0x2 is 2; a dict split over lines reads as on one line.
sed 's/k = 2 : i64/k = 0x2 : ui64/' "$tmp/m.mlir" > "$tmp/h.mlir"
expect_both "hex k = 0x2 : ui64" "$want" "$tmp/h.mlir"
sed 's/k = 2 : i64, largest = true}/k = 2 : i64,\n      largest = true}/' "$tmp/m.mlir" > "$tmp/ml.mlir"
expect_both "a dict over two lines" "$want" "$tmp/ml.mlir"
finish
