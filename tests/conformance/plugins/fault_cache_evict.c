/* Planted fault: a two-entry executable cache (least recently used evicted)
 * whose index from program to slot is not cleared on eviction: a program
 * that comes back after two others gets whatever executable now sits in its
 * old slot. Programs seen for the first time are compiled right. */
#define FAULT_NAME "fault_cache_evict"
#define FAULT_COMPILE
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"

static fault_exec *slot[2];
static unsigned long used[2], tick;
#define N_INDEX 4096
static uint64_t index_key[N_INDEX];
static int index_slot[N_INDEX];
static int n_index;

static uint64_t fnv(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

static plumb_backend_error *fault_compile(plumb_backend_compile_args *a)
{
    uint64_t h = fnv(a->program, a->program_size);
    for (int i = 0; i < n_index; i++)
        if (index_key[i] == h && slot[index_slot[i]]) {
            /* the fault: the slot may hold another program by now */
            fault_exec *fx = slot[index_slot[i]];
            used[index_slot[i]] = ++tick;
            fx->refs++;
            a->executable = (plumb_backend_executable *)fx;
            return NULL;
        }
    fault_exec *fx = NULL;
    plumb_backend_error *e = fault_compile_plain(a, &fx);
    if (e) return e;
    int s = !slot[0] ? 0 : !slot[1] ? 1 : used[0] <= used[1] ? 0 : 1;
    if (slot[s]) {
        plumb_backend_executable_free_args fa = {sizeof fa, a->backend, (plumb_backend_executable *)slot[s]};
        plumb_backend_error *fe = fault_exec_free(&fa);
        if (fe) fault_inner()->error_free(fe);
    }
    slot[s] = fx;
    fx->refs++;
    used[s] = ++tick;
    if (n_index < N_INDEX) { index_key[n_index] = h; index_slot[n_index++] = s; }
    a->executable = (plumb_backend_executable *)fx;
    return NULL;
}

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    (void)text; (void)in; (void)n_in; (void)o;
}
