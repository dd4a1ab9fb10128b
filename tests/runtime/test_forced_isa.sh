#!/bin/sh
# The fused-versus-unfused and kernel tests again with the kernel level
# forced below the CPU's best (PLUMB_ISA, runtime/cpu.c): at each level the
# fused rows must take the same loops as the reduce and elementwise kernels
# of the same run, so fused == unfused bit for bit there too, and the
# kernels must still agree with the reference; the polymorphic programs
# (test_dynamic, test_poly_encoder) must still give a static compile's and
# the reference's bits. Levels the CPU lacks are skipped. Ends with "N passed, N failed".
BUILD=${BUILD:-build}
pass=0
fail=0
levels="portable"
grep -q ' avx2 ' /proc/cpuinfo 2>/dev/null && levels="$levels avx2"
for isa in $levels; do
    for t in test_fusion test_fusion_half test_fusion_chain test_passes test_elementwise test_dynamic test_poly_encoder; do
        bin=$BUILD/tests/runtime/$t
        if [ ! -x "$bin" ]; then
            fail=$((fail + 1)); echo "FAIL: $bin is missing"; continue
        fi
        if PLUMB_ISA=$isa "$bin" > /tmp/forced_isa.$$ 2>&1; then
            pass=$((pass + 1))
        else
            fail=$((fail + 1)); echo "FAIL: PLUMB_ISA=$isa $t"; grep -E 'FAILED|ERROR|vs' /tmp/forced_isa.$$ | head -5
        fi
    done
done
rm -f /tmp/forced_isa.$$
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
