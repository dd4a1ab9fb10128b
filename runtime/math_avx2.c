/* The f32 vector math for AVX2 + FMA (runtime/math_impl.h, compiled for
 * this target). Only reached after run-time CPU detection (rt_isa). */
#if defined(__x86_64__) || defined(__i386__)
#pragma GCC target("avx2,fma")
#endif
#pragma GCC diagnostic ignored "-Wpsabi"   /* see math_impl.h */
#include "rt_internal.h"

#define VM_SUFFIX _avx2
#include "math_impl.h"

#include <immintrin.h>

/* a*b + c rounded once (math_fast_impl.h) */
typedef double vd4 __attribute__((vector_size(32)));
VMI vd vfma(vd a, vd b, vd c)
{
    vd4 l = (vd4)_mm256_fmadd_pd((__m256d)__builtin_shufflevector(a, a, 0, 1, 2, 3),
                                 (__m256d)__builtin_shufflevector(b, b, 0, 1, 2, 3),
                                 (__m256d)__builtin_shufflevector(c, c, 0, 1, 2, 3));
    vd4 h = (vd4)_mm256_fmadd_pd((__m256d)__builtin_shufflevector(a, a, 4, 5, 6, 7),
                                 (__m256d)__builtin_shufflevector(b, b, 4, 5, 6, 7),
                                 (__m256d)__builtin_shufflevector(c, c, 4, 5, 6, 7));
    return __builtin_shufflevector(l, h, 0, 1, 2, 3, 4, 5, 6, 7);
}

/* any lane of the mask m (all ones or zero per lane) set */
VMI int vany(vl m)
{
    typedef int64_t vl4 __attribute__((vector_size(32)));
    vl4 o = __builtin_shufflevector(m, m, 0, 1, 2, 3) | __builtin_shufflevector(m, m, 4, 5, 6, 7);
    return _mm256_movemask_pd((__m256d)o) != 0;
}
#include "math_fast_impl.h"

rt_vmath_f32_fn rt_vmath_unary_avx2(plumb_opcode op) { return fx_unary_avx2(op); }
rt_vmath2_f32_fn rt_vmath_binary_avx2(plumb_opcode op) { return vm_binary_avx2(op); }
rt_vmath_f32d_fn rt_vmathd_unary_avx2(plumb_opcode op) { return vmd_unary_avx2(op); }
rt_vmath2_f32d_fn rt_vmathd_binary_avx2(plumb_opcode op) { return vmd_binary_avx2(op); }
