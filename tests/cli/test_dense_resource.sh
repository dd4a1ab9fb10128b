#!/bin/sh
# dense_resource<KEY> literals and the file metadata block MLIR prints after
# the module, `{-# dialect_resources: { builtin: { KEY: "0x..." } } #-}`
# (docs/format.md, "dense_resource"): each blob is four bytes of alignment
# (little-endian) and then the elements in the raw dense<"0x..."> layout.
# The expected values are worked out by hand from the byte patterns
# (little-endian i32 0x0000000A = 10, f32 0x3F800000 = 1.0, 0xC1200000 =
# -10.0, bf16 0x3F80 = 1.0, 0x4000 = 2.0, 0xBFC0 = -1.5, f4E2M1FN codes 0x2 =
# 1.0, 0x7 = 6.0, 0xE = -4.0). Both backends run each program; fmt writes the
# constants as dense<...>; malformed or missing blobs are refused with the
# position and the key. Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"
lib_init dense_resource
need_plumb

# Every element type class: i32 (a torch-mlir style key with dots), bf16,
# f32 under a quoted key, i1, complex<f32> and f4E2M1FN (checked through a
# convert to f32); location aliases and an external_resources section
# around the block, as MLIR prints them.
cat > "$tmp/a.mlir" <<'EOF'
module @m attributes {mhlo.num_partitions = 1 : i32} {
  func.func @main() {
    %a = stablehlo.constant dense_resource<torch_tensor_4_torch.int32> : tensor<4xi32>
    check.expect_eq_const %a, dense<[10, 20, 30, 40]> : tensor<4xi32>
    %b = stablehlo.constant dense_resource<k_bf16> : tensor<3xbf16>
    check.expect_eq_const %b, dense<[1.0, 2.0, -1.5]> : tensor<3xbf16>
    %c = stablehlo.constant dense_resource<"k f32"> : tensor<2xf32> loc(#loc1)
    check.expect_eq_const %c, dense<[1.0, -10.0]> : tensor<2xf32>
    %d = stablehlo.constant dense_resource<k_i1> : tensor<3xi1>
    check.expect_eq_const %d, dense<[true, false, true]> : tensor<3xi1>
    %e = stablehlo.constant dense_resource<k_c64> : tensor<1xcomplex<f32>>
    check.expect_eq_const %e, dense<(1.0, 2.0)> : tensor<1xcomplex<f32>>
    %f = stablehlo.constant dense_resource<k_f4> : tensor<3xf4E2M1FN>
    %g = stablehlo.convert %f : (tensor<3xf4E2M1FN>) -> tensor<3xf32>
    check.expect_eq_const %g, dense<[1.0, 6.0, -4.0]> : tensor<3xf32>
    func.return
  }
}
#loc1 = loc("x.py":3:4)

{-#
  dialect_resources: {
    builtin: {
      torch_tensor_4_torch.int32: "0x040000000A000000140000001E00000028000000",
      k_bf16: "0x02000000803F0040C0BF",
      "k f32": "0x040000000000803F000020C1",
      k_i1: "0x01000000010001",
      k_c64: "0x040000000000803F00000040",
      k_f4: "0x0100000002070E"
    }
  },
  external_resources: {
    external: { blob: "ignored" }
  }
#-}
EOF
both_pass "blobs of i32, bf16, f32, i1, complex<f32> and f4E2M1FN decode to their elements" "$tmp/a.mlir"

# The canonical form writes the constants inline and reads back the same.
run "$PLUMB" fmt "$tmp/a.mlir"
if [ "$rc" = 0 ] && grep -q 'dense<\[10, 20, 30, 40\]> : tensor<4xi32>' "$tmp/out" && ! grep -q 'dense_resource\|{-#' "$tmp/out"; then
    ok "fmt writes a dense_resource as its dense<...> value"
else
    fail "fmt writes a dense_resource as its dense<...> value"
fi
cp "$tmp/out" "$tmp/once.mlir"
both_pass "the canonical form runs and passes" "$tmp/once.mlir"

# The generic module form, as mlir-opt --mlir-print-op-generic prints it.
cat > "$tmp/g.mlir" <<'EOF'
"builtin.module"() ({
  "func.func"() <{function_type = () -> (), sym_name = "main"}> ({
    %0 = "stablehlo.constant"() <{value = dense_resource<blob1> : tensor<2xi64>}> : () -> tensor<2xi64>
    "check.expect_eq_const"(%0) <{value = dense<[1, -2]> : tensor<2xi64>}> : (tensor<2xi64>) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

{-#
  dialect_resources: {
    builtin: {
      blob1: "0x080000000100000000000000FEFFFFFFFFFFFFFF"
    }
  }
#-}
EOF
both_pass "a generic-form module with a resource block" "$tmp/g.mlir"

# Split files: each chunk carries its own block.
cat > "$tmp/s.mlir" <<'EOF'
func.func @one() {
  %0 = stablehlo.constant dense_resource<r> : tensor<ui8>
  check.expect_eq_const %0, dense<200> : tensor<ui8>
  func.return
}
{-#
  dialect_resources: { builtin: { r: "0x01000000C8" } }
#-}

// -----

func.func @two() {
  %0 = stablehlo.constant dense_resource<r> : tensor<2xi16>
  check.expect_eq_const %0, dense<[-1, 256]> : tensor<2xi16>
  func.return
}
{-#
  dialect_resources: { builtin: { r: "0x02000000FFFF0001" } }
#-}
EOF
run "$PLUMB" run --split-input-file "$tmp/s.mlir"
if [ "$rc" = 0 ] && grep -q '2 passed, 0 failed' "$tmp/out"; then
    ok "split chunks read their own blocks"
else
    fail "split chunks read their own blocks"
fi

# The block where the lookup must still find it: on the closing brace's
# line (as the parser accepts it), after a comment and a location that hold
# "{-#", and behind another dialect's strings holding "#-}" and an escaped
# quote. Blob 01000000 02000000 (little-endian) = [1, 2].
cat > "$tmp/w.mlir" <<'EOF'
// a comment naming {-# is not the block
func.func @main() {
  %0 = stablehlo.constant dense_resource<k> : tensor<2xi32> loc("{-#")
  check.expect_eq_const %0, dense<[1, 2]> : tensor<2xi32>
  func.return
} {-# dialect_resources: { other: { s: "#-}", t: "a\"b" }, builtin: { k: "0x040000000100000002000000" } } #-}
EOF
both_pass "a block after the closing brace, behind strings and comments that hold its delimiters" "$tmp/w.mlir"

# refused PROGRAM_BODY_FILE DESC TEXT...: plumb verify fails naming TEXT.
prog() {
    cat <<EOF
func.func @main() -> tensor<2xi32> {
  %0 = stablehlo.constant dense_resource<$1> : tensor<2xi32>
  func.return %0 : tensor<2xi32>
}
$2
EOF
}
prog k '' > "$tmp/e1.mlir"
expect_refused "no metadata block: the key and its position" "$tmp/e1.mlir" \
    "e1.mlir:2:42: error: dense_resource<k>: the file has no '{-# dialect_resources"
prog other '{-#
  dialect_resources: { builtin: { k: "0x0400000001000000" } }
#-}' > "$tmp/e2.mlir"
expect_refused "a key the block does not hold" "$tmp/e2.mlir" "e2.mlir:2:42: error: dense_resource<other>: no blob of that name"
prog k '{-#
  dialect_resources: { builtin: { k: "0x0400000001000000" } }
#-}' > "$tmp/e3.mlir"
expect_refused "a blob one element short" "$tmp/e3.mlir" \
    "e3.mlir:2:42: error: dense_resource<k> : tensor<2xi32>: the blob holds 4 bytes of data, the type needs 8"
prog k '{-#
  dialect_resources: { builtin: { k: "0x030000000100000002000000" } }
#-}' > "$tmp/e4.mlir"
expect_refused "an alignment that is not a power of two" "$tmp/e4.mlir" "e4.mlir:6:41: error: resource 'k': alignment 3"
prog k '{-#
  dialect_resources: { builtin: { k: "0x04000000010000000200000G" } }
#-}' > "$tmp/e5.mlir"
expect_refused "a non-hex digit, at its column" "$tmp/e5.mlir" "e5.mlir:6:64: error: resource 'k': 'G' is not a hex digit"
prog __elided__ '' > "$tmp/e6.mlir"
expect_refused "an elided constant is unsupported, not a crash" "$tmp/e6.mlir" \
    "e6.mlir:2:42: error: unsupported: dense_resource<__elided__> holds no data"
prog k '{-#
  dialect_resources: { builtin: { k: "0x040000000100000002000000" } }' > "$tmp/e7.mlir"
expect_refused "a block without its closing #-}" "$tmp/e7.mlir" "e7.mlir:7:1: error: expected '#-}', found end of input"
printf 'func.func @main() {\n  func.return\n}\n{-#\n  dialect_resources: {}\n' > "$tmp/e9.mlir"
expect_refused "an unterminated block no constant reads" "$tmp/e9.mlir" "e9.mlir:4:1: error: unterminated '{-#' metadata block"
cat > "$tmp/e8.mlir" <<'EOF'
func.func @main() -> tensor<2xi1> {
  %0 = stablehlo.constant dense_resource<b> : tensor<2xi1>
  func.return %0 : tensor<2xi1>
}
{-#
  dialect_resources: { builtin: { b: "0x010000000102" } }
#-}
EOF
expect_refused "an i1 byte other than 00 or 01, as in a raw literal" "$tmp/e8.mlir" "raw i1 element 1 is 0x02"

finish
