/* Test plugin: the reference backend, except that it misbehaves in the one
 * call the environment names, PLUMB_MISBEHAVE=MODE@CALL:
 *
 *   CALL  ctor (the library's constructor), get_api, create, capabilities,
 *         compile, execute, destroy
 *   MODE  exit0    exit(0)             _exit0   _exit(0)
 *         segv     raise(SIGSEGV)      abort    abort()
 *         loop     spin forever        stdout   print to standard output
 *         (execute only, each a bad outputs object:)
 *         nonul    a dtype string without a terminating NUL, whose bytes
 *                  end where an inaccessible page begins
 *         nulldata a NULL data pointer with a correct byte_size
 *         huge     a claimed 2^31-element f32 result (byte_size to match)
 *                  over a 16-byte buffer
 *
 * Unset, it is the reference. The misbehaviours are the ways a plugin can
 * try to fake a verdict or make plumb read what it does not own; each must
 * end with exit 1 and a message naming the call (docs/abi.md). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "certify.h"

static plumb_backend_api api;
static const plumb_backend_api *ref;

/* True when PLUMB_MISBEHAVE names this call; *mode gets the mode. */
static bool armed(const char *call, const char **mode)
{
    static char buf[64];
    const char *e = getenv("PLUMB_MISBEHAVE");
    if (!e)
        return false;
    const char *at = strchr(e, '@');
    if (!at || strcmp(at + 1, call) != 0 || (size_t)(at - e) >= sizeof buf)
        return false;
    memcpy(buf, e, (size_t)(at - e));
    buf[at - e] = 0;
    *mode = buf;
    return true;
}

/* The process-ending and printing modes, shared by every call. */
static void misbehave(const char *call)
{
    const char *mode;
    if (!armed(call, &mode))
        return;
    if (strcmp(mode, "exit0") == 0)
        exit(0);
    if (strcmp(mode, "_exit0") == 0)
        _exit(0);
    if (strcmp(mode, "segv") == 0)
        raise(SIGSEGV);
    if (strcmp(mode, "abort") == 0)
        abort();
    if (strcmp(mode, "loop") == 0)
        for (volatile unsigned long spin = 0;; spin++)
            ;
    if (strcmp(mode, "stdout") == 0) {
        /* Looks like a verdict on purpose. */
        printf("certify: 100 passed, 0 failed, 0 skipped\n");
    }
}

__attribute__((constructor)) static void misbehave_ctor(void) { misbehave("ctor"); }

static plumb_backend_error *mb_create(plumb_backend_create_args *a)
{
    misbehave("create");
    return ref->create(a);
}

static plumb_backend_error *mb_destroy(plumb_backend_destroy_args *a)
{
    misbehave("destroy");
    return ref->destroy(a);
}

static plumb_backend_error *mb_capabilities(plumb_backend_capabilities_args *a)
{
    misbehave("capabilities");
    return ref->capabilities(a);
}

static plumb_backend_error *mb_compile(plumb_backend_compile_args *a)
{
    misbehave("compile");
    return ref->compile(a);
}

/* What the bad-outputs modes hand out instead of the reference's. */
static plumb_backend_buffer bad_buf;
static plumb_backend_outputs bad_outs;
static int64_t bad_dims[1];
static uint8_t small[16];
static plumb_backend_outputs *held;

static plumb_backend_error *mb_execute(plumb_backend_execute_args *a)
{
    misbehave("execute");
    plumb_backend_error *e = ref->execute(a);
    const char *mode;
    if (e || !armed("execute", &mode) || !a->outputs || a->outputs->n_buffers != 1)
        return e;
    /* Keep the reference's result for its shape, then replace it. */
    plumb_backend_buffer b = a->outputs->buffers[0];
    if (strcmp(mode, "nonul") == 0) {
        /* 16 bytes of "f32f32..." at the very end of a readable page, an
         * unreadable page after them: a reader that stops at
         * CONF_BK_DTYPE_MAX bytes never touches it, strlen does. */
        long pg = sysconf(_SC_PAGESIZE);
        char *p = mmap(NULL, (size_t)pg * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return e;
        mprotect(p + pg, (size_t)pg, PROT_NONE);
        char *s = p + pg - 16;
        for (int i = 0; i < 16; i++)
            s[i] = "f32"[i % 3];
        b.dtype = s;
    } else if (strcmp(mode, "nulldata") == 0) {
        b.data = NULL;
    } else if (strcmp(mode, "huge") == 0) {
        bad_dims[0] = (int64_t)1 << 31;
        b.dtype = "f32";
        b.rank = 1;
        b.dims = bad_dims;
        b.data = small;
        b.byte_size = (uint64_t)4 << 31;
    } else {
        return e;
    }
    /* The reference's outputs are released with ours (b may point into them). */
    held = a->outputs;
    bad_buf = b;
    bad_outs.struct_size = sizeof bad_outs;
    bad_outs.buffers = &bad_buf;
    bad_outs.n_buffers = 1;
    a->outputs = &bad_outs;
    return NULL;
}

static void mb_outputs_free(plumb_backend_outputs *o)
{
    if (o == &bad_outs) {
        o = held;
        held = NULL;
    }
    ref->outputs_free(o);
}

PLUMB_BACKEND_EXPORT const plumb_backend_api *plumb_backend_get_api(uint32_t abi_major)
{
    misbehave("get_api");
    ref = conf_backend_ref_api(abi_major);
    if (!ref)
        return NULL;
    api = *ref;
    api.name = "misbehave";
    api.version = "0.1.0-test";
    api.create = mb_create;
    api.destroy = mb_destroy;
    api.capabilities = mb_capabilities;
    api.compile = mb_compile;
    api.execute = mb_execute;
    api.outputs_free = mb_outputs_free;
    return &api;
}
