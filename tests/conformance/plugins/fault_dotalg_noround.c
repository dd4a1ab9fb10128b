/* Planted fault: dot_general ignores its algorithm attribute (a backend
 * that multiplies the operands as given, in full f32, instead of rounding
 * them to the algorithm's precision type first, docs/spec/dotalg.md).
 * Planted by deleting ", algorithm = <...>" from the program (StableHLO's
 * pretty form, as the conformance generator writes it) before the inner
 * backend compiles it. On f32 operands a bf16 or tf32 algorithm's
 * rounding moves each product by up to 2^-8 or 2^-11 relatively, far
 * beyond the bound γ(13)·2^-24·Σ|x| the checker takes from the algorithm's
 * f32 accumulation. */
#define FAULT_NAME "fault_dotalg_noround"
#define FAULT_COMPILE
#include <stdio.h>
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in,
                                plumb_backend_outputs *o)
{
    (void)text, (void)in, (void)n_in, (void)o;
}
#include "fault_common.h"

static plumb_backend_error *fault_compile(plumb_backend_compile_args *a)
{
    char *src = malloc(a->program_size + 1);
    if (!src) return conf_bk_error(PLUMB_BACKEND_ERR_RESOURCE, "out of memory");
    memcpy(src, a->program, a->program_size);
    src[a->program_size] = 0;
    plumb_backend_compile_args ca = *a;
    /* the attribute's body holds no '>' of its own: the first one ends it */
    char *s = strstr(src, ", algorithm = <"), *e = s ? strchr(s, '>') : NULL;
    if (s && e) {
        memmove(s, e + 1, strlen(e + 1) + 1);
        ca.program = src;
        ca.program_size = strlen(src);
    }
    fault_exec *fx = NULL;
    plumb_backend_error *err = fault_compile_plain(&ca, &fx);
    free(src);
    if (!err) a->executable = (plumb_backend_executable *)fx;
    return err;
}
