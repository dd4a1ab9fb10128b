/* Planted fault: reduce_window with an add body on an FP8/FP6/FP4 format
 * rounds the running sum to the format after every element (a backend
 * that folds the window in the element type), where StableHLO's result
 * and the reference round the exact window sum once (docs/spec/types.md,
 * "Reductions"). Done by rewriting the body before the inner backend
 * compiles it: "%m = add %a, %b" becomes "%m0 = add %a, %b; %m = maximum
 * %m0, %m0", the same value per step, but a body the reference does not
 * recognise as a sum, so it runs it step by step, each step rounded. */
#define FAULT_NAME "fault_lowp_window_steps"
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

/* The body's add line of a reduce_window on a small float format, in the
 * canonical form the runner hands over ("    %1 = stablehlo.add %arg2,
 * %arg3 : tensor<f4E2M1FN>"): *res is its result name (length *rl), *rhs
 * what follows " = stablehlo.add ", *type the result type (f8, f6 or f4
 * element) up to the line's end. NULL if none. */
static const char *small_add(const char *t, const char **res, size_t *rl, const char **rhs, const char **type)
{
    const char *w = strstr(t, "stablehlo.reduce_window");
    const char *bb = w ? strstr(w, "^bb0(") : NULL;
    const char *p = bb ? strstr(bb, " = stablehlo.add ") : NULL;
    const char *ret = bb ? strstr(bb, "stablehlo.return") : NULL;
    if (!p || !ret || p > ret) return NULL;
    const char *ls = p;
    while (ls > t && ls[-1] != '\n') ls--;
    const char *r = ls;
    while (*r == ' ') r++;
    *res = r;
    *rl = (size_t)(p - r);
    *rhs = p + strlen(" = stablehlo.add ");
    const char *ty = strstr(*rhs, ": tensor<");
    if (!ty || ty > ret) return NULL;
    ty += 2;
    const char *e = ty + strlen("tensor<");
    if (e[0] != 'f' || (e[1] != '8' && e[1] != '6' && e[1] != '4')) return NULL;
    *type = ty;
    return ls;
}

static plumb_backend_error *fault_compile(plumb_backend_compile_args *a)
{
    char *src = malloc(a->program_size + 1);
    if (!src) return conf_bk_error(PLUMB_BACKEND_ERR_RESOURCE, "out of memory");
    memcpy(src, a->program, a->program_size);
    src[a->program_size] = 0;
    const char *res = NULL, *rhs = NULL, *type = NULL;
    size_t rl = 0;
    const char *line = small_add(src, &res, &rl, &rhs, &type);
    char *t = NULL;
    plumb_backend_compile_args ca = *a;
    if (line) {
        const char *eol = strchr(type, '\n');
        size_t tl = eol ? (size_t)(eol - type) : strlen(type);
        size_t n = a->program_size + 2 * tl + rl + 128;
        t = malloc(n);
        if (!t) {
            free(src);
            return conf_bk_error(PLUMB_BACKEND_ERR_RESOURCE, "out of memory");
        }
        /* "%fault_s = stablehlo.add <rhs>" then "<res> = stablehlo.maximum %fault_s, %fault_s : T" */
        int w = snprintf(t, n, "%.*s    %%fault_s = stablehlo.add %.*s\n    %.*s = stablehlo.maximum %%fault_s, %%fault_s : %.*s%s",
                         (int)(line - src), src, (int)(eol ? (size_t)(eol - rhs) : strlen(rhs)), rhs, (int)rl, res,
                         (int)tl, type, eol ? eol : "");
        ca.program = t;
        ca.program_size = (size_t)w;
    }
    fault_exec *fx = NULL;
    plumb_backend_error *e = fault_compile_plain(&ca, &fx);
    free(t);
    free(src);
    if (!e) a->executable = (plumb_backend_executable *)fx;
    return e;
}
