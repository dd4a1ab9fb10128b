/* Planted fault: a compile cache keyed on the program text with the body of
 * every dense<...> literal removed: a program that differs from an earlier
 * one only in a baked constant's value gets the earlier executable (and its
 * constant). Shapes, types and ops are still told apart. */
#define FAULT_NAME "fault_cache_stale_const"
#define FAULT_COMPILE
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"

#define N_CACHE 256
static fault_exec *cache[N_CACHE];
static char *cache_key[N_CACHE];
static int n_cache;

/* The text with "dense<...>" bodies dropped (nested <> counted). */
static char *strip_dense(const char *s, size_t n)
{
    char *k = malloc(n + 1), *p = k;
    if (!k) return NULL;
    for (size_t i = 0; i < n; i++) {
        *p++ = s[i];
        if (i + 6 <= n && !memcmp(s + i, "dense<", 6)) {
            memcpy(p, "ense<", 5);
            p += 5;
            int depth = 1;
            for (i += 6; i < n && depth; i++)
                depth += s[i] == '<' ? 1 : s[i] == '>' ? -1 : 0;
            *p++ = '>';
            i--;
        }
    }
    *p = 0;
    return k;
}

static plumb_backend_error *fault_compile(plumb_backend_compile_args *a)
{
    char *key = strip_dense(a->program, a->program_size);
    if (!key) return conf_bk_error(PLUMB_BACKEND_ERR_RESOURCE, "out of memory");
    for (int i = 0; i < n_cache; i++)
        if (!strcmp(cache_key[i], key)) {
            free(key);
            cache[i]->refs++;
            a->executable = (plumb_backend_executable *)cache[i];
            return NULL;
        }
    fault_exec *fx = NULL;
    plumb_backend_error *e = fault_compile_plain(a, &fx);
    if (e) { free(key); return e; }
    if (n_cache < N_CACHE) { cache[n_cache] = fx; cache_key[n_cache++] = key; fx->refs++; }
    else free(key);
    a->executable = (plumb_backend_executable *)fx;
    return NULL;
}

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    (void)text; (void)in; (void)n_in; (void)o;
}
