/* Planted fault: a compile cache keyed on the program text with compare's
 * comparison direction left out (a key built from the ops, types and
 * shapes but not every attribute), so a program that differs only in the
 * direction gets the executable compiled for the first one. The compare
 * forms (conformance/gen_forms.c: every direction on the same operands,
 * one worker per op and type) see it. */
#define FAULT_NAME "fault_cache_cmp_dir"
#define FAULT_COMPILE
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"

static fault_exec *cache[64];
static char *cache_key[64];
static int n_cache;

/* the canonical text with the direction after "stablehlo.compare " blanked */
static char *key_of(const char *s, size_t n)
{
    char *k = malloc(n + 1);
    if (!k) return NULL;
    memcpy(k, s, n);
    k[n] = 0;
    for (char *q = k, *p; (p = strstr(q, "stablehlo.compare ")) != NULL;)
        for (q = p + 18; *q >= 'A' && *q <= 'Z'; q++) *q = '_';
    return k;
}

static plumb_backend_error *fault_compile(plumb_backend_compile_args *a)
{
    char *key = key_of(a->program, a->program_size);
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
