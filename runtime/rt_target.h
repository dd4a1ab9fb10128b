/* Compiling a region of a file for an x86 vector level, spelled for the
 * compiler at hand: gcc's `#pragma GCC target` (inside push_options /
 * pop_options) or clang's `#pragma clang attribute push(target)`, which is
 * what clang has instead (it rejects the GCC pragma as unknown). Both give
 * every function defined in the region the target, so the vector code is
 * the same either way; detection at run time still decides which region's
 * functions are called.
 *
 *   RT_TARGET_PUSH("avx2,fma")
 *   ... functions ...
 *   RT_TARGET_POP
 *
 * rt_cpu_has_f16c: F16C from CPUID, since clang's __builtin_cpu_supports
 * does not know "f16c". Include this header before opening a region. */
#ifndef PLUMB_RT_TARGET_H
#define PLUMB_RT_TARGET_H

#define RT_PRAGMA(x) _Pragma(#x)
#if defined(__clang__)
#define RT_TARGET_PUSH(t) RT_PRAGMA(clang attribute push(__attribute__((target(t))), apply_to = function))
#define RT_TARGET_POP RT_PRAGMA(clang attribute pop)
#else
#define RT_TARGET_PUSH(t) RT_PRAGMA(GCC push_options) RT_PRAGMA(GCC target(t))
#define RT_TARGET_POP RT_PRAGMA(GCC pop_options)
#endif

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <stdbool.h>

static inline bool rt_cpu_has_f16c(void)
{
    unsigned a, b, c, d;
    return __get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C);
}
#endif

#endif
