/* Planted fault: a compile cache keyed on the program text with every digit
 * removed, so a program that differs only in a static shape (or a numeric
 * attribute) gets the executable compiled for the first one, whose results
 * (from its last run) it returns. */
#define FAULT_NAME "fault_stale"
#define FAULT_COMPILE
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"

static fault_exec *cache[64];
static char *cache_key[64];
static int n_cache;

static char *strip_digits(const char *s, size_t n)
{
    char *k = malloc(n + 1), *p = k;
    if (!k) return NULL;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9') *p++ = s[i];
    *p = 0;
    return k;
}

static plumb_backend_error *fault_compile(plumb_backend_compile_args *a)
{
    char *key = strip_digits(a->program, a->program_size);
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
    if (n_cache < 64) { cache[n_cache] = fx; cache_key[n_cache++] = key; fx->refs++; }
    else free(key);
    a->executable = (plumb_backend_executable *)fx;
    return NULL;
}

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    (void)text; (void)in; (void)n_in; (void)o;
}
