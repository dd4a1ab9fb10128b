/* Planted fault: crashes (SIGSEGV) when asked to compile a program using tanh. */
#define FAULT_NAME "fault_crash"
#define FAULT_COMPILE
#include <signal.h>
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"

static plumb_backend_error *fault_compile(plumb_backend_compile_args *a)
{
    size_t n = a->program_size;
    for (size_t i = 0; i + 14 <= n; i++)
        if (!memcmp(a->program + i, "stablehlo.tanh", 14)) raise(SIGSEGV);
    fault_exec *fx = NULL;
    plumb_backend_error *e = fault_compile_plain(a, &fx);
    if (!e) a->executable = (plumb_backend_executable *)fx;
    return e;
}

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    (void)text; (void)in; (void)n_in; (void)o;
}
