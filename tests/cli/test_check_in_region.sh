#!/bin/sh
# A check op inside a region (a while's body, an if's branch, nested) runs
# whenever that region runs, whether or not the region op's results are
# used: the runtime's dead-code pass must not remove a while or if that
# holds a check, or a failing check becomes a silent pass. Every verdict is
# worked out by hand from the programs; each runs on both backends.
# Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"
lib_init check_in_region
need_plumb


# while(it < 2) with the result unused: the body's check of it == 5 runs
# for it = 0 and it = 1 and fails both times
cat > "$tmp/while_fail.mlir" <<'EOM'
func.func @main() {
  %i = stablehlo.constant dense<0> : tensor<i32>
  %r = stablehlo.while(%it = %i) : tensor<i32>
  cond {
    %c = stablehlo.constant dense<2> : tensor<i32>
    %p = stablehlo.compare LT, %it, %c : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    check.expect_eq_const %it, dense<5> : tensor<i32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %n = stablehlo.add %it, %one : tensor<i32>
    stablehlo.return %n : tensor<i32>
  }
  func.return
}
EOM
expect_fail "a failing check in an unused while's body fails the run" "$tmp/while_fail.mlir" "got 0 (0x00000000), expected 5"

# The same loop checking it < 2 inside the body holds for it = 0, 1
sed 's/check.expect_eq_const %it, dense<5> : tensor<i32>/%lt = stablehlo.compare LT, %it, %c2 : (tensor<i32>, tensor<i32>) -> tensor<i1>\
    check.expect_eq_const %lt, dense<true> : tensor<i1>/; s/^  } do {$/  } do {\
    %c2 = stablehlo.constant dense<2> : tensor<i32>/' "$tmp/while_fail.mlir" > "$tmp/while_ok.mlir"
both_pass "a holding check in an unused while's body passes" "$tmp/while_ok.mlir"

# if(true) with the result unused: the taken branch checks 1 == 5
cat > "$tmp/if_fail.mlir" <<'EOM'
func.func @main() {
  %p = stablehlo.constant dense<true> : tensor<i1>
  %a = stablehlo.constant dense<1> : tensor<i32>
  %r = "stablehlo.if"(%p) ({
    check.expect_eq_const %a, dense<5> : tensor<i32>
    stablehlo.return %a : tensor<i32>
  }, {
    stablehlo.return %a : tensor<i32>
  }) : (tensor<i1>) -> tensor<i32>
  func.return
}
EOM
expect_fail "a failing check in the taken branch of an unused if fails the run" "$tmp/if_fail.mlir" "got 1 (0x00000001), expected 5"

# if(false): the failing check sits in the branch not taken, so it never runs
sed 's/dense<true> : tensor<i1>/dense<false> : tensor<i1>/' "$tmp/if_fail.mlir" > "$tmp/if_untaken.mlir"
both_pass "a failing check in the branch not taken does not run" "$tmp/if_untaken.mlir"

# A while nested in an unused if's taken branch, its body checking 7 == 8
cat > "$tmp/nested_fail.mlir" <<'EOM'
func.func @main() {
  %p = stablehlo.constant dense<true> : tensor<i1>
  %a = stablehlo.constant dense<0> : tensor<i32>
  %r = "stablehlo.if"(%p) ({
    %w = stablehlo.while(%it = %a) : tensor<i32>
    cond {
      %c = stablehlo.constant dense<1> : tensor<i32>
      %q = stablehlo.compare LT, %it, %c : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %q : tensor<i1>
    } do {
      %s = stablehlo.constant dense<7> : tensor<i32>
      check.expect_eq_const %s, dense<8> : tensor<i32>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %n = stablehlo.add %it, %one : tensor<i32>
      stablehlo.return %n : tensor<i32>
    }
    stablehlo.return %w : tensor<i32>
  }, {
    stablehlo.return %a : tensor<i32>
  }) : (tensor<i1>) -> tensor<i32>
  func.return
}
EOM
expect_fail "a failing check two regions deep in an unused if fails the run" "$tmp/nested_fail.mlir" "got 7 (0x00000007), expected 8"

finish
