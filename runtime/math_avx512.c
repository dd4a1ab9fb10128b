/* The f32 vector math for AVX-512 F/BW/DQ/VL (runtime/math_impl.h, compiled
 * for this target). Only reached after run-time CPU detection (rt_isa). */
#if defined(__x86_64__) || defined(__i386__)
#pragma GCC target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")
#endif
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

rt_vmath_f32_fn rt_vmath_unary_avx512(plumb_opcode op) { return fx_unary_avx512(op); }
rt_vmath2_f32_fn rt_vmath_binary_avx512(plumb_opcode op) { return vm_binary_avx512(op); }
rt_vmath_f32d_fn rt_vmathd_unary_avx512(plumb_opcode op) { return vmd_unary_avx512(op); }
rt_vmath2_f32d_fn rt_vmathd_binary_avx512(plumb_opcode op) { return vmd_binary_avx512(op); }
