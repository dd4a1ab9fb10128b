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
VMI vd vfma(vd a, vd b, vd c)
{
    union { vd v; __m256d h[2]; } x = {a}, y = {b}, z = {c}, r;
    r.h[0] = _mm256_fmadd_pd(x.h[0], y.h[0], z.h[0]);
    r.h[1] = _mm256_fmadd_pd(x.h[1], y.h[1], z.h[1]);
    return r.v;
}
#include "math_fast_impl.h"

rt_vmath_f32_fn rt_vmath_unary_avx2(plumb_opcode op) { return fx_unary_avx2(op); }
rt_vmath2_f32_fn rt_vmath_binary_avx2(plumb_opcode op) { return vm_binary_avx2(op); }
rt_vmath_f32d_fn rt_vmathd_unary_avx2(plumb_opcode op) { return vmd_unary_avx2(op); }
rt_vmath2_f32d_fn rt_vmathd_binary_avx2(plumb_opcode op) { return vmd_binary_avx2(op); }
