/* Planted fault: a compile cache keyed on the program text with every digit
 * removed, so a program that differs only in a static shape (or a numeric
 * attribute) gets the executable compiled for the first one, whose results
 * (from its last run) it returns. */
#define FAULT_NAME "fault_stale"
#define FAULT_KEYED_CACHE 64
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
#include "fault_common.h"

static char *fault_key(const char *s, size_t n)
{
    char *k = malloc(n + 1), *p = k;
    if (!k) return NULL;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9') *p++ = s[i];
    *p = 0;
    return k;
}
