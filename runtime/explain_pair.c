/* `plumb explain`: two programs compared the way the compile cache compares
 * them. Both are serialized as a lookup would serialize them (same context:
 * this CPU's best ISA level and the default optimization level, so the
 * context never differs), and the second is explained against the first
 * with the same rt_explain a recompile logs: what is shown is exactly what
 * a runtime that cached the first would report when given the second. */
#include <string.h>

#include "rt_cache_admin.h"
#include "rt_pipeline.h"

bool rt_explain_modules(const ir_module *a, const ir_func *fa, const ir_module *b, const ir_func *fb, bool *same,
                        char *line, size_t line_cap, char *json, size_t json_cap, plumb_diag *d)
{
    rt_key_ctx kc = {rt_cpu_best_isa(), PLUMB_RT_OPT_DEFAULT};
    rt_canon ca, cb;
    memset(&ca, 0, sizeof ca);
    memset(&cb, 0, sizeof cb);
    *same = false;
    if (line_cap)
        line[0] = 0;
    if (json_cap)
        json[0] = 0;
    if (!rt_canon_build(&ca, a, fa, &kc, d))
        return false;
    if (!rt_canon_build(&cb, b, fb, &kc, d)) {
        rt_canon_free(&ca);
        return false;
    }
    /* the cache's hit test: equal keys and equal bytes */
    if (rt_canon_equal(&ca, &cb)) {
        *same = true;
    } else {
        /* program 2 of entry @fb, its nearest (and only) cached program 1;
         * the modules are alive, so their debug locations can be named */
        rt_canon_keep_origins(&ca);
        rt_canon_keep_origins(&cb);
        (void)rt_explain(&ca, &cb, fb->name, 2, 1, line, line_cap, json, json_cap);
    }
    rt_canon_free(&ca);
    rt_canon_free(&cb);
    return true;
}
