/* Planted fault: lowers every sine to cosine (a wrong kernel picked for one
 * op). In a chain the later ops compute correctly on the wrong value, so
 * whole-program comparison sees every later result off; localization
 * (plumb run --compare --localize, conformance/oracle.c) must name the
 * sine, not an op after it. */
#define FAULT_NAME "fault_sine_cos"
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
    static const char from[] = "stablehlo.sine", to[] = "stablehlo.cosine";
    size_t n = a->program_size, hits = 0;
    for (size_t i = 0; i + sizeof from - 1 <= n; i++)
        hits += memcmp(a->program + i, from, sizeof from - 1) == 0;
    char *t = malloc(n + hits * (sizeof to - sizeof from) + 1);
    if (!t)
        return conf_bk_error(PLUMB_BACKEND_ERR_RESOURCE, "out of memory");
    size_t w = 0;
    for (size_t i = 0; i < n;) {
        if (i + sizeof from - 1 <= n && memcmp(a->program + i, from, sizeof from - 1) == 0) {
            memcpy(t + w, to, sizeof to - 1);
            w += sizeof to - 1;
            i += sizeof from - 1;
        } else
            t[w++] = a->program[i++];
    }
    t[w] = 0;
    plumb_backend_compile_args ca = *a;
    ca.program = t;
    ca.program_size = w;
    fault_exec *fx = NULL;
    plumb_backend_error *e = fault_compile_plain(&ca, &fx);
    free(t);
    if (!e)
        a->executable = (plumb_backend_executable *)fx;
    return e;
}
