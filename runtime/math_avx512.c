/* The f32 vector math for AVX-512 F/BW/DQ/VL (runtime/math_impl.h, compiled
 * for this target). Only reached after run-time CPU detection (rt_isa). */
#if defined(__x86_64__) || defined(__i386__)   /* the whole file: x86 only (math_portable.c dispatches here only there) */
#include "rt_target.h"
RT_TARGET_PUSH("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")   /* the whole file, up to the RT_TARGET_POP at its end */
#pragma GCC diagnostic ignored "-Wpsabi"   /* see math_impl.h */
#include "rt_internal.h"

#define VM_SUFFIX _avx512
#include "math_impl.h"

#include <immintrin.h>

/* a*b + c rounded once (math_fast_impl.h) */
VMI vd vfma(vd a, vd b, vd c) { return (vd)_mm512_fmadd_pd((__m512d)a, (__m512d)b, (__m512d)c); }
/* any lane of the mask m (all ones or zero per lane) set */
VMI int vany(vl m) { return _mm512_test_epi64_mask((__m512i)m, (__m512i)m) != 0; }
#include "math_fast_impl.h"

rt_vmath2_f32_fn rt_vmath_binary_avx512(plumb_opcode op) { return vm_binary_avx512(op); }
rt_vmath_f32d_fn rt_vmathd_unary_avx512(plumb_opcode op) { return vmd_unary_avx512(op); }
rt_vmath2_f32d_fn rt_vmathd_binary_avx512(plumb_opcode op) { return vmd_binary_avx512(op); }

#include "math_x16.h"

/* One block of 16: the fast value where it is safe, else the exact path's
 * half-block of 8, blended lane by lane. */
#define X16_UNARY(name, OPC, dexpr)                                                  \
    X16I __m512 x16b_##name(__m512 x)                                                \
    {                                                                                \
        __mmask16 bad;                                                               \
        __m512 r = x16_##name(x, &bad);                                              \
        if (__builtin_expect(bad != 0, 0)) {                                         \
            float xs[16], es[16];                                                    \
            _mm512_storeu_ps(xs, x);                                                 \
            for (int h = 0; h < 2; h++) {                                            \
                if (!((bad >> (8 * h)) & 0xFF))                                      \
                    continue;                                                        \
                vf xh = vload(xs + 8 * h);                                           \
                vstore(es + 8 * h, f32_of(OPC, xh, dexpr));                          \
            }                                                                        \
            r = _mm512_mask_loadu_ps(r, bad, es);                                    \
        }                                                                            \
        return r;                                                                    \
    }                                                                                \
    static void x16_arr_##name(const float *in, float *out, size_t n)                \
    {                                                                                \
        size_t i = 0;                                                                \
        for (; i + 16 <= n; i += 16)                                                 \
            _mm512_storeu_ps(out + i, x16b_##name(_mm512_loadu_ps(in + i)));         \
        if (i < n) {                                                                 \
            __mmask16 m = (__mmask16)((1u << (n - i)) - 1);                          \
            __m512 x = _mm512_mask_loadu_ps(x16_set(1.0f), m, in + i);               \
            _mm512_mask_storeu_ps(out + i, m, x16b_##name(x));                       \
        }                                                                            \
    }

/* the four screen their inputs so that every fast result is normal (see
 * math_x16.h): the fused executor, which calls x16_* itself, relies on
 * the flags alone */
X16_UNARY(exp, PLUMB_OP_EXPONENTIAL, dv_exp(xh))
X16_UNARY(logistic, PLUMB_OP_LOGISTIC, dv_logistic(xh))
X16_UNARY(tanh, PLUMB_OP_TANH, dv_tanh(xh))
/* erf in f32 (math_erf.h; flags NaN and subnormal inputs only, its other
 * results are normal or zero) */
X16I __m512 x16_erf(__m512 x, __mmask16 *bad) { return rt_x16_erf(x, bad); }
X16_UNARY(erf, PLUMB_OP_ERF, dv_erf(xh))

rt_vmath_f32_fn rt_vmath_unary_avx512(plumb_opcode op)
{
    switch (op) {
    case PLUMB_OP_EXPONENTIAL: return x16_arr_exp;
    case PLUMB_OP_LOGISTIC: return x16_arr_logistic;
    case PLUMB_OP_TANH: return x16_arr_tanh;
    case PLUMB_OP_ERF: return x16_arr_erf;
    default: return fx_unary_avx512(op);
    }
}

RT_TARGET_POP
#else
typedef int rt_math_avx512_is_x86_only;   /* a translation unit may not be empty */
#endif
