/* CPU feature detection for the kernels' run-time dispatch. The level in
 * effect is part of every cache key, so a program compiled for AVX-512 is
 * never served to a process running the portable path (or another machine). */
#include <stdlib.h>
#include <string.h>

#include "rt_internal.h"

static plumb_isa detect(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("fma"))
        return PLUMB_ISA_AVX512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return PLUMB_ISA_AVX2;
#endif
    return PLUMB_ISA_PORTABLE;
}

/* PLUMB_ISA can only lower the level: asking for AVX-512 on a CPU without it
 * would crash on the first instruction, so the request is clamped. */
plumb_isa rt_cpu_best_isa(void)
{
    plumb_isa hw = detect();
    const char *env = getenv("PLUMB_ISA");
    if (!env || !*env)
        return hw;
    plumb_isa want = hw;
    if (strcmp(env, "portable") == 0)
        want = PLUMB_ISA_PORTABLE;
    else if (strcmp(env, "avx2") == 0)
        want = PLUMB_ISA_AVX2;
    else if (strcmp(env, "avx512") == 0)
        want = PLUMB_ISA_AVX512;
    return want < hw ? want : hw;
}

const char *rt_isa_name(plumb_isa isa)
{
    switch (isa) {
    case PLUMB_ISA_AUTO: return "auto";
    case PLUMB_ISA_PORTABLE: return "portable";
    case PLUMB_ISA_AVX2: return "avx2";
    case PLUMB_ISA_AVX512: return "avx512";
    }
    return "unknown";
}
