/* Planted fault: a compile cache keyed on the program text with compare's
 * comparison direction left out (a key built from the ops, types and
 * shapes but not every attribute), so a program that differs only in the
 * direction gets the executable compiled for the first one. The compare
 * forms (conformance/gen_forms.c: every direction on the same operands,
 * one worker per op and type) see it. */
#define FAULT_NAME "fault_cache_cmp_dir"
#define FAULT_KEYED_CACHE 64
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
#include "fault_common.h"

/* the canonical text with the direction after "stablehlo.compare " blanked */
static char *fault_key(const char *s, size_t n)
{
    char *k = malloc(n + 1);
    if (!k) return NULL;
    memcpy(k, s, n);
    k[n] = 0;
    for (char *q = k, *p; (p = strstr(q, "stablehlo.compare ")) != NULL;)
        for (q = p + 18; *q >= 'A' && *q <= 'Z'; q++) *q = '_';
    return k;
}
