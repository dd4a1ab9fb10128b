#!/bin/sh
# Writes the seed scenario programs (docs/scenarios.md) into DIR (default:
# the folder this script is in). The programs are checked in; this script is
# how they were made, and tests/cli/test_scenarios.sh checks that it still
# writes exactly the files in scenarios/ (so edit here, then rerun it).
# Each scenario is one torch_xla recompile leak from
# ../shared/context/recompilation-hell-torch-xla.txt: leak/ holds the
# program a front end traces at each step, fix/ the program after the fix.
set -eu
out=${1:-$(dirname "$0")}

# hdr FILE LINE...: the comment lines a program starts with
hdr() {
    f=$1
    shift
    mkdir -p "$(dirname "$f")"
    : > "$f"
    for l in "$@"; do printf '// %s\n' "$l" >> "$f"; done
}

# 1. baked learning rate: the scheduler's learning rate (a Python float) is
# traced into the step as a constant; it changes every step.
d=$out/baked-learning-rate
for k in $(seq 1 20); do
    f=$(printf '%s/leak/step%02d.mlir' "$d" "$k")
    lr=$(printf '0.%03d' "$k")
    hdr "$f" "baked learning rate, step $k of 20: the warm-up schedule's lr = $lr is a Python" \
        "float traced into the SGD update as a constant, so every step is a new program."
    cat >> "$f" <<EOF
func.func @main(%w: tensor<16xf32>, %g: tensor<16xf32>) -> tensor<16xf32> {
  %lr = stablehlo.constant dense<$lr> : tensor<f32> loc("train.py":41:10)
  %lr16 = stablehlo.broadcast_in_dim %lr, dims = [] : (tensor<f32>) -> tensor<16xf32> loc("train.py":41:10)
  %step = stablehlo.multiply %g, %lr16 : tensor<16xf32> loc("train.py":41:10)
  %nw = stablehlo.subtract %w, %step : tensor<16xf32> loc("train.py":42:5)
  return %nw : tensor<16xf32>
}
EOF
done
hdr "$d/fix/step.mlir" "baked learning rate, fixed: lr is a parameter (a 0-d tensor the scheduler" \
    "writes each step), so all 20 steps are one program."
cat >> "$d/fix/step.mlir" <<'EOF'
func.func @main(%w: tensor<16xf32>, %g: tensor<16xf32>, %lr: tensor<f32>) -> tensor<16xf32> {
  %lr16 = stablehlo.broadcast_in_dim %lr, dims = [] : (tensor<f32>) -> tensor<16xf32> loc("train.py":41:10)
  %step = stablehlo.multiply %g, %lr16 : tensor<16xf32> loc("train.py":41:10)
  %nw = stablehlo.subtract %w, %step : tensor<16xf32> loc("train.py":42:5)
  return %nw : tensor<16xf32>
}
EOF

# 2. MoE overflow counter: self._overflow_total += int(dropped.sum().item())
# keeps a running total as a Python int that the next trace bakes.
d=$out/moe-overflow-counter
k=0
for total in 0 5 9 14 20 27 31 38; do
    k=$((k + 1))
    f=$(printf '%s/leak/step%02d.mlir' "$d" "$k")
    hdr "$f" "MoE overflow counter, step $k of 8: self._overflow_total (a Python int, now $total)" \
        "is baked into the trace; each new total is a new program."
    cat >> "$f" <<EOF
func.func @main(%dropped: tensor<64xi32>) -> tensor<i32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %n = stablehlo.reduce(%dropped init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<64xi32>, tensor<i32>) -> tensor<i32> loc("moe.py":118:9)
  %total = stablehlo.constant dense<$total> : tensor<i32> loc("moe.py":118:9)
  %new = stablehlo.add %total, %n : tensor<i32> loc("moe.py":118:9)
  return %new : tensor<i32>
}
EOF
done
hdr "$d/fix/step.mlir" "MoE overflow counter, fixed: the total is a tensor buffer (register_buffer)" \
    "passed in and returned, incremented by a tensor op: one program."
cat >> "$d/fix/step.mlir" <<'EOF'
func.func @main(%dropped: tensor<64xi32>, %total: tensor<i32>) -> tensor<i32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %n = stablehlo.reduce(%dropped init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<64xi32>, tensor<i32>) -> tensor<i32> loc("moe.py":118:9)
  %new = stablehlo.add %total, %n : tensor<i32> loc("moe.py":118:9)
  return %new : tensor<i32>
}
EOF

# 3. grad-create vs grad-accumulate: a compile per micro-step traces
# acc.grad = g on the first micro-step and acc.grad.add_(g) after it;
# zero_grad(set_to_none=True) flips back to the first every cycle.
d=$out/grad-create-accumulate
hdr "$d/leak/1-create.mlir" "grad-create: the first micro-step after zero_grad(set_to_none=True) has no" \
    "gradient yet and returns the new one (acc.grad = g)."
cat >> "$d/leak/1-create.mlir" <<'EOF'
func.func @main(%x: tensor<4x8xf32>, %dy: tensor<4x2xf32>) -> tensor<8x2xf32> {
  %g = stablehlo.dot_general %x, %dy, contracting_dims = [0] x [0] : (tensor<4x8xf32>, tensor<4x2xf32>) -> tensor<8x2xf32> loc("train.py":77:7)
  return %g : tensor<8x2xf32>
}
EOF
hdr "$d/leak/2-accumulate.mlir" "grad-accumulate: later micro-steps add into the existing gradient" \
    "(acc.grad.add_(g)): a second program, with a parameter and an add more."
cat >> "$d/leak/2-accumulate.mlir" <<'EOF'
func.func @main(%x: tensor<4x8xf32>, %dy: tensor<4x2xf32>, %acc: tensor<8x2xf32>) -> tensor<8x2xf32> {
  %g = stablehlo.dot_general %x, %dy, contracting_dims = [0] x [0] : (tensor<4x8xf32>, tensor<4x2xf32>) -> tensor<8x2xf32> loc("train.py":77:7)
  %sum = stablehlo.add %acc, %g : tensor<8x2xf32> loc("train.py":78:7)
  return %sum : tensor<8x2xf32>
}
EOF
hdr "$d/fix/cycle.mlir" "grad-create and grad-accumulate, fixed: one compile around the whole" \
    "accumulation cycle (4 micro-batches), so create and accumulate are one program."
cat >> "$d/fix/cycle.mlir" <<'EOF'
func.func @main(%x: tensor<4x4x8xf32>, %dy: tensor<4x4x2xf32>) -> tensor<8x2xf32> {
  %g = stablehlo.dot_general %x, %dy, contracting_dims = [0, 1] x [0, 1] : (tensor<4x4x8xf32>, tensor<4x4x2xf32>) -> tensor<8x2xf32> loc("train.py":77:7)
  return %g : tensor<8x2xf32>
}
EOF

# 4. optional batch fields: the model entry branches on `key in batch`, so
# each subset of the optional fields present is its own program.
d=$out/optional-batch-fields
hdr "$d/leak/1-plain.mlir" "optional batch fields: a batch with neither doc_ids nor loss_mask."
cat >> "$d/leak/1-plain.mlir" <<'EOF'
func.func @main(%logits: tensor<8x32xf32>, %labels: tensor<8xi32>) -> tensor<f32> {
  %c0 = stablehlo.constant dense<0.0> : tensor<f32>
  %m = stablehlo.reduce(%logits init: %c0) applies stablehlo.maximum across dimensions = [1] : (tensor<8x32xf32>, tensor<f32>) -> tensor<8xf32> loc("model.py":210:12)
  %l = stablehlo.reduce(%m init: %c0) applies stablehlo.add across dimensions = [0] : (tensor<8xf32>, tensor<f32>) -> tensor<f32> loc("model.py":214:12)
  return %l : tensor<f32>
}
EOF
hdr "$d/leak/2-doc-ids.mlir" "optional batch fields: a batch that carries doc_ids (tokens of document 0 are skipped)."
cat >> "$d/leak/2-doc-ids.mlir" <<'EOF'
func.func @main(%logits: tensor<8x32xf32>, %labels: tensor<8xi32>, %doc_ids: tensor<8xi32>) -> tensor<f32> {
  %c0 = stablehlo.constant dense<0.0> : tensor<f32>
  %m = stablehlo.reduce(%logits init: %c0) applies stablehlo.maximum across dimensions = [1] : (tensor<8x32xf32>, tensor<f32>) -> tensor<8xf32> loc("model.py":210:12)
  %z = stablehlo.constant dense<0> : tensor<8xi32>
  %live = stablehlo.compare NE, %doc_ids, %z : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1> loc("model.py":212:9)
  %zf = stablehlo.constant dense<0.0> : tensor<8xf32>
  %md = stablehlo.select %live, %m, %zf : (tensor<8xi1>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32> loc("model.py":212:9)
  %l = stablehlo.reduce(%md init: %c0) applies stablehlo.add across dimensions = [0] : (tensor<8xf32>, tensor<f32>) -> tensor<f32> loc("model.py":214:12)
  return %l : tensor<f32>
}
EOF
hdr "$d/leak/3-loss-mask.mlir" "optional batch fields: a batch that carries loss_mask."
cat >> "$d/leak/3-loss-mask.mlir" <<'EOF'
func.func @main(%logits: tensor<8x32xf32>, %labels: tensor<8xi32>, %loss_mask: tensor<8xf32>) -> tensor<f32> {
  %c0 = stablehlo.constant dense<0.0> : tensor<f32>
  %m = stablehlo.reduce(%logits init: %c0) applies stablehlo.maximum across dimensions = [1] : (tensor<8x32xf32>, tensor<f32>) -> tensor<8xf32> loc("model.py":210:12)
  %mm = stablehlo.multiply %m, %loss_mask : tensor<8xf32> loc("model.py":213:9)
  %l = stablehlo.reduce(%mm init: %c0) applies stablehlo.add across dimensions = [0] : (tensor<8xf32>, tensor<f32>) -> tensor<f32> loc("model.py":214:12)
  return %l : tensor<f32>
}
EOF
hdr "$d/leak/4-both.mlir" "optional batch fields: a batch that carries doc_ids and loss_mask."
cat >> "$d/leak/4-both.mlir" <<'EOF'
func.func @main(%logits: tensor<8x32xf32>, %labels: tensor<8xi32>, %doc_ids: tensor<8xi32>, %loss_mask: tensor<8xf32>) -> tensor<f32> {
  %c0 = stablehlo.constant dense<0.0> : tensor<f32>
  %m = stablehlo.reduce(%logits init: %c0) applies stablehlo.maximum across dimensions = [1] : (tensor<8x32xf32>, tensor<f32>) -> tensor<8xf32> loc("model.py":210:12)
  %z = stablehlo.constant dense<0> : tensor<8xi32>
  %live = stablehlo.compare NE, %doc_ids, %z : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1> loc("model.py":212:9)
  %zf = stablehlo.constant dense<0.0> : tensor<8xf32>
  %md = stablehlo.select %live, %m, %zf : (tensor<8xi1>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32> loc("model.py":212:9)
  %mm = stablehlo.multiply %md, %loss_mask : tensor<8xf32> loc("model.py":213:9)
  %l = stablehlo.reduce(%mm init: %c0) applies stablehlo.add across dimensions = [0] : (tensor<8xf32>, tensor<f32>) -> tensor<f32> loc("model.py":214:12)
  return %l : tensor<f32>
}
EOF
hdr "$d/fix/canonical.mlir" "optional batch fields, fixed: every field is always present with a fixed shape" \
    "and type, and a presence flag per optional field selects it by mask (a missing" \
    "doc_ids is all ones, a missing loss_mask all ones): one program for every batch."
cat >> "$d/fix/canonical.mlir" <<'EOF'
func.func @main(%logits: tensor<8x32xf32>, %labels: tensor<8xi32>, %doc_ids: tensor<8xi32>, %has_doc_ids: tensor<i1>, %loss_mask: tensor<8xf32>, %has_loss_mask: tensor<i1>) -> tensor<f32> {
  %c0 = stablehlo.constant dense<0.0> : tensor<f32>
  %m = stablehlo.reduce(%logits init: %c0) applies stablehlo.maximum across dimensions = [1] : (tensor<8x32xf32>, tensor<f32>) -> tensor<8xf32> loc("model.py":210:12)
  %z = stablehlo.constant dense<0> : tensor<8xi32>
  %nz = stablehlo.compare NE, %doc_ids, %z : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1> loc("model.py":212:9)
  %hd = stablehlo.broadcast_in_dim %has_doc_ids, dims = [] : (tensor<i1>) -> tensor<8xi1>
  %nhd = stablehlo.not %hd : tensor<8xi1>
  %live = stablehlo.or %nz, %nhd : tensor<8xi1> loc("model.py":212:9)
  %zf = stablehlo.constant dense<0.0> : tensor<8xf32>
  %md = stablehlo.select %live, %m, %zf : (tensor<8xi1>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32> loc("model.py":212:9)
  %hm = stablehlo.broadcast_in_dim %has_loss_mask, dims = [] : (tensor<i1>) -> tensor<8xi1>
  %one = stablehlo.constant dense<1.0> : tensor<8xf32>
  %mask = stablehlo.select %hm, %loss_mask, %one : (tensor<8xi1>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32> loc("model.py":213:9)
  %mm = stablehlo.multiply %md, %mask : tensor<8xf32> loc("model.py":213:9)
  %l = stablehlo.reduce(%mm init: %c0) applies stablehlo.add across dimensions = [0] : (tensor<8xf32>, tensor<f32>) -> tensor<f32> loc("model.py":214:12)
  return %l : tensor<f32>
}
EOF

# 5. MoE capacity drift: capacity = min(cap_init, BT) with BT recomputed
# from the batch's actual token count, so collator padding changes the
# dispatch buffer's static size.
d=$out/moe-capacity-drift
moe() { # FILE C: dispatch 16 tokens to one expert's C slots and back
    cat >> "$1" <<EOF
func.func @main(%x: tensor<16x8xf32>, %slot: tensor<16xi32>, %w: tensor<8x8xf32>) -> tensor<16x8xf32> {
  %pos = stablehlo.broadcast_in_dim %slot, dims = [0] : (tensor<16xi32>) -> tensor<16x$2xi32>
  %cap = stablehlo.iota dim = 1 : tensor<16x$2xi32> loc("moe.py":64:15)
  %hit = stablehlo.compare EQ, %pos, %cap : (tensor<16x$2xi32>, tensor<16x$2xi32>) -> tensor<16x$2xi1> loc("moe.py":66:11)
  %mask = stablehlo.convert %hit : (tensor<16x$2xi1>) -> tensor<16x$2xf32>
  %buf = stablehlo.dot_general %mask, %x, contracting_dims = [0] x [0] : (tensor<16x$2xf32>, tensor<16x8xf32>) -> tensor<$2x8xf32> loc("moe.py":70:11)
  %y = stablehlo.dot_general %buf, %w, contracting_dims = [1] x [0] : (tensor<$2x8xf32>, tensor<8x8xf32>) -> tensor<$2x8xf32> loc("moe.py":72:9)
  %out = stablehlo.dot_general %mask, %y, contracting_dims = [1] x [0] : (tensor<16x$2xf32>, tensor<$2x8xf32>) -> tensor<16x8xf32> loc("moe.py":75:11)
  return %out : tensor<16x8xf32>
}
EOF
}
k=0
for c in 9 10 11 12 13; do
    k=$((k + 1))
    f=$(printf '%s/leak/%d-capacity%02d.mlir' "$d" "$k" "$c")
    hdr "$f" "MoE capacity drift: capacity recomputed from the padded batch's token count is $c" \
        "here; it is the static size of the dispatch buffer, so each value is a new program."
    moe "$f" "$c"
done
hdr "$d/fix/capacity08.mlir" "MoE capacity, fixed: clamped at the configured value (8) when the model is" \
    "built, never recomputed from the collator's padding: one program."
moe "$d/fix/capacity08.mlir" 8

# 6. top_k with varying k: k is computed from the data (a Python int), so
# each k is its own program.
d=$out/topk-varying-k
k=0
for kk in 2 3 5 6 8; do
    k=$((k + 1))
    f=$(printf '%s/leak/%d-k%d.mlir' "$d" "$k" "$kk")
    hdr "$f" "top_k with a data-dependent k ($kk here): k is traced as a static attribute," \
        "so each k is a new program."
    cat >> "$f" <<EOF
func.func @main(%scores: tensor<16x32xf32>) -> tensor<16xf32> {
  %v, %i = chlo.top_k(%scores, k = $kk) : (tensor<16x32xf32>) -> (tensor<16x${kk}xf32>, tensor<16x${kk}xi32>) loc("router.py":30:14)
  %c0 = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%v init: %c0) applies stablehlo.add across dimensions = [1] : (tensor<16x${kk}xf32>, tensor<f32>) -> tensor<16xf32> loc("router.py":31:9)
  return %s : tensor<16xf32>
}
EOF
done
hdr "$d/fix/k8.mlir" "top_k, fixed: k clamped to its maximum (8) at build time; the actual k is a" \
    "parameter and a mask keeps the first k of the 8: one program for every k."
cat >> "$d/fix/k8.mlir" <<'EOF'
func.func @main(%scores: tensor<16x32xf32>, %k: tensor<i32>) -> tensor<16xf32> {
  %v, %i = chlo.top_k(%scores, k = 8) : (tensor<16x32xf32>) -> (tensor<16x8xf32>, tensor<16x8xi32>) loc("router.py":30:14)
  %j = stablehlo.iota dim = 1 : tensor<16x8xi32>
  %kb = stablehlo.broadcast_in_dim %k, dims = [] : (tensor<i32>) -> tensor<16x8xi32>
  %keep = stablehlo.compare LT, %j, %kb : (tensor<16x8xi32>, tensor<16x8xi32>) -> tensor<16x8xi1> loc("router.py":30:14)
  %zero = stablehlo.constant dense<0.0> : tensor<16x8xf32>
  %vk = stablehlo.select %keep, %v, %zero : (tensor<16x8xi1>, tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
  %c0 = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%vk init: %c0) applies stablehlo.add across dimensions = [1] : (tensor<16x8xf32>, tensor<f32>) -> tensor<16xf32> loc("router.py":31:9)
  return %s : tensor<16xf32>
}
EOF

# 7. varying sequence length: each batch's length is a static dimension.
d=$out/varying-sequence-length
k=0
for n in 5 12 7 31 64 1 18 40 9 23 50 3 27 14 61 36 11 45 20 57; do
    k=$((k + 1))
    f=$(printf '%s/leak/step%02d-len%02d.mlir' "$d" "$k" "$n")
    hdr "$f" "varying sequence length, step $k of 20: this batch has $n tokens, a static" \
        "dimension, so each new length is a new program."
    cat >> "$f" <<EOF
func.func @main(%x: tensor<${n}x16xf32>, %w: tensor<16x16xf32>) -> tensor<16xf32> {
  %h = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<${n}x16xf32>, tensor<16x16xf32>) -> tensor<${n}x16xf32> loc("encoder.py":52:9)
  %a = stablehlo.tanh %h : tensor<${n}x16xf32>
  %c0 = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%a init: %c0) applies stablehlo.add across dimensions = [0] : (tensor<${n}x16xf32>, tensor<f32>) -> tensor<16xf32> loc("encoder.py":55:9)
  return %s : tensor<16xf32>
}
EOF
done
hdr "$d/fix/bounded.mlir" "varying sequence length, fixed: the length is a bounded '?' dimension (at most" \
    "64 tokens); the runtime compiles it once and runs every length up to the bound."
cat >> "$d/fix/bounded.mlir" <<'EOF'
func.func @main(%x: tensor<?x16xf32, #stablehlo.bounds<64, ?>>, %w: tensor<16x16xf32>) -> tensor<16xf32> {
  %h = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<?x16xf32, #stablehlo.bounds<64, ?>>, tensor<16x16xf32>) -> tensor<?x16xf32, #stablehlo.bounds<64, ?>> loc("encoder.py":52:9)
  %a = stablehlo.tanh %h : tensor<?x16xf32, #stablehlo.bounds<64, ?>>
  %c0 = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%a init: %c0) applies stablehlo.add across dimensions = [0] : (tensor<?x16xf32, #stablehlo.bounds<64, ?>>, tensor<f32>) -> tensor<16xf32> loc("encoder.py":55:9)
  return %s : tensor<16xf32>
}
EOF
