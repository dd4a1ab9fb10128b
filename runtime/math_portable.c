/* The f32 vector math in portable C (runtime/math_impl.h with the baseline
 * instruction set) and the dispatch by instruction-set level. */
#pragma GCC diagnostic ignored "-Wpsabi"   /* see math_impl.h */
#include "rt_internal.h"

#define VM_SUFFIX _portable
#define VM_LANES 2   /* 2 doubles: one 128-bit register of the baseline */
#include "math_impl.h"
#include "math_erf.h"

/* erf in f32 (math_erf.h), one lane at a time: the operations of the AVX2
 * and AVX-512 versions, so the same bits at every level; NaN and
 * subnormal inputs take the exact path (math_impl.h's), one element each. */
static void erf_f32_portable(const float *in, float *out, size_t n)
{
    rt_vmath_f32_fn exact = vm_unary_portable(PLUMB_OP_ERF);
    for (size_t i = 0; i < n; i++) {
        int bad;
        out[i] = rt_erf_f32_lane(in[i], &bad);
        if (bad)
            exact(in + i, out + i, 1);
    }
}

rt_vmath_f32_fn rt_vmath_f32(plumb_opcode op, plumb_isa isa)
{
#if defined(__x86_64__) || defined(__i386__)
    if (isa == PLUMB_ISA_AVX512)
        return rt_vmath_unary_avx512(op);
    if (isa == PLUMB_ISA_AVX2)
        return rt_vmath_unary_avx2(op);
#endif
    if (op == PLUMB_OP_ERF)
        return erf_f32_portable;
    return vm_unary_portable(op);
}

rt_vmath2_f32_fn rt_vmath2_f32(plumb_opcode op, plumb_isa isa)
{
#if defined(__x86_64__) || defined(__i386__)
    if (isa == PLUMB_ISA_AVX512)
        return rt_vmath_binary_avx512(op);
    if (isa == PLUMB_ISA_AVX2)
        return rt_vmath_binary_avx2(op);
#endif
    return vm_binary_portable(op);
}

rt_vmath_f32d_fn rt_vmath_f32d(plumb_opcode op, plumb_isa isa)
{
#if defined(__x86_64__) || defined(__i386__)
    if (isa == PLUMB_ISA_AVX512)
        return rt_vmathd_unary_avx512(op);
    if (isa == PLUMB_ISA_AVX2)
        return rt_vmathd_unary_avx2(op);
#endif
    return vmd_unary_portable(op);
}

rt_vmath2_f32d_fn rt_vmath2_f32d(plumb_opcode op, plumb_isa isa)
{
#if defined(__x86_64__) || defined(__i386__)
    if (isa == PLUMB_ISA_AVX512)
        return rt_vmathd_binary_avx512(op);
    if (isa == PLUMB_ISA_AVX2)
        return rt_vmathd_binary_avx2(op);
#endif
    return vmd_binary_portable(op);
}
