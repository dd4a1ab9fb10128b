/* Planted fault: case takes a branch index past the last branch modulo the
 * number of branches (only a negative index goes to the last branch); the
 * spec sends every index outside [0, N) to the last branch. Planted by
 * compiling the program with the constant index reduced modulo N. Before
 * the sizes family's index_past cases the indices were 0, 1, 2 and -1. */
#define FAULT_NAME "fault_case_index_wrap"
#define FAULT_COMPILE
#include <stdio.h>
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    (void)text; (void)in; (void)n_in; (void)o;
}
#include "fault_common.h"

static plumb_backend_error *fault_compile(plumb_backend_compile_args *a)
{
    plumb_backend_compile_args ia = *a;
    char *p = malloc(a->program_size + 1), *t = NULL;
    if (!p) return conf_bk_error(PLUMB_BACKEND_ERR_RESOURCE, "out of memory");
    memcpy(p, a->program, a->program_size);
    p[a->program_size] = 0;
    /* the index constant: the first dense<N> of a program with a case */
    const char *k = strstr(p, "stablehlo.case") ? strstr(p, "stablehlo.constant dense<") : NULL;
    if (k) {
        long long ix = strtoll(k + 25, NULL, 10);
        int nb = 0;
        for (const char *q = p; (q = strstr(q, "stablehlo.return")) != NULL; q++) nb++;
        const char *e = strchr(k + 25, '>');
        if (nb > 0 && ix >= nb && e && (t = malloc(a->program_size + 32)) != NULL) {
            size_t head = (size_t)(k + 25 - p), rest = a->program_size - (size_t)(e - p);
            memcpy(t, p, head);
            int w = snprintf(t + head, 32, "%lld", ix % nb);
            memcpy(t + head + (size_t)w, e, rest);
            ia.program = t;
            ia.program_size = head + (size_t)w + rest;
        }
    }
    fault_exec *fx = NULL;
    plumb_backend_error *err = fault_compile_plain(&ia, &fx);
    free(t);
    free(p);
    if (!err) a->executable = (plumb_backend_executable *)fx;
    return err;
}
