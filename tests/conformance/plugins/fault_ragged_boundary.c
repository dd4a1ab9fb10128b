/* Planted fault: chlo.ragged_dot whose group boundaries are one index late
 * (a backend that takes the first group's end as inclusive, so every later
 * group starts one row past its first row, and the last one stops one row
 * early): for a one-row list of sizes [s0, ..., sn] it computes with
 * [s0 + 1, ..., sn - 1]. Done by rewriting the program's rank-1 integer
 * group_sizes constant before the reference compiles it. Certification's
 * "noncontract" class (sizes [3, 0, 5] over 11 rows: row 3 taken by group
 * 0 instead of group 2, row 7 dropped) must catch it. */
#define FAULT_NAME "fault_ragged_boundary"
#define FAULT_COMPILE
#include <stdio.h>

#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"

/* text with each rank-1 "dense<[a, ..., z]> : tensor<Nxi64>" (or xi32)
 * rewritten to [a + 1, ..., z - 1] (z kept at 0); NULL when out of memory */
static char *shift_sizes(const char *s, size_t n)
{
    size_t cap = 2 * n + 64;
    char *o = malloc(cap);
    if (!o) return NULL;
    size_t w = 0;
    for (size_t i = 0; i < n;) {
        if (n - i > 7 && !memcmp(s + i, "dense<[", 7)) {
            /* read the list; give up (copy verbatim) unless it is flat integers */
            long long v[64];
            int k = 0;
            const char *p = s + i + 7, *end = s + n;
            bool flat = true;
            while (p < end && *p != ']' && flat && k < 64) {
                char *q;
                v[k] = strtoll(p, &q, 10);
                if (q == p) flat = false;
                else k++;
                p = q;
                while (p < end && (*p == ',' || *p == ' ')) p++;
            }
            bool typed = flat && k > 1 && end - p > 12 && !strncmp(p, "]> : tensor<", 12);
            if (typed) {   /* one dimension: digits, then xi64> or xi32> */
                const char *d = p + 12;
                while (d < end && *d >= '0' && *d <= '9') d++;
                typed = end - d >= 5 && (!strncmp(d, "xi64>", 5) || !strncmp(d, "xi32>", 5));
            }
            if (typed) {
                v[0] += 1;
                if (v[k - 1] > 0) v[k - 1] -= 1;
                w += (size_t)snprintf(o + w, cap - w, "dense<[");
                for (int j = 0; j < k; j++) w += (size_t)snprintf(o + w, cap - w, "%s%lld", j ? ", " : "", v[j]);
                i = (size_t)(p - s);   /* the "]> : ..." follows */
                continue;
            }
        }
        if (w + 1 >= cap) break;
        o[w++] = s[i++];
    }
    o[w] = 0;
    return o;
}

static plumb_backend_error *fault_compile(plumb_backend_compile_args *a)
{
    fault_exec *fx = NULL;
    char *t = NULL;
    plumb_backend_compile_args b = *a;
    char *z = malloc(a->program_size + 1);   /* the text, terminated */
    if (!z) return conf_bk_error(PLUMB_BACKEND_ERR_RESOURCE, "out of memory");
    if (a->program_size) memcpy(z, a->program, a->program_size);
    z[a->program_size] = 0;
    if (strstr(z, "chlo.ragged_dot")) {
        t = shift_sizes(z, a->program_size);
        if (!t) {
            free(z);
            return conf_bk_error(PLUMB_BACKEND_ERR_RESOURCE, "out of memory");
        }
        b.program = t;
        b.program_size = strlen(t);
    }
    free(z);
    plumb_backend_error *e = fault_compile_plain(&b, &fx);
    free(t);
    if (!e) a->executable = (plumb_backend_executable *)fx;
    return e;
}

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    (void)text; (void)in; (void)n_in; (void)o;
}
