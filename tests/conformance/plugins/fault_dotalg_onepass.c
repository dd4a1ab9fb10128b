/* Planted fault: dot_general runs a split algorithm (bf16 x3, bf16 x6,
 * tf32 x3: operands emulated by 2 or 3 components, docs/spec/dotalg.md) as
 * one pass over operands rounded to the precision type, dropping the low
 * components. Planted by rewriting num_primitive_operations = 3 or 6 to 1
 * in the program (a known algorithm still) before the inner backend
 * compiles it. Each product then errs by up to about 2u (u = 2^-8 for
 * bf16, 2^-11 for tf32) where the split's bound allows eps ≈ 3u^2 or 4u^3. */
#define FAULT_NAME "fault_dotalg_onepass"
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
    static const char key[] = "num_primitive_operations = ";
    char *s = strstr(src, key);
    /* one digit, 3 or 6, followed by the next field: same length as 1 */
    if (s && (s[sizeof key - 1] == '3' || s[sizeof key - 1] == '6') && s[sizeof key] == ',') s[sizeof key - 1] = '1';
    plumb_backend_compile_args ca = *a;
    ca.program = src;
    fault_exec *fx = NULL;
    plumb_backend_error *err = fault_compile_plain(&ca, &fx);
    free(src);
    if (!err) a->executable = (plumb_backend_executable *)fx;
    return err;
}
