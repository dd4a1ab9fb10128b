/* Loading backends through the plugin ABI and holding them to it: a table
 * that does not match what this plumb understands is rejected before any of
 * its functions is called, with a message naming the file and the problem. */
#include <dlfcn.h>
#include <string.h>

#include "certify.h"

/* ABI dtype bits in the order of ir/dtypes.def: one name per bit. */
static const char *const abi_dtype_names[] = {
    "i1", "i8", "i16", "i32", "i64", "ui8", "ui16", "ui32", "ui64", "f16", "bf16", "f32", "f64",
};

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
    if (api->struct_size < sizeof(plumb_backend_api)) {
        plumb_diag_set(d, PLUMB_ERR_INVALID, nl,
                       "%s: function table struct_size %zu is shorter than ABI %u.0's %zu bytes (fields missing)",
                       where, api->struct_size, PLUMB_BACKEND_ABI_MAJOR, sizeof(plumb_backend_api));
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
    plumb_loc nl = {0, 0};
    memset(out, 0, sizeof *out);
    if (!c) {
        plumb_diag_set(d, PLUMB_ERR_INVALID, nl, "%s: capabilities returned no capabilities object", where);
        return false;
    }
    if (c->struct_size < sizeof(plumb_backend_capabilities)) {
        plumb_diag_set(d, PLUMB_ERR_INVALID, nl,
                       "%s: capabilities struct_size %zu is shorter than ABI %u.0's %zu bytes",
                       where, c->struct_size, PLUMB_BACKEND_ABI_MAJOR, sizeof(plumb_backend_capabilities));
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
        if (!oc->name || !plumb_op_lookup(oc->name, strlen(oc->name), &op)) {
            plumb_diag_set(d, PLUMB_ERR_INVALID, nl,
                           "%s: capabilities name unknown op '%s' (docs/ops.md lists the ops of op set v1)",
                           where, oc->name ? oc->name : "(null)");
            return false;
        }
        if (oc->dtypes & ~PLUMB_BACKEND_DT_ALL_V1) {
            plumb_diag_set(d, PLUMB_ERR_INVALID, nl,
                           "%s: capabilities of op '%s' set unknown element-type bits 0x%x",
                           where, oc->name, oc->dtypes & ~PLUMB_BACKEND_DT_ALL_V1);
            return false;
        }
        uint32_t m = abi_to_plumb_mask(oc->dtypes);
        uint32_t bad = m & ~plumb_op_get(op)->types;
        if (bad) {
            char names[128];
            uint32_t abi_bad = 0;
            for (uint32_t b = 0; b < 13; b++)
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
    if (c->polymorphic_shapes > PLUMB_BACKEND_POLY_BOUNDED) {
        plumb_diag_set(d, PLUMB_ERR_INVALID, nl, "%s: capabilities: unknown polymorphic_shapes value %u",
                       where, c->polymorphic_shapes);
        return false;
    }
    out->poly = (plumb_backend_poly)c->polymorphic_shapes;
    const uint32_t float_abi = PLUMB_BACKEND_DT_F16 | PLUMB_BACKEND_DT_BF16 | PLUMB_BACKEND_DT_F32 | PLUMB_BACKEND_DT_F64;
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
    return true;
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
    plumb_diag_set(d, pc, nl, "%s: %s failed (code %d): %s", b->where, step, (int)code,
                   msg ? msg : "(no message)");
    b->api->error_free(e);
    return false;
}

bool conf_backend_instance(conf_backend *b, const plumb_backend_option *options, size_t n_options,
                           plumb_diag *d)
{
    if (b->inst) {
        plumb_backend_destroy_args da = {sizeof da, b->inst};
        plumb_backend_error *e = b->api->destroy(&da);
        b->inst = NULL;
        if (!take_error(b, e, "destroy", d))
            return false;
    }
    plumb_backend_create_args ca;
    memset(&ca, 0, sizeof ca);
    ca.struct_size = sizeof ca;
    ca.options = options;
    ca.n_options = n_options;
    if (!take_error(b, b->api->create(&ca), "create", d))
        return false;
    if (!ca.backend) {
        plumb_diag_set(d, PLUMB_ERR_INVALID, (plumb_loc){0, 0}, "%s: create succeeded but returned no instance",
                       b->where);
        return false;
    }
    b->inst = ca.backend;
    return true;
}

static bool is_path(const char *spec)
{
    size_t n = strlen(spec);
    return strchr(spec, '/') != NULL || (n > 3 && strcmp(spec + n - 3, ".so") == 0);
}

bool conf_backend_open(const char *spec, const plumb_backend_option *options, size_t n_options,
                       conf_backend *b, plumb_diag *d)
{
    plumb_loc nl = {0, 0};
    memset(b, 0, sizeof *b);
    snprintf(b->where, sizeof b->where, "%s", spec);
    const plumb_backend_api *api = NULL;
    if (strcmp(spec, "ref") == 0) {
        api = conf_backend_ref_api(PLUMB_BACKEND_ABI_MAJOR);
    } else if (strcmp(spec, "runtime") == 0) {
        api = conf_backend_runtime_api(PLUMB_BACKEND_ABI_MAJOR);
    } else if (is_path(spec)) {
        /* RTLD_LOCAL: two plugins (or a plugin and plumb) may define the same
         * internal names without one silently binding to the other's. */
        /* dlopen searches the library path for a name without a '/': a
         * bare "minicpu.so" means the file in the current folder, as it
         * does for every other file argument. */
        char here[4096];
        const char *file = spec;
        if (!strchr(spec, '/')) {
            snprintf(here, sizeof here, "./%s", spec);
            file = here;
        }
        b->dl = dlopen(file, RTLD_NOW | RTLD_LOCAL);
        if (!b->dl) {
            const char *why = dlerror();
            plumb_diag_set(d, PLUMB_ERR_IO, nl, "%s: cannot load backend: %s", spec, why ? why : "dlopen failed");
            return false;
        }
        void *sym = dlsym(b->dl, PLUMB_BACKEND_GET_API_SYMBOL);
        if (!sym) {
            plumb_diag_set(d, PLUMB_ERR_INVALID, nl, "%s: not a plumb backend: it does not export %s",
                           spec, PLUMB_BACKEND_GET_API_SYMBOL);
            conf_backend_close(b);
            return false;
        }
        plumb_backend_get_api_fn get;
        /* dlsym returns an object pointer; POSIX guarantees the conversion. */
        memcpy(&get, &sym, sizeof get);
        api = get(PLUMB_BACKEND_ABI_MAJOR);
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
    snprintf(b->name, sizeof b->name, "%s", api->name);
    snprintf(b->version, sizeof b->version, "%s", api->version);
    if (!conf_backend_instance(b, options, n_options, d)) {
        conf_backend_close(b);
        return false;
    }
    plumb_backend_capabilities_args ka = {sizeof ka, b->inst, NULL};
    if (!take_error(b, api->capabilities(&ka), "capabilities", d) ||
        !conf_caps_translate(ka.capabilities, spec, &b->caps, d)) {
        conf_backend_close(b);
        return false;
    }
    /* Work happens in forked workers, each with an instance of its own; an
     * instance whose threads did not survive fork must never be used, so
     * this one goes as soon as its capabilities are read. */
    plumb_backend_destroy_args da = {sizeof da, b->inst};
    b->inst = NULL;
    if (!take_error(b, api->destroy(&da), "destroy", d)) {
        conf_backend_close(b);
        return false;
    }
    return true;
}

void conf_backend_close(conf_backend *b)
{
    if (b->api && b->inst) {
        plumb_backend_destroy_args da = {sizeof da, b->inst};
        plumb_backend_error *e = b->api->destroy(&da);
        if (e)
            b->api->error_free(e);
    }
    b->inst = NULL;
    if (b->dl)
        dlclose(b->dl);
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
 * backend claims about it: a bad buffer is the backend's error, not ours. */
static plumb_tensor *buffer_to_tensor(conf_backend *b, const plumb_backend_buffer *bf, size_t i, plumb_diag *d)
{
    plumb_loc nl = {0, 0};
    if (bf->struct_size < sizeof(plumb_backend_buffer)) {
        plumb_diag_set(d, PLUMB_ERR_RUNTIME, nl, "%s: output %zu: struct_size %zu is too short", b->where, i,
                       bf->struct_size);
        return NULL;
    }
    plumb_dtype t;
    if (!bf->dtype || !plumb_dtype_parse(bf->dtype, strlen(bf->dtype), &t)) {
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
    plumb_tensor *out = plumb_tensor_new(t, bf->rank, bf->dims, 0, d);
    if (!out)
        return NULL;
    if (bf->byte_size != out->nbytes || (out->nbytes > 0 && !bf->data)) {
        plumb_diag_set(d, PLUMB_ERR_RUNTIME, nl,
                       "%s: output %zu: byte_size %llu does not match its type (%zu bytes expected)",
                       b->where, i, (unsigned long long)bf->byte_size, out->nbytes);
        plumb_tensor_free(out);
        return NULL;
    }
    if (out->nbytes)
        memcpy(out->data, bf->data, out->nbytes);
    return out;
}

bool conf_backend_run(conf_backend *b, const char *program, plumb_tensor *const *inputs,
                      uint32_t n_inputs, plumb_tensor ***outs, uint32_t *n_outs, plumb_diag *d)
{
    *outs = NULL;
    *n_outs = 0;
    /* The ABI promises backends plumb's canonical text, whatever spelling
     * the program was written in. */
    ir_module *m = ir_parse(program, strlen(program), "<case>", NULL, d);
    if (!m)
        return false;
    plumb_buf canon;
    plumb_buf_init(&canon);
    ir_print(&canon, m);
    ir_module_free(m);
    if (canon.failed || !canon.data) {
        plumb_buf_free(&canon);
        plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory printing the program");
        return false;
    }
    plumb_backend_compile_args ca;
    memset(&ca, 0, sizeof ca);
    ca.struct_size = sizeof ca;
    ca.backend = b->inst;
    ca.program = canon.data;
    ca.program_size = canon.len;
    ca.entry = "main";
    bool compiled = take_error(b, b->api->compile(&ca), "compile", d);
    plumb_buf_free(&canon);
    if (!compiled)
        return false;
    if (!ca.executable) {
        plumb_diag_set(d, PLUMB_ERR_RUNTIME, (plumb_loc){0, 0}, "%s: compile succeeded but returned no executable",
                       b->where);
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
    ok = take_error(b, b->api->execute(&ea), "execute", d);
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
        } else if (o->n_buffers) {
            plumb_tensor **ts = plumb_calloc(o->n_buffers, sizeof *ts);
            if (!ts) {
                plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory");
                ok = false;
            }
            for (size_t i = 0; ok && i < o->n_buffers; i++) {
                ts[i] = buffer_to_tensor(b, &o->buffers[i], i, d);
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
    if (ea.outputs)
        b->api->outputs_free(ea.outputs);
free_exe:;
    plumb_backend_executable_free_args fa = {sizeof fa, b->inst, ca.executable};
    plumb_backend_error *e = b->api->executable_free(&fa);
    if (!take_error(b, e, "executable_free", d) && ok) {
        conf_tensors_free(*outs, *n_outs);
        *outs = NULL;
        *n_outs = 0;
        return false;
    }
    return ok;
}

bool conf_backend_stats(conf_backend *b, plumb_backend_stats *st, plumb_diag *d)
{
    memset(st, 0, sizeof *st);
    st->struct_size = sizeof *st;
    plumb_backend_stats_args sa = {sizeof sa, b->inst, st};
    bool ok = take_error(b, b->api->stats(&sa), "stats", d);
    st->struct_size = sizeof *st;
    return ok;
}

bool conf_backend_reset_stats(conf_backend *b, plumb_diag *d)
{
    plumb_backend_reset_stats_args ra = {sizeof ra, b->inst};
    return take_error(b, b->api->reset_stats(&ra), "reset_stats", d);
}
