/* Planted fault: a compile cache keyed on the program text with the body of
 * every dense<...> literal removed: a program that differs from an earlier
 * one only in a baked constant's value gets the earlier executable (and its
 * constant). Shapes, types and ops are still told apart. */
#define FAULT_NAME "fault_cache_stale_const"
#define FAULT_KEYED_CACHE 256
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
#include "fault_common.h"

/* The text with "dense<...>" bodies dropped (nested <> counted). */
static char *fault_key(const char *s, size_t n)
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
