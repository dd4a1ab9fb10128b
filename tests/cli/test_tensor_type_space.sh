#!/bin/sh
# `tensor <3xi32>`: MLIR's lexer lets blanks (even a line break) separate
# the keyword from '<', and hand-written tests write it so (IREE's e2e
# stablehlo_ops convolution.mlir: `: tensor <2x4x5x1xf32>`). Before, plumb
# refused it ("expected '<' after 'tensor', found '<'"). Values by hand.
. "$(dirname "$0")/lib.sh"
lib_init tensor_type_space
need_plumb

# [1, 2, 3] + [10, 20, 30] = [11, 22, 33], the types written with blanks in
# the signature, a constant, an op's type and across a line break.
cat > "$tmp/t.mlir" <<'P'
func.func @main(%a: tensor <3xi32>) -> tensor  <3xi32> {
  %b = stablehlo.constant dense<[10, 20, 30]> : tensor <3xi32>
  %c = "stablehlo.add"(%a, %b) : (tensor <3xi32>, tensor
      <3xi32>) -> tensor <3xi32>
  return %c : tensor <3xi32>
}
P
printf 'dense<[1, 2, 3]> : tensor<3xi32>\n' > "$tmp/a.txt"
expect_both "tensor <...> with blanks" "tensor<3xi32> dense<[11, 22, 33]>" "$tmp/t.mlir" --input "a=$tmp/a.txt"

# The canonical form prints tensor<...> without the blank.
run "$PLUMB" fmt "$tmp/t.mlir"
if [ "$rc" = 0 ] && grep -q 'tensor<3xi32>' "$tmp/out" && ! grep -q 'tensor <' "$tmp/out"; then
    ok "fmt writes tensor<...>"
else
    fail "fmt writes tensor<...>"
fi

# Anything but '<' after the keyword is still refused with its position.
sed 's/-> tensor  <3xi32> {/-> tensor [3xi32] {/' "$tmp/t.mlir" > "$tmp/bad.mlir"
expect_refused "tensor [3xi32]" "$tmp/bad.mlir" "bad.mlir:1:" "'<' after 'tensor'"
finish
