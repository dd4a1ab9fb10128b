/* Loading backends through the plugin ABI and holding them to it: a table
 * that does not match what this plumb understands is rejected before any of
 * its functions is called, with a message naming the file and the problem. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "certify.h"
#include "plumb/complex.h"
#include "plumb/fp8.h"
#include "plumb/lowp.h"

/* ---- the guard: which plugin call a child is in, and what it printed ------ */

static conf_guard *g_guard;      /* this child's page, or NULL (the parent) */
static int g_out_fd = -1;        /* the child's scratch standard output */
static off_t g_out_seen;         /* its size after the last call */

conf_guard *conf_guard_new(void)
{
    void *p = mmap(NULL, sizeof(conf_guard), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    memset(p, 0, sizeof(conf_guard));
    return p;
}

void conf_guard_free(conf_guard *g)
{
    if (g)
        munmap(g, sizeof *g);
}

void conf_guard_child(conf_guard *g)
{
    static const int sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTERM, SIGINT, SIGPIPE, SIGALRM};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        signal(sigs[i], SIG_DFL);
    g_guard = g;
    if (g)
        memset(g->call, 0, sizeof g->call);
    /* The parent's stdout carries the report: a child's goes to a scratch
     * file whose growth after a call shows that the call printed. */
    char tmpl[] = "/tmp/plumb-child-stdout-XXXXXX";
    int fd = mkstemp(tmpl);
    if (fd >= 0) {
        unlink(tmpl);
        dup2(fd, 1);
        close(fd);
        g_out_fd = 1;
        g_out_seen = 0;
    } else {
        int dn = open("/dev/null", O_WRONLY);
        if (dn >= 0) {
            dup2(dn, 1);
            close(dn);
        }
        g_out_fd = -1;
    }
}

void conf_guard_describe(const conf_guard *g, int status, char *buf, size_t cap)
{
    char in[96] = "";
    if (g && g->call[0])
        snprintf(in, sizeof in, " in %.*s", (int)sizeof g->call, g->call);
    else
        snprintf(in, sizeof in, " between plugin calls");
    if (WIFSIGNALED(status))
        snprintf(buf, cap, "died of signal %d (%s)%s", WTERMSIG(status), strsignal(WTERMSIG(status)), in);
    else if (WIFEXITED(status))
        snprintf(buf, cap, "exited with status %d%s", WEXITSTATUS(status), in);
    else
        snprintf(buf, cap, "stopped%s", in);
}

/* Notes that a plugin call starts (in a child; a no-op in the parent). */
static void call_enter(const char *call)
{
    if (!g_guard)
        return;
    size_t n = strlen(call);
    if (n >= sizeof g_guard->call)
        n = sizeof g_guard->call - 1;
    memcpy(g_guard->call, call, n);
    g_guard->call[n] = 0;
}

void conf_guard_note(const char *call)
{
    if (!g_guard)
        return;
    if (call)
        call_enter(call);
    else
        g_guard->call[0] = 0;
}

/* Notes that the call returned. A backend never prints (docs/abi.md): one
 * that wrote to standard output fails the call, by name. */
static bool call_leave(const char *where, const char *call, plumb_diag *d)
{
    if (g_guard)
        g_guard->call[0] = 0;
    if (g_out_fd < 0)
        return true;
    fflush(stdout);
    struct stat st;
    if (fstat(g_out_fd, &st) != 0 || st.st_size == g_out_seen)
        return true;
    long long grew = (long long)(st.st_size - g_out_seen);
    g_out_seen = st.st_size;
    if (d)
        plumb_diag_set(d, PLUMB_ERR_RUNTIME, (plumb_loc){0, 0},
                       "%s: %s wrote %lld bytes to standard output (a backend returns errors, it never prints)",
                       where, call, grew);
    return false;
}

/* ABI dtype bits in the order of ir/dtypes.def: one name per bit. Bits 0-12
 * are ABI 1.0's, 13-29 ABI 1.3's (backend.h). */
static const char *const abi_dtype_names[] = {
    "i1", "i8", "i16", "i32", "i64", "ui8", "ui16", "ui32", "ui64", "f16", "bf16", "f32", "f64",
    "complex<f32>", "complex<f64>", "f8E4M3FN", "f8E5M2", "f8E4M3FNUZ", "f8E5M2FNUZ", "f8E4M3B11FNUZ",
    "f8E3M4", "f8E4M3", "f8E8M0FNU", "f6E2M3FN", "f6E3M2FN", "f4E2M1FN", "i2", "i4", "ui2", "ui4",
};
_Static_assert(sizeof abi_dtype_names / sizeof abi_dtype_names[0] == 30, "one name per PLUMB_BACKEND_DT_* bit");

/* The element-type bits a table of ABI 1.abi_minor may set. */
static uint32_t abi_known_bits(uint32_t abi_minor)
{
    return abi_minor >= 3 ? PLUMB_BACKEND_DT_ALL_V1_3 : PLUMB_BACKEND_DT_ALL_V1;
}

/* Maps an ABI dtype mask onto plumb's PLUMB_TY_BIT mask by name, so the two
 * numberings can diverge without anyone noticing here. */
static uint32_t abi_to_plumb_mask(uint32_t abi)
{
    uint32_t out = 0;
    for (uint32_t b = 0; b < sizeof abi_dtype_names / sizeof abi_dtype_names[0]; b++) {
        if (!(abi & (1u << b)))
            continue;
        plumb_dtype t;
        if (plumb_dtype_parse(abi_dtype_names[b], strlen(abi_dtype_names[b]), &t))
            out |= PLUMB_TY_BIT(t);
    }
    return out;
}

static void mask_names(uint32_t abi, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = 0;
    for (uint32_t b = 0; b < 32 && n + 8 < cap; b++) {
        if (!(abi & (1u << b)))
            continue;
        const char *nm = b < sizeof abi_dtype_names / sizeof abi_dtype_names[0] ? abi_dtype_names[b] : "?";
        n += (size_t)snprintf(buf + n, cap - n, "%s%s", n ? "," : "", nm);
    }
}

bool conf_api_validate(const plumb_backend_api *api, const char *where, plumb_diag *d)
{
    plumb_loc nl = {0, 0};
    if (!api) {
        plumb_diag_set(d, PLUMB_ERR_INVALID, nl,
                       "%s: plumb_backend_get_api(%u) returned NULL: the backend does not implement ABI major %u",
                       where, PLUMB_BACKEND_ABI_MAJOR, PLUMB_BACKEND_ABI_MAJOR);
        return false;
    }
    /* struct_size is read before anything else: a table shorter than the
     * fields below must not be read past its end. */
    if (api->struct_size < offsetof(plumb_backend_api, abi_minor) + sizeof api->abi_minor) {
        plumb_diag_set(d, PLUMB_ERR_INVALID, nl,
                       "%s: function table struct_size %zu is too short to hold the ABI version (need at least %zu)",
                       where, api->struct_size, offsetof(plumb_backend_api, abi_minor) + sizeof api->abi_minor);
        return false;
    }
    if (api->abi_major != PLUMB_BACKEND_ABI_MAJOR) {
        plumb_diag_set(d, PLUMB_ERR_INVALID, nl,
                       "%s: backend ABI major version %u, but this plumb speaks major %u (rebuild the backend against this include/plumb/backend.h)",
                       where, api->abi_major, PLUMB_BACKEND_ABI_MAJOR);
        return false;
    }
    /* A 1.0 or 1.1 table ends before the functions 1.2 appended (explain),
     * which are optional: only the 1.0 functions must be there. */
    if (api->struct_size < PLUMB_BACKEND_API_SIZE_1_0) {
        plumb_diag_set(d, PLUMB_ERR_INVALID, nl,
                       "%s: function table struct_size %zu is shorter than ABI %u.0's %zu bytes (fields missing)",
                       where, api->struct_size, PLUMB_BACKEND_ABI_MAJOR, PLUMB_BACKEND_API_SIZE_1_0);
        return false;
    }
    if (!api->name || !api->name[0]) {
        plumb_diag_set(d, PLUMB_ERR_INVALID, nl, "%s: the table's name is missing", where);
        return false;
    }
    if (!api->version) {
        plumb_diag_set(d, PLUMB_ERR_INVALID, nl, "%s: the table's version string is missing", where);
        return false;
    }
    struct { const char *name; bool present; } fns[] = {
        {"error_free", api->error_free != NULL},
        {"create", api->create != NULL},
        {"destroy", api->destroy != NULL},
        {"capabilities", api->capabilities != NULL},
        {"compile", api->compile != NULL},
        {"executable_free", api->executable_free != NULL},
        {"execute", api->execute != NULL},
        {"outputs_free", api->outputs_free != NULL},
        {"stats", api->stats != NULL},
        {"reset_stats", api->reset_stats != NULL},
    };
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
        if (!fns[i].present) {
            plumb_diag_set(d, PLUMB_ERR_INVALID, nl,
                           "%s: required function '%s' is NULL in the table of backend '%s'",
                           where, fns[i].name, api->name);
            return false;
        }
    }
    return true;
}

static plumb_dtype dtype_from_abi_bit(uint32_t bit)
{
    for (uint32_t b = 0; b < sizeof abi_dtype_names / sizeof abi_dtype_names[0]; b++) {
        if (bit == (1u << b)) {
            plumb_dtype t;
            if (plumb_dtype_parse(abi_dtype_names[b], strlen(abi_dtype_names[b]), &t))
                return t;
        }
    }
    return PLUMB_DTYPE_COUNT;
}

bool conf_caps_translate(const plumb_backend_capabilities *c, const char *where,
                         conf_caps *out, plumb_diag *d)
{
    return conf_caps_translate_minor(c, PLUMB_BACKEND_ABI_MINOR, where, out, d);
}

/* The accumulators of the small float formats (ABI 1.4 accum_small). An
 * entry of 0, or a table older than 1.4, means f32: FP8 matrix units
 * accumulate in it (the OCP 8-bit floating point specification's GEMM
 * model and vendors' FP8 tensor cores), so it is the widest accumulator a
 * backend can plausibly leave undeclared; one that accumulates in the
 * format itself must declare it (docs/abi.md, "Capabilities"). */
static bool caps_small_accum(const plumb_backend_capabilities *c, uint32_t abi_minor, const char *where,
                             conf_caps *out, plumb_diag *d)
{
    plumb_loc nl = {0, 0};
    bool has = abi_minor >= 4 && PLUMB_BACKEND_HAS_FIELD(c, plumb_backend_capabilities, accum_small);
    for (int i = 0; i < PLUMB_BACKEND_N_SMALL_FLOATS; i++) {
        plumb_dtype in = dtype_from_abi_bit(PLUMB_BACKEND_DT_F8E4M3FN << i);
        uint32_t v = has ? c->accum_small[i] : 0;
        plumb_dtype a = v == 0 ? PLUMB_F32 : dtype_from_abi_bit(v);
        if (a == PLUMB_DTYPE_COUNT || !plumb_dtype_is_float(a)) {
            plumb_diag_set(d, PLUMB_ERR_INVALID, nl,
                           "%s: capabilities: accum_small[%d] (%s) = 0x%x is not one float element-type bit",
                           where, i, plumb_dtype_name(in), v);
            return false;
        }
        /* the format itself, or a float that holds each of its values */
        const plumb_dtype_info *ai = plumb_dtype_get(a), *ii = plumb_dtype_get(in);
        if (a != in && (ai->mant_bits < ii->mant_bits || ai->exp_bits < ii->exp_bits)) {
            plumb_diag_set(d, PLUMB_ERR_INVALID, nl,
                           "%s: capabilities: accum_small[%d] = %s is narrower than %s",
                           where, i, ai->name, ii->name);
            return false;
        }
        out->accum[in] = a;
    }
    return true;
}

bool conf_caps_translate_minor(const plumb_backend_capabilities *c, uint32_t abi_minor, const char *where,
                               conf_caps *out, plumb_diag *d)
{
    plumb_loc nl = {0, 0};
    memset(out, 0, sizeof *out);
    if (!c) {
        plumb_diag_set(d, PLUMB_ERR_INVALID, nl, "%s: capabilities returned no capabilities object", where);
        return false;
    }
    if (c->struct_size < PLUMB_BACKEND_CAPABILITIES_SIZE_1_0) {
        plumb_diag_set(d, PLUMB_ERR_INVALID, nl,
                       "%s: capabilities struct_size %zu is shorter than ABI %u.0's %zu bytes",
                       where, c->struct_size, PLUMB_BACKEND_ABI_MAJOR, PLUMB_BACKEND_CAPABILITIES_SIZE_1_0);
        return false;
    }
    if (c->n_ops > 0 && !c->ops) {
        plumb_diag_set(d, PLUMB_ERR_INVALID, nl, "%s: capabilities declare %zu ops but the ops array is NULL",
                       where, c->n_ops);
        return false;
    }
    for (size_t i = 0; i < c->n_ops; i++) {
        const plumb_backend_op_cap *oc = &c->ops[i];
        if (oc->struct_size < sizeof(plumb_backend_op_cap)) {
            plumb_diag_set(d, PLUMB_ERR_INVALID, nl, "%s: capabilities op %zu: struct_size %zu is shorter than %zu",
                           where, i, oc->struct_size, sizeof(plumb_backend_op_cap));
            return false;
        }
        plumb_opcode op;
        size_t nlen = oc->name ? strnlen(oc->name, CONF_BK_NAME_MAX) : 0;
        if (oc->name && nlen == CONF_BK_NAME_MAX) {
            plumb_diag_set(d, PLUMB_ERR_INVALID, nl,
                           "%s: capabilities op %zu: the name is not a NUL-terminated string of at most %d bytes",
                           where, i, CONF_BK_NAME_MAX - 1);
            return false;
        }
        if (!oc->name || !plumb_op_lookup(oc->name, nlen, &op)) {
            plumb_diag_set(d, PLUMB_ERR_INVALID, nl,
                           "%s: capabilities name unknown op '%s' (docs/ops.md lists the ops of op set v1)",
                           where, oc->name ? oc->name : "(null)");
            return false;
        }
        if (oc->dtypes & ~abi_known_bits(abi_minor)) {
            /* A bit of a later minor in an older table is as unknown as
             * one no version defines: the backend was built against a
             * header that did not have it. */
            if (abi_minor < 3 && !(oc->dtypes & ~PLUMB_BACKEND_DT_ALL_V1_3))
                plumb_diag_set(d, PLUMB_ERR_INVALID, nl,
                               "%s: capabilities of op '%s' set element-type bits 0x%x, which ABI 1.3 defines, "
                               "but the table says ABI %u.%u",
                               where, oc->name, oc->dtypes & ~PLUMB_BACKEND_DT_ALL_V1, PLUMB_BACKEND_ABI_MAJOR,
                               abi_minor);
            else
                plumb_diag_set(d, PLUMB_ERR_INVALID, nl,
                               "%s: capabilities of op '%s' set unknown element-type bits 0x%x",
                               where, oc->name, oc->dtypes & ~abi_known_bits(abi_minor));
            return false;
        }
        uint32_t m = abi_to_plumb_mask(oc->dtypes);
        uint32_t accepts = plumb_op_get(op)->types | (ir_complex_accepts(op) ? PLUMB_TY_COMPLEX : 0);
        for (int t = 0; t < PLUMB_DTYPE_COUNT; t++)
            if (plumb_dtype_is_lowp((plumb_dtype)t) && ir_lowp_accepts(op, (plumb_dtype)t))
                accepts |= PLUMB_TY_BIT(t);
        uint32_t bad = m & ~accepts;
        if (bad) {
            char names[256];
            uint32_t abi_bad = 0;
            for (uint32_t b = 0; b < 30; b++)
                if (abi_to_plumb_mask(1u << b) & bad)
                    abi_bad |= 1u << b;
            mask_names(abi_bad, names, sizeof names);
            plumb_diag_set(d, PLUMB_ERR_INVALID, nl,
                           "%s: capabilities claim op '%s' for element types it does not accept: %s",
                           where, oc->name, names);
            return false;
        }
        if (out->claims[op]) {
            plumb_diag_set(d, PLUMB_ERR_INVALID, nl, "%s: capabilities name op '%s' twice", where, oc->name);
            return false;
        }
        if (m == 0) {
            plumb_diag_set(d, PLUMB_ERR_INVALID, nl, "%s: capabilities name op '%s' with no element types",
                           where, oc->name);
            return false;
        }
        out->claims[op] = m;
        out->n_claimed_ops++;
    }
    if (c->polymorphic_shapes > PLUMB_BACKEND_POLY_UNBOUNDED) {
        plumb_diag_set(d, PLUMB_ERR_INVALID, nl, "%s: capabilities: unknown polymorphic_shapes value %u",
                       where, c->polymorphic_shapes);
        return false;
    }
    out->poly = (plumb_backend_poly)c->polymorphic_shapes;
    const uint32_t float_abi = conf_bk_abi_mask(PLUMB_TY_FLOAT | PLUMB_TY_FLOAT8) & abi_known_bits(abi_minor);
    if (c->flush_subnormals & ~float_abi) {
        plumb_diag_set(d, PLUMB_ERR_INVALID, nl,
                       "%s: capabilities: flush_subnormals 0x%x names types that are not floats",
                       where, c->flush_subnormals);
        return false;
    }
    out->flush_subnormals = abi_to_plumb_mask(c->flush_subnormals);
    if (c->preserves_nan_payload > 1 || c->deterministic > 1) {
        plumb_diag_set(d, PLUMB_ERR_INVALID, nl,
                       "%s: capabilities: preserves_nan_payload and deterministic must be 0 or 1", where);
        return false;
    }
    out->preserves_nan_payload = c->preserves_nan_payload != 0;
    out->deterministic = c->deterministic != 0;
    for (int t = 0; t < PLUMB_DTYPE_COUNT; t++)
        out->accum[t] = (plumb_dtype)t;
    struct { const char *field; uint32_t v; plumb_dtype in; } acc[] = {
        {"accum_f16", c->accum_f16, PLUMB_F16},
        {"accum_bf16", c->accum_bf16, PLUMB_BF16},
        {"accum_f32", c->accum_f32, PLUMB_F32},
        {"accum_f64", c->accum_f64, PLUMB_F64},
    };
    for (size_t i = 0; i < sizeof acc / sizeof acc[0]; i++) {
        if (acc[i].v == 0)
            continue;
        plumb_dtype a = dtype_from_abi_bit(acc[i].v);
        if (a == PLUMB_DTYPE_COUNT || !plumb_dtype_is_float(a)) {
            plumb_diag_set(d, PLUMB_ERR_INVALID, nl,
                           "%s: capabilities: %s = 0x%x is not one float element-type bit",
                           where, acc[i].field, acc[i].v);
            return false;
        }
        /* An accumulator narrower than its input could not even hold the
         * inputs; bf16 and f16 cannot accumulate each other either. */
        const plumb_dtype_info *ai = plumb_dtype_get(a), *ii = plumb_dtype_get(acc[i].in);
        if (ai->mant_bits < ii->mant_bits || ai->exp_bits < ii->exp_bits) {
            plumb_diag_set(d, PLUMB_ERR_INVALID, nl,
                           "%s: capabilities: %s = %s is narrower than %s",
                           where, acc[i].field, ai->name, ii->name);
            return false;
        }
        out->accum[acc[i].in] = a;
    }
    return caps_small_accum(c, abi_minor, where, out, d);
}

void conf_caps_small_accum_text(const conf_caps *c, char *out, size_t cap)
{
    plumb_dtype in[PLUMB_BACKEND_N_SMALL_FLOATS];
    bool same = true, own = false;
    for (int i = 0; i < PLUMB_BACKEND_N_SMALL_FLOATS; i++) {
        in[i] = dtype_from_abi_bit(PLUMB_BACKEND_DT_F8E4M3FN << i);
        same = same && c->accum[in[i]] == c->accum[in[0]];
        own = own || c->accum[in[i]] == in[i];
    }
    size_t n = 0;
    if (cap == 0) return;
    out[0] = '\0';
#define SA_PUT(...) do { if (n < cap) { int w_ = snprintf(out + n, cap - n, __VA_ARGS__); n += w_ > 0 ? (size_t)w_ : 0; } } while (0)
    if (same && !own) {
        SA_PUT("FP8/FP6/FP4->%s", plumb_dtype_name(c->accum[in[0]]));
    } else {
        for (int i = 0; i < PLUMB_BACKEND_N_SMALL_FLOATS; i++)
            SA_PUT("%s%s->%s", i ? " " : "", plumb_dtype_name(in[i]), plumb_dtype_name(c->accum[in[i]]));
    }
    if (own) {
        SA_PUT("; summed in the format itself:");
        for (int i = 0; i < PLUMB_BACKEND_N_SMALL_FLOATS; i++)
            if (c->accum[in[i]] == in[i]) SA_PUT(" %s", plumb_dtype_name(in[i]));
        SA_PUT(" (limitation: the data bound gamma(K) is void for sums and dots of K >= 1/u terms; there only NaN, "
               "infinities and finiteness are compared)");
    }
#undef SA_PUT
}

void conf_caps_check_opts(const conf_caps *c, plumb_dtype t, conf_check_opts *o)
{
    memset(o, 0, sizeof *o);
    o->flushes_subnormals = (c->flush_subnormals & PLUMB_TY_BIT(t)) != 0;
    o->preserves_nan_payload = c->preserves_nan_payload;
    for (int i = 0; i < PLUMB_DTYPE_COUNT; i++)
        o->accum[i] = c->accum[i];
}

/* Takes the message out of a backend error and releases it. */
static bool take_error(conf_backend *b, plumb_backend_error *e, const char *step, plumb_diag *d)
{
    if (!e)
        return true;
    plumb_loc nl = {0, 0};
    const char *msg = NULL;
    int32_t code = 0;
    if (e->struct_size >= sizeof(plumb_backend_error)) {
        msg = e->message;
        code = e->code;
    }
    plumb_code pc = code == PLUMB_BACKEND_ERR_UNSUPPORTED ? PLUMB_ERR_UNSUPPORTED
                  : code == PLUMB_BACKEND_ERR_RESOURCE ? PLUMB_ERR_NOMEM
                  : code == PLUMB_BACKEND_ERR_INVALID_ARGUMENT ? PLUMB_ERR_INVALID : PLUMB_ERR_RUNTIME;
    /* The message is read to its NUL or CONF_BK_MESSAGE_MAX bytes, no further. */
    int mlen = msg ? (int)strnlen(msg, CONF_BK_MESSAGE_MAX) : 0;
    plumb_diag_set(d, pc, nl, "%s: %s failed (code %d): %.*s", b->where, step, (int)code, msg ? mlen : 12,
                   msg ? msg : "(no message)");
    call_enter("error_free");
    b->api->error_free(e);
    call_leave(b->where, "error_free", NULL);
    return false;
}

/* Calls a table function as `step`, noting it in the child's guard, and
 * takes its error. */
#define BK_CALL(b, step, expr, d)                                                                    \
    (call_enter(step), guarded_result((b), (step), (expr), (d)))

static bool guarded_result(conf_backend *b, const char *step, plumb_backend_error *e, plumb_diag *d)
{
    plumb_diag pd;
    plumb_diag_clear(&pd);
    bool printed = !call_leave(b->where, step, &pd);
    if (!take_error(b, e, step, d))
        return false;
    if (printed) {
        *d = pd;
        return false;
    }
    return true;
}

static bool load_plugin(conf_backend *b, plumb_diag *d);

bool conf_backend_instance(conf_backend *b, const plumb_backend_option *options, size_t n_options,
                           plumb_diag *d)
{
    /* A plugin opened by a probe is loaded in the process that uses it (a
     * worker), never in the parent. */
    if (!b->api && !load_plugin(b, d))
        return false;
    if (b->inst) {
        plumb_backend_destroy_args da = {sizeof da, b->inst};
        b->inst = NULL;
        if (!BK_CALL(b, "destroy", b->api->destroy(&da), d))
            return false;
    }
    plumb_backend_create_args ca;
    memset(&ca, 0, sizeof ca);
    ca.struct_size = sizeof ca;
    ca.options = options;
    ca.n_options = n_options;
    if (!BK_CALL(b, "create", b->api->create(&ca), d))
        return false;
    if (!ca.backend) {
        plumb_diag_set(d, PLUMB_ERR_INVALID, (plumb_loc){0, 0}, "%s: create succeeded but returned no instance",
                       b->where);
        return false;
    }
    b->inst = ca.backend;
    return true;
}

bool conf_backend_instance_drop(conf_backend *b, plumb_diag *d)
{
    if (!b->api || !b->inst)
        return true;
    plumb_backend_destroy_args da = {sizeof da, b->inst};
    b->inst = NULL;
    return BK_CALL(b, "destroy", b->api->destroy(&da), d);
}

bool conf_backend_is_path(const char *spec)
{
    size_t n = strlen(spec);
    return strchr(spec, '/') != NULL || (n > 3 && strcmp(spec + n - 3, ".so") == 0);
}

/* Loads the shared library b->where and validates its table (in the process
 * that will call it). */
static bool load_plugin(conf_backend *b, plumb_diag *d)
{
    plumb_loc nl = {0, 0};
    const char *spec = b->where;
    if (!conf_backend_is_path(spec)) {
        plumb_diag_set(d, PLUMB_ERR_USAGE, nl,
                       "unknown backend '%s': use ref, runtime, or a path to a backend shared library (.so)", spec);
        return false;
    }
    /* dlopen searches the library path for a name without a '/': a bare
     * "minicpu.so" means the file in the current folder, as it does for
     * every other file argument. */
    char here[4096];
    const char *file = spec;
    if (!strchr(spec, '/')) {
        snprintf(here, sizeof here, "./%s", spec);
        file = here;
    }
    /* RTLD_LOCAL: two plugins (or a plugin and plumb) may define the same
     * internal names without one silently binding to the other's. */
    call_enter("dlopen (the library's constructors)");
    b->dl = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    if (!call_leave(spec, "dlopen (the library's constructors)", d))
        goto fail;
    if (!b->dl) {
        const char *why = dlerror();
        plumb_diag_set(d, PLUMB_ERR_IO, nl, "%s: cannot load backend: %s", spec, why ? why : "dlopen failed");
        return false;
    }
    void *sym = dlsym(b->dl, PLUMB_BACKEND_GET_API_SYMBOL);
    if (!sym) {
        plumb_diag_set(d, PLUMB_ERR_INVALID, nl, "%s: not a plumb backend: it does not export %s",
                       spec, PLUMB_BACKEND_GET_API_SYMBOL);
        goto fail;
    }
    plumb_backend_get_api_fn get;
    /* dlsym returns an object pointer; POSIX guarantees the conversion. */
    memcpy(&get, &sym, sizeof get);
    call_enter(PLUMB_BACKEND_GET_API_SYMBOL);
    const plumb_backend_api *api = get(PLUMB_BACKEND_ABI_MAJOR);
    if (!call_leave(spec, PLUMB_BACKEND_GET_API_SYMBOL, d))
        goto fail;
    if (!conf_api_validate(api, spec, d))
        goto fail;
    b->api = api;
    return true;
fail:
    if (b->dl)
        dlclose(b->dl);
    b->dl = NULL;
    return false;
}

/* Everything conf_backend_open does, in the calling process. */
static bool open_here(const char *spec, const plumb_backend_option *options, size_t n_options, conf_backend *b,
                      plumb_diag *d)
{
    plumb_loc nl = {0, 0};
    const plumb_backend_api *api = NULL;
    if (strcmp(spec, "ref") == 0) {
        api = conf_backend_ref_api(PLUMB_BACKEND_ABI_MAJOR);
    } else if (strcmp(spec, "runtime") == 0) {
        api = conf_backend_runtime_api(PLUMB_BACKEND_ABI_MAJOR);
    } else if (conf_backend_is_path(spec)) {
        if (!load_plugin(b, d))
            return false;
        api = b->api;
    } else {
        plumb_diag_set(d, PLUMB_ERR_USAGE, nl,
                       "unknown backend '%s': use ref, runtime, or a path to a backend shared library (.so)", spec);
        return false;
    }
    if (!conf_api_validate(api, spec, d)) {
        conf_backend_close(b);
        return false;
    }
    b->api = api;
    /* Precision bounds the read: the table's strings need not be terminated
     * within what is kept. */
    snprintf(b->name, sizeof b->name, "%.*s", (int)sizeof b->name - 1, api->name);
    snprintf(b->version, sizeof b->version, "%.*s", (int)sizeof b->version - 1, api->version);
    if (!conf_backend_instance(b, options, n_options, d)) {
        conf_backend_close(b);
        return false;
    }
    plumb_backend_capabilities_args ka = {sizeof ka, b->inst, NULL};
    if (!BK_CALL(b, "capabilities", api->capabilities(&ka), d) ||
        !conf_caps_translate_minor(ka.capabilities, api->abi_minor, spec, &b->caps, d)) {
        conf_backend_close(b);
        return false;
    }
    /* Work happens in forked workers, each with an instance of its own; an
     * instance whose threads did not survive fork must never be used, so
     * this one goes as soon as its capabilities are read. */
    plumb_backend_destroy_args da = {sizeof da, b->inst};
    b->inst = NULL;
    if (!BK_CALL(b, "destroy", api->destroy(&da), d)) {
        conf_backend_close(b);
        return false;
    }
    return true;
}

/* Reads exactly n bytes unless the writer ends first (returns the count) or
 * the deadline passes (-1). deadline <= 0: no limit. */
static ssize_t read_until(int fd, void *p, size_t n, double deadline)
{
    size_t have = 0;
    while (have < n) {
        int ms = -1;
        if (deadline > 0) {
            double left = deadline - conf_now();
            if (left <= 0)
                return -1;
            ms = (int)(left * 1000) + 1;
        }
        struct pollfd pf = {fd, POLLIN, 0};
        int pr = poll(&pf, 1, ms);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr < 0)
            return (ssize_t)have;
        if (pr == 0)
            continue;
        ssize_t r = read(fd, (char *)p + have, n - have);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return (ssize_t)have;
        have += (size_t)r;
    }
    return (ssize_t)have;
}

bool conf_write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        c += w;
        n -= (size_t)w;
    }
    return true;
}

/* A child process the parent reads one answer from. */
typedef struct child {
    pid_t pid;
    int fd;
    conf_guard *guard;
} child;

/* Forks; in the child returns true with c->pid == 0 after conf_guard_child
 * (the child writes to c->fd). */
static bool child_start(child *c, plumb_diag *d)
{
    int p[2];
    c->pid = -1;
    c->fd = -1;
    c->guard = conf_guard_new();
    if (pipe(p) != 0) {
        plumb_diag_set(d, PLUMB_ERR_RUNTIME, (plumb_loc){0, 0}, "cannot create a pipe: %s", strerror(errno));
        conf_guard_free(c->guard);
        return false;
    }
    fflush(stdout);
    fflush(stderr);
    c->pid = fork();
    if (c->pid < 0) {
        plumb_diag_set(d, PLUMB_ERR_RUNTIME, (plumb_loc){0, 0}, "cannot start a process: %s", strerror(errno));
        close(p[0]);
        close(p[1]);
        conf_guard_free(c->guard);
        return false;
    }
    if (c->pid == 0) {
        close(p[0]);
        c->fd = p[1];
        conf_guard_child(c->guard);
        return true;
    }
    close(p[1]);
    c->fd = p[0];
    return true;
}

/* Ends the parent's side: kills the child when it timed out, reaps it and
 * describes how it ended into why (when why is not NULL). */
static void child_finish(child *c, bool kill_it, char *why, size_t cap)
{
    int status = 0;
    char call[sizeof c->guard->call + 1] = "";
    if (kill_it) {
        /* What it was doing, read before the kill ends the call. */
        if (c->guard)
            snprintf(call, sizeof call, "%.*s", (int)sizeof c->guard->call, c->guard->call);
        kill(c->pid, SIGKILL);
    }
    while (waitpid(c->pid, &status, 0) < 0 && errno == EINTR)
        ;
    close(c->fd);
    if (why && kill_it)
        snprintf(why, cap, "was killed %s%s", call[0] ? "in " : "between plugin calls", call);
    else if (why)
        conf_guard_describe(c->guard, status, why, cap);
    conf_guard_free(c->guard);
}

/* What a probe child sends back. */
typedef struct probe_wire {
    uint32_t ok;
    int32_t code;
    char msg[sizeof(((plumb_diag *)0)->msg)];
    char name[64], version[64];
    conf_caps caps;
} probe_wire;

static int g_answer_fd = -1;     /* where conf_guard_answer writes, in a conf_guard_run child */

void conf_guard_answer(const void *answer, size_t size)
{
    _exit(g_answer_fd >= 0 && conf_write_all(g_answer_fd, answer, size) ? 0 : 3);
}

bool conf_guard_run(void (*fn)(void *arg), void *arg, void *answer, size_t size, char *why, size_t why_cap)
{
    child c;
    plumb_diag d;
    plumb_diag_clear(&d);
    if (!child_start(&c, &d)) {
        snprintf(why, why_cap, "%s", d.msg);
        return false;
    }
    if (c.pid == 0) {
        g_answer_fd = c.fd;
        fn(arg);
        /* fn returned without answering: nothing to report but that. */
        _exit(3);
    }
    ssize_t got = read_until(c.fd, answer, size, 0);
    if (got != (ssize_t)size) {
        child_finish(&c, false, why, why_cap);
        return false;
    }
    child_finish(&c, false, NULL, 0);
    return true;
}

bool conf_backend_open_timeout(const char *spec, const plumb_backend_option *options, size_t n_options,
                               double timeout_s, conf_backend *b, plumb_diag *d)
{
    memset(b, 0, sizeof *b);
    snprintf(b->where, sizeof b->where, "%s", spec);
    if (!conf_backend_is_path(spec))
        return open_here(spec, options, n_options, b, d);
    /* A plugin is native code that may exit, crash or hang anywhere, even in
     * its constructors: it is probed in a child, and only what the child
     * reports reaches the verdict. */
    child c;
    if (!child_start(&c, d))
        return false;
    if (c.pid == 0) {
        probe_wire w;
        memset(&w, 0, sizeof w);
        plumb_diag cd;
        plumb_diag_clear(&cd);
        w.ok = open_here(spec, options, n_options, b, &cd);
        w.code = cd.code;
        memcpy(w.msg, cd.msg, sizeof w.msg);
        memcpy(w.name, b->name, sizeof w.name);
        memcpy(w.version, b->version, sizeof w.version);
        w.caps = b->caps;
        _exit(conf_write_all(c.fd, &w, sizeof w) ? 0 : 3);
    }
    probe_wire w;
    double deadline = conf_now() + (timeout_s > 0 ? timeout_s : 60);
    ssize_t got = read_until(c.fd, &w, sizeof w, deadline);
    if (got != (ssize_t)sizeof w) {
        char why[160];
        child_finish(&c, got < 0, why, sizeof why);
        if (got < 0)
            plumb_diag_set(d, PLUMB_ERR_RUNTIME, (plumb_loc){0, 0},
                           "%s: the backend did not finish loading within %g s (its process %s)", spec,
                           timeout_s > 0 ? timeout_s : 60, why);
        else
            plumb_diag_set(d, PLUMB_ERR_RUNTIME, (plumb_loc){0, 0},
                           "%s: the backend's process %s while plumb loaded it", spec, why);
        return false;
    }
    child_finish(&c, false, NULL, 0);
    w.msg[sizeof w.msg - 1] = 0;
    w.name[sizeof w.name - 1] = 0;
    w.version[sizeof w.version - 1] = 0;
    if (!w.ok) {
        plumb_diag_set(d, (plumb_code)w.code, (plumb_loc){0, 0}, "%s", w.msg);
        return false;
    }
    memcpy(b->name, w.name, sizeof b->name);
    memcpy(b->version, w.version, sizeof b->version);
    b->caps = w.caps;
    return true;
}

bool conf_backend_open(const char *spec, const plumb_backend_option *options, size_t n_options,
                       conf_backend *b, plumb_diag *d)
{
    return conf_backend_open_timeout(spec, options, n_options, 60, b, d);
}

void conf_backend_close(conf_backend *b)
{
    if (b->api && b->inst) {
        plumb_backend_destroy_args da = {sizeof da, b->inst};
        plumb_diag ignored;
        plumb_diag_clear(&ignored);
        BK_CALL(b, "destroy", b->api->destroy(&da), &ignored);
    }
    b->inst = NULL;
    if (b->dl) {
        call_enter("dlclose (the library's destructors)");
        dlclose(b->dl);
        call_leave(b->where, "dlclose (the library's destructors)", NULL);
    }
    b->dl = NULL;
    b->api = NULL;
}

void conf_tensors_free(plumb_tensor **ts, uint32_t n)
{
    if (!ts)
        return;
    for (uint32_t i = 0; i < n; i++)
        plumb_tensor_free(ts[i]);
    plumb_free(ts, (size_t)n * sizeof *ts);
}

/* Copies one output buffer into a plumb tensor, checking everything the
 * backend claims about it against the type the program declares (want;
 * NULL = unknown) and the byte limit before anything is allocated: a bad
 * buffer is the backend's error, not ours, and a claimed shape must never
 * make plumb allocate or copy what the program cannot produce. */
static plumb_tensor *buffer_to_tensor(conf_backend *b, const plumb_backend_buffer *bf, size_t i,
                                      const ir_type *want, plumb_diag *d)
{
    plumb_loc nl = {0, 0};
    if (bf->struct_size < sizeof(plumb_backend_buffer)) {
        plumb_diag_set(d, PLUMB_ERR_RUNTIME, nl, "%s: output %zu: struct_size %zu is too short", b->where, i,
                       bf->struct_size);
        return NULL;
    }
    plumb_dtype t;
    size_t tl = bf->dtype ? strnlen(bf->dtype, CONF_BK_DTYPE_MAX) : 0;
    if (bf->dtype && tl == CONF_BK_DTYPE_MAX) {
        plumb_diag_set(d, PLUMB_ERR_RUNTIME, nl,
                       "%s: output %zu: the element type is not a NUL-terminated string of at most %d bytes",
                       b->where, i, CONF_BK_DTYPE_MAX - 1);
        return NULL;
    }
    if (!bf->dtype || !plumb_dtype_parse(bf->dtype, tl, &t)) {
        plumb_diag_set(d, PLUMB_ERR_RUNTIME, nl, "%s: output %zu: unknown element type '%s'", b->where, i,
                       bf->dtype ? bf->dtype : "(null)");
        return NULL;
    }
    if (bf->rank > PLUMB_MAX_RANK || (bf->rank > 0 && !bf->dims)) {
        plumb_diag_set(d, PLUMB_ERR_RUNTIME, nl, "%s: output %zu: bad rank %u or missing dims", b->where, i, bf->rank);
        return NULL;
    }
    for (uint32_t k = 0; k < bf->rank; k++) {
        if (bf->dims[k] < 0) {
            plumb_diag_set(d, PLUMB_ERR_RUNTIME, nl, "%s: output %zu: negative dimension %u", b->where, i, k);
            return NULL;
        }
    }
    if (want) {
        bool same = want->dtype == t && want->rank == bf->rank;
        for (uint32_t k = 0; same && k < bf->rank; k++) {
            if (want->dims[k] >= 0)
                same = want->dims[k] == bf->dims[k];
            else if (want->bounds[k] >= 0)
                same = bf->dims[k] <= want->bounds[k];
        }
        if (!same) {
            plumb_buf wb, gb;
            plumb_buf_init(&wb);
            plumb_buf_init(&gb);
            ir_type_print(&wb, want);
            plumb_buf_printf(&gb, "tensor<");
            for (uint32_t k = 0; k < bf->rank; k++)
                plumb_buf_printf(&gb, "%lldx", (long long)bf->dims[k]);
            plumb_buf_printf(&gb, "%s>", plumb_dtype_name(t));
            plumb_diag_set(d, PLUMB_ERR_RUNTIME, nl, "%s: output %zu: the backend returned %s, the program declares %s",
                           b->where, i, gb.failed || !gb.data ? "?" : gb.data, wb.failed || !wb.data ? "?" : wb.data);
            plumb_buf_free(&wb);
            plumb_buf_free(&gb);
            return NULL;
        }
    }
    uint64_t numel = 0, nbytes = 0;
    uint64_t limit = plumb_max_bytes(b->max_bytes);
    plumb_diag sd;
    plumb_diag_clear(&sd);
    if (!plumb_shape_size(t, bf->rank, bf->dims, limit, &numel, &nbytes, &sd)) {
        plumb_diag_set(d, PLUMB_ERR_RUNTIME, nl, "%s: output %zu: %s", b->where, i, sd.msg);
        return NULL;
    }
    if (bf->byte_size != nbytes) {
        plumb_diag_set(d, PLUMB_ERR_RUNTIME, nl,
                       "%s: output %zu: byte_size %llu does not match its type (%llu bytes expected)",
                       b->where, i, (unsigned long long)bf->byte_size, (unsigned long long)nbytes);
        return NULL;
    }
    if (nbytes > 0 && !bf->data) {
        plumb_diag_set(d, PLUMB_ERR_RUNTIME, nl, "%s: output %zu: the data pointer is NULL (%llu bytes promised)",
                       b->where, i, (unsigned long long)nbytes);
        return NULL;
    }
    plumb_tensor *out = plumb_tensor_new(t, bf->rank, bf->dims, limit, d);
    if (!out)
        return NULL;
    if (out->nbytes)
        memcpy(out->data, bf->data, out->nbytes);
    return out;
}

/* Compiles and runs function entry of program on b's instance. */
static bool run_entry(conf_backend *b, const char *program, const char *entry, plumb_tensor *const *inputs,
                      uint32_t n_inputs, plumb_tensor ***outs, uint32_t *n_outs, plumb_diag *d)
{
    *outs = NULL;
    *n_outs = 0;
    /* The ABI promises backends plumb's canonical text, whatever spelling
     * the program was written in. */
    ir_module *m = ir_parse(program, strlen(program), "<case>", NULL, d);
    if (!m)
        return false;
    const ir_func *f = ir_module_find_func(m, entry);
    if (!f) {
        plumb_diag_set(d, PLUMB_ERR_USAGE, (plumb_loc){0, 0}, "the program has no function @%s", entry);
        ir_module_free(m);
        return false;
    }
    plumb_buf canon;
    plumb_buf_init(&canon);
    ir_print(&canon, m);
    if (canon.failed || !canon.data) {
        plumb_buf_free(&canon);
        ir_module_free(m);
        plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory printing the program");
        return false;
    }
    plumb_backend_compile_args ca;
    memset(&ca, 0, sizeof ca);
    ca.struct_size = sizeof ca;
    ca.backend = b->inst;
    ca.program = canon.data;
    ca.program_size = canon.len;
    ca.entry = entry;
    bool compiled = BK_CALL(b, "compile", b->api->compile(&ca), d);
    plumb_buf_free(&canon);
    if (!compiled) {
        ir_module_free(m);
        return false;
    }
    if (!ca.executable) {
        plumb_diag_set(d, PLUMB_ERR_RUNTIME, (plumb_loc){0, 0}, "%s: compile succeeded but returned no executable",
                       b->where);
        ir_module_free(m);
        return false;
    }
    bool ok = false;
    plumb_backend_buffer *in = NULL;
    if (n_inputs) {
        in = plumb_calloc(n_inputs, sizeof *in);
        if (!in) {
            plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory");
            goto free_exe;
        }
    }
    for (uint32_t i = 0; i < n_inputs; i++) {
        in[i].struct_size = sizeof in[i];
        in[i].dtype = plumb_dtype_name(inputs[i]->dtype);
        in[i].rank = inputs[i]->rank;
        in[i].dims = inputs[i]->dims;
        in[i].data = inputs[i]->data;
        in[i].byte_size = inputs[i]->nbytes;
    }
    plumb_backend_execute_args ea;
    memset(&ea, 0, sizeof ea);
    ea.struct_size = sizeof ea;
    ea.backend = b->inst;
    ea.executable = ca.executable;
    ea.inputs = in;
    ea.n_inputs = n_inputs;
    ok = BK_CALL(b, "execute", b->api->execute(&ea), d);
    plumb_free(in, (size_t)n_inputs * sizeof *in);
    if (ok && !ea.outputs) {
        plumb_diag_set(d, PLUMB_ERR_RUNTIME, (plumb_loc){0, 0}, "%s: execute succeeded but returned no outputs",
                       b->where);
        ok = false;
    }
    if (ok) {
        const plumb_backend_outputs *o = ea.outputs;
        if (o->struct_size < sizeof *o || (o->n_buffers > 0 && !o->buffers) || o->n_buffers > UINT32_MAX) {
            plumb_diag_set(d, PLUMB_ERR_RUNTIME, (plumb_loc){0, 0}, "%s: execute returned a malformed outputs object",
                           b->where);
            ok = false;
        } else if (o->n_buffers != f->n_results) {
            plumb_diag_set(d, PLUMB_ERR_RUNTIME, (plumb_loc){0, 0},
                           "%s: execute returned %zu outputs, @%s has %u results", b->where, o->n_buffers, entry,
                           f->n_results);
            ok = false;
        } else if (o->n_buffers) {
            plumb_tensor **ts = plumb_calloc(o->n_buffers, sizeof *ts);
            if (!ts) {
                plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory");
                ok = false;
            }
            for (size_t i = 0; ok && i < o->n_buffers; i++) {
                ts[i] = buffer_to_tensor(b, &o->buffers[i], i, &f->result_types[i], d);
                if (!ts[i]) {
                    conf_tensors_free(ts, (uint32_t)o->n_buffers);
                    ts = NULL;
                    ok = false;
                }
            }
            if (ok) {
                *outs = ts;
                *n_outs = (uint32_t)o->n_buffers;
            }
        }
    }
    if (ea.outputs) {
        call_enter("outputs_free");
        b->api->outputs_free(ea.outputs);
        plumb_diag pd;
        plumb_diag_clear(&pd);
        if (!call_leave(b->where, "outputs_free", &pd) && ok) {
            *d = pd;
            ok = false;
            conf_tensors_free(*outs, *n_outs);
            *outs = NULL;
            *n_outs = 0;
        }
    }
free_exe:;
    ir_module_free(m);
    plumb_backend_executable_free_args fa = {sizeof fa, b->inst, ca.executable};
    plumb_diag fd;
    plumb_diag_clear(&fd);
    if (!BK_CALL(b, "executable_free", b->api->executable_free(&fa), &fd) && ok) {
        *d = fd;
        conf_tensors_free(*outs, *n_outs);
        *outs = NULL;
        *n_outs = 0;
        return false;
    }
    return ok;
}

bool conf_backend_run(conf_backend *b, const char *program, plumb_tensor *const *inputs,
                      uint32_t n_inputs, plumb_tensor ***outs, uint32_t *n_outs, plumb_diag *d)
{
    return run_entry(b, program, "main", inputs, n_inputs, outs, n_outs, d);
}

bool conf_backend_stats(conf_backend *b, plumb_backend_stats *st, plumb_diag *d)
{
    memset(st, 0, sizeof *st);
    st->struct_size = sizeof *st;
    plumb_backend_stats_args sa = {sizeof sa, b->inst, st};
    bool ok = BK_CALL(b, "stats", b->api->stats(&sa), d);
    st->struct_size = sizeof *st;
    return ok;
}

bool conf_backend_has_explain(const conf_backend *b)
{
    return b->api && PLUMB_BACKEND_HAS_FIELD(b->api, plumb_backend_api, explain) && b->api->explain != NULL;
}

bool conf_backend_explain(conf_backend *b, char *text, size_t tcap, char *json, size_t jcap, plumb_diag *d)
{
    if (tcap)
        text[0] = 0;
    if (jcap)
        json[0] = 0;
    if (!conf_backend_has_explain(b))
        return true;
    plumb_backend_explain_args ea = {sizeof ea, b->inst, NULL, NULL};
    if (!BK_CALL(b, "explain", b->api->explain(&ea), d))
        return false;
    /* Backend strings are read to their NUL or the caller's buffer, no
     * further (as error messages are). */
    if (ea.text && tcap)
        snprintf(text, tcap, "%.*s", (int)strnlen(ea.text, tcap - 1), ea.text);
    if (ea.json && jcap)
        snprintf(json, jcap, "%.*s", (int)strnlen(ea.json, jcap - 1), ea.json);
    return true;
}

bool conf_backend_reset_stats(conf_backend *b, plumb_diag *d)
{
    plumb_backend_reset_stats_args ra = {sizeof ra, b->inst};
    return BK_CALL(b, "reset_stats", b->api->reset_stats(&ra), d);
}

/* ---- one program on a plugin, in a child ------------------------------------ */

/* The child's answer: this header, then per result a run_wire_out and its
 * bytes. */
typedef struct run_wire {
    uint32_t ok;
    int32_t code;
    uint32_t n_outs;
    char msg[sizeof(((plumb_diag *)0)->msg)];
} run_wire;

typedef struct run_wire_out {
    uint32_t dtype;
    uint32_t rank;
    int64_t dims[PLUMB_MAX_RANK];
    uint64_t nbytes;
} run_wire_out;

static void run_child(conf_backend *b, const plumb_backend_option *options, size_t n_options,
                      const char *program, const char *entry, plumb_tensor *const *inputs, uint32_t n_inputs,
                      int fd)
{
    plumb_diag cd;
    plumb_diag_clear(&cd);
    plumb_tensor **outs = NULL;
    uint32_t n_outs = 0;
    run_wire w;
    memset(&w, 0, sizeof w);
    w.ok = conf_backend_instance(b, options, n_options, &cd) &&
           run_entry(b, program, entry, inputs, n_inputs, &outs, &n_outs, &cd);
    /* destroy runs before the answer is sent, so that a plugin dying or
     * hanging in it is reported like any other call, and nothing of the
     * plugin runs after the parent has its results. */
    conf_backend_close(b);
    w.code = cd.code;
    w.n_outs = n_outs;
    memcpy(w.msg, cd.msg, sizeof w.msg);
    bool sent = conf_write_all(fd, &w, sizeof w);
    for (uint32_t i = 0; sent && i < n_outs; i++) {
        run_wire_out o;
        memset(&o, 0, sizeof o);
        o.dtype = (uint32_t)outs[i]->dtype;
        o.rank = outs[i]->rank;
        memcpy(o.dims, outs[i]->dims, sizeof o.dims);
        o.nbytes = outs[i]->nbytes;
        sent = conf_write_all(fd, &o, sizeof o) && (!o.nbytes || conf_write_all(fd, outs[i]->data, o.nbytes));
    }
    conf_tensors_free(outs, n_outs);
    _exit(sent ? 0 : 3);
}

bool conf_backend_run_isolated(const char *spec, const plumb_backend_option *options, size_t n_options,
                               const char *program, const char *entry, plumb_tensor *const *inputs,
                               uint32_t n_inputs, double timeout_s, uint64_t max_bytes, plumb_tensor ***outs,
                               uint32_t *n_outs, plumb_diag *d)
{
    *outs = NULL;
    *n_outs = 0;
    if (!entry)
        entry = "main";
    conf_backend b;
    memset(&b, 0, sizeof b);
    snprintf(b.where, sizeof b.where, "%s", spec);
    b.max_bytes = max_bytes;
    if (strcmp(spec, "ref") == 0 || strcmp(spec, "runtime") == 0)
        b.api = strcmp(spec, "ref") == 0 ? conf_backend_ref_api(PLUMB_BACKEND_ABI_MAJOR)
                                         : conf_backend_runtime_api(PLUMB_BACKEND_ABI_MAJOR);
    child c;
    if (!child_start(&c, d))
        return false;
    if (c.pid == 0)
        run_child(&b, options, n_options, program, entry, inputs, n_inputs, c.fd);
    double deadline = timeout_s > 0 ? conf_now() + timeout_s : 0;
    char why[160];
    run_wire w;
    ssize_t got = read_until(c.fd, &w, sizeof w, deadline);
    plumb_tensor **ts = NULL;
    uint32_t n = 0;
    if (got != (ssize_t)sizeof w)
        goto lost;
    w.msg[sizeof w.msg - 1] = 0;
    if (!w.ok) {
        child_finish(&c, false, NULL, 0);
        plumb_diag_set(d, (plumb_code)w.code, (plumb_loc){0, 0}, "%s", w.msg);
        return false;
    }
    if (w.n_outs > 4096) {
        child_finish(&c, true, NULL, 0);
        plumb_diag_set(d, PLUMB_ERR_RUNTIME, (plumb_loc){0, 0}, "%s: the backend's process sent %u results", spec,
                       w.n_outs);
        return false;
    }
    if (w.n_outs && !(ts = plumb_calloc(w.n_outs, sizeof *ts))) {
        child_finish(&c, true, NULL, 0);
        plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory");
        return false;
    }
    n = w.n_outs;
    for (uint32_t i = 0; i < n; i++) {
        run_wire_out o;
        got = read_until(c.fd, &o, sizeof o, deadline);
        if (got != (ssize_t)sizeof o)
            goto lost;
        /* The child checked the result against the program; the parent
         * still allocates nothing the limit or the header does not allow. */
        uint64_t numel = 0, nbytes = 0;
        plumb_diag sd;
        plumb_diag_clear(&sd);
        if (o.dtype >= PLUMB_DTYPE_COUNT || o.rank > PLUMB_MAX_RANK ||
            !plumb_shape_size((plumb_dtype)o.dtype, o.rank, o.dims, plumb_max_bytes(max_bytes), &numel, &nbytes,
                              &sd) ||
            nbytes != o.nbytes) {
            child_finish(&c, true, NULL, 0);
            plumb_diag_set(d, PLUMB_ERR_RUNTIME, (plumb_loc){0, 0}, "%s: result %u: malformed or too large (%s)",
                           spec, i, sd.msg[0] ? sd.msg : "bad header");
            conf_tensors_free(ts, n);
            return false;
        }
        if (!(ts[i] = plumb_tensor_new((plumb_dtype)o.dtype, o.rank, o.dims, plumb_max_bytes(max_bytes), d))) {
            child_finish(&c, true, NULL, 0);
            conf_tensors_free(ts, n);
            return false;
        }
        got = read_until(c.fd, ts[i]->data, ts[i]->nbytes, deadline);
        if (got != (ssize_t)ts[i]->nbytes)
            goto lost;
    }
    child_finish(&c, false, NULL, 0);
    *outs = ts;
    *n_outs = n;
    return true;
lost:
    child_finish(&c, got < 0, why, sizeof why);
    conf_tensors_free(ts, n);
    if (got < 0)
        plumb_diag_set(d, PLUMB_ERR_RUNTIME, (plumb_loc){0, 0}, "%s: timed out after %g s: the backend's process %s",
                       spec, timeout_s, why);
    else
        plumb_diag_set(d, PLUMB_ERR_RUNTIME, (plumb_loc){0, 0},
                       "%s: the backend's process %s before it sent its results", spec, why);
    return false;
}
