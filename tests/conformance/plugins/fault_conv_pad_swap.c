/* Planted fault: convolution with a spatial dimension's low and high padding
 * swapped (a backend that reads the (low, high) pairs in the wrong order).
 * Symmetric padding hides it, so it changes the first dimension whose two
 * paddings differ; the result's shape is unchanged (their sum is), only the
 * window positions shift by the difference. Done by rewriting the program
 * before the inner backend compiles it, in StableHLO's pretty form
 * (pad = [[lo, hi], ...]) and the generic one (padding = dense<[[lo, hi], ...]>). */
#define FAULT_NAME "fault_conv_pad_swap"
#define FAULT_COMPILE
#include <inttypes.h>
#include <stdio.h>
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in,
                                plumb_backend_outputs *o)
{
    (void)text, (void)in, (void)n_in, (void)o;
}
#include "fault_common.h"

/* The start of the first "[lo, hi]" pair with lo != hi in the padding list
 * that follows a convolution; *end is just past its ']'. NULL if none. */
static const char *pad_pair(const char *t, int64_t *lo, int64_t *hi, const char **end)
{
    const char *c = strstr(t, "stablehlo.convolution");
    if (!c) return NULL;
    const char *p = strstr(c, "pad = [[");
    const char *g = strstr(c, "padding = dense<[[");
    if (!p || (g && g < p)) p = g ? strchr(g, '<') + 1 : NULL;
    else p += strlen("pad = ");
    if (!p) return NULL;
    p++;                                    /* past the list's '[' */
    while (*p == '[') {
        char *q;
        const char *pair = p;
        int64_t a = strtoll(p + 1, &q, 10);
        if (*q != ',') return NULL;
        int64_t b = strtoll(q + 1, &q, 10);
        while (*q == ' ') q++;
        if (*q != ']') return NULL;
        if (a != b) {
            *lo = a;
            *hi = b;
            *end = q + 1;
            return pair;
        }
        p = q + 1;
        while (*p == ',' || *p == ' ') p++;
    }
    return NULL;
}

static plumb_backend_error *fault_compile(plumb_backend_compile_args *a)
{
    char *src = malloc(a->program_size + 1);
    if (!src) return conf_bk_error(PLUMB_BACKEND_ERR_RESOURCE, "out of memory");
    memcpy(src, a->program, a->program_size);
    src[a->program_size] = 0;
    int64_t lo = 0, hi = 0;
    const char *end = NULL, *pair = pad_pair(src, &lo, &hi, &end);
    char *t = NULL;
    plumb_backend_compile_args ca = *a;
    if (pair) {
        size_t n = a->program_size + 64;
        t = malloc(n);
        if (!t) {
            free(src);
            return conf_bk_error(PLUMB_BACKEND_ERR_RESOURCE, "out of memory");
        }
        int w = snprintf(t, n, "%.*s[%" PRId64 ", %" PRId64 "]%s", (int)(pair - src), src, hi, lo, end);
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
