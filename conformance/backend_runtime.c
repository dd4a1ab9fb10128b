/* The compiled runtime exposed through the backend ABI ("runtime"): the
 * first backend the suite certifies. Compile goes through the runtime's own
 * cache, so the ABI's stats are the runtime's counters. */
#include <stdlib.h>
#include <string.h>

#include "certify.h"
#include "plumb/runtime.h"

struct plumb_backend {
    plumb_runtime *rt;
    /* explain (ABI 1.2): what the last compile call did. built: it was a
     * miss; first: its entry had no program yet, so there is nothing to
     * compare with and the runtime keeps no explanation. */
    bool built, first, disk;
    char entry[64];
    char first_text[128];
};

/* The runtime owns its executables (they live in its cache); the ABI's
 * handle only names one. */
struct plumb_backend_executable {
    plumb_executable *ex;
};

static plumb_backend_op_cap rt_ops[PLUMB_OP_COUNT];
static plumb_backend_capabilities rt_caps;

static bool parse_u32(const char *s, uint32_t *out)
{
    if (!s || !*s)
        return false;
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    if (*end || v > UINT32_MAX || s[0] == '-')
        return false;
    *out = (uint32_t)v;
    return true;
}

static plumb_backend_error *rtb_create(plumb_backend_create_args *a)
{
    if (!a || a->struct_size < sizeof *a)
        return conf_bk_error(PLUMB_BACKEND_ERR_INVALID_ARGUMENT, "create: args struct_size too short");
    plumb_runtime_options ro;
    plumb_runtime_options_init(&ro);
    /* A certified or fuzzed runtime is the one its options name, never one
     * shaped by the environment: PLUMB_POLICY would change the compile
     * counts the cache suite and the fuzz oracle predict; PLUMB_CONTRACT
     * would refuse the builds of ordinary cases (certify --contract gates
     * the cache suite itself); PLUMB_CACHE_DIR would serve programs compiled
     * by an earlier run from disk. Each is asked for explicitly with an
     * option (policy=LIST, cache_dir=DIR); "" means none to
     * plumb_runtime_create. */
    ro.policy = "none";
    ro.contract_file = "";
    ro.cache_dir = "";
    for (size_t i = 0; i < a->n_options; i++) {
        const plumb_backend_option *o = &a->options[i];
        const char *nm = o->name ? o->name : "(null)";
        uint32_t v;
        if (strcmp(nm, "threads") == 0 && parse_u32(o->value, &v)) {
            ro.threads = v;
        } else if (strcmp(nm, "opt_level") == 0 && parse_u32(o->value, &v) && v <= 2) {
            ro.opt_level = v;
        } else if (strcmp(nm, "policy") == 0 && o->value) {
            ro.policy = o->value;
        } else if (strcmp(nm, "cache_dir") == 0 && o->value && o->value[0]) {
            ro.cache_dir = o->value;
        } else if (strcmp(nm, "isa") == 0 && o->value) {
            if (strcmp(o->value, "auto") == 0)
                ro.isa = PLUMB_ISA_AUTO;
            else if (strcmp(o->value, "portable") == 0)
                ro.isa = PLUMB_ISA_PORTABLE;
            else if (strcmp(o->value, "avx2") == 0)
                ro.isa = PLUMB_ISA_AVX2;
            else if (strcmp(o->value, "avx512") == 0)
                ro.isa = PLUMB_ISA_AVX512;
            else
                return conf_bk_error(PLUMB_BACKEND_ERR_INVALID_ARGUMENT,
                                     "option isa: '%s' is not auto, portable, avx2 or avx512", o->value);
        } else {
            return conf_bk_error(PLUMB_BACKEND_ERR_INVALID_ARGUMENT,
                                 "bad option '%s=%s' (runtime accepts: threads=N, opt_level=0..2, isa=auto|portable|avx2|avx512, policy=LIST, cache_dir=DIR)",
                                 nm, o->value ? o->value : "");
        }
    }
    plumb_backend *b = plumb_calloc(1, sizeof *b);
    if (!b)
        return conf_bk_error(PLUMB_BACKEND_ERR_RESOURCE, "out of memory");
    plumb_diag d;
    plumb_diag_clear(&d);
    b->rt = plumb_runtime_create(&ro, &d);
    if (!b->rt) {
        plumb_free(b, sizeof *b);
        return conf_bk_error_from_diag(&d);
    }
    a->backend = b;
    return NULL;
}

static plumb_backend_error *rtb_destroy(plumb_backend_destroy_args *a)
{
    if (!a || a->struct_size < sizeof *a)
        return conf_bk_error(PLUMB_BACKEND_ERR_INVALID_ARGUMENT, "destroy: args struct_size too short");
    if (a->backend) {
        plumb_runtime_destroy(a->backend->rt);
        plumb_free(a->backend, sizeof *a->backend);
    }
    return NULL;
}

static plumb_backend_error *rtb_capabilities(plumb_backend_capabilities_args *a)
{
    if (!a || a->struct_size < sizeof *a)
        return conf_bk_error(PLUMB_BACKEND_ERR_INVALID_ARGUMENT, "capabilities: args struct_size too short");
    /* The runtime lowers every op of op set v1 for every type the op table
     * accepts (docs/runtime.md). */
    size_t n = conf_bk_table_ops(rt_ops);
    memset(&rt_caps, 0, sizeof rt_caps);
    rt_caps.struct_size = sizeof rt_caps;
    rt_caps.ops = rt_ops;
    rt_caps.n_ops = n;
    /* One compile per entry and declared signature serves every size: a
     * bounded `?` is planned at its bound and run at the actual size, an
     * unbounded one sized per run; a size above a bound is refused
     * (docs/runtime.md). */
    rt_caps.polymorphic_shapes = PLUMB_BACKEND_POLY_UNBOUNDED;
    rt_caps.flush_subnormals = 0;
    rt_caps.preserves_nan_payload = 1;
    rt_caps.deterministic = 1;
    /* Half types accumulate in f32; f32 and f64 in their own type. */
    rt_caps.accum_f16 = PLUMB_BACKEND_DT_F32;
    rt_caps.accum_bf16 = PLUMB_BACKEND_DT_F32;
    rt_caps.accum_f32 = PLUMB_BACKEND_DT_F32;
    rt_caps.accum_f64 = PLUMB_BACKEND_DT_F64;
    /* The small formats' dots and convolutions widen to f32 (products of
     * <= 5-bit significands are exact there) and sum in f32's GEMM
     * (runtime/k_dot.c rt_gemm_f8), but f8E8M0FNU, whose products leave
     * f32's range, in f64 (runtime/k_conv.c, k_dot.c). ABI 1.4. */
    for (int i = 0; i < PLUMB_BACKEND_N_SMALL_FLOATS; i++)
        rt_caps.accum_small[i] = (PLUMB_BACKEND_DT_F8E4M3FN << i) == PLUMB_BACKEND_DT_F8E8M0FNU ? PLUMB_BACKEND_DT_F64
                                                                                               : PLUMB_BACKEND_DT_F32;
    a->capabilities = &rt_caps;
    return NULL;
}

static plumb_backend_error *rtb_compile(plumb_backend_compile_args *a)
{
    if (!a || a->struct_size < sizeof *a || !a->backend)
        return conf_bk_error(PLUMB_BACKEND_ERR_INVALID_ARGUMENT, "compile: bad args");
    plumb_backend_error *err;
    ir_module *m = conf_bk_parse(a->program, a->program_size, &err);
    if (!m)
        return err;
    plumb_diag d;
    plumb_diag_clear(&d);
    plumb_backend *b = a->backend;
    plumb_runtime_stats before = {.struct_size = sizeof before}, after = {.struct_size = sizeof after};
    plumb_runtime_stats_get(b->rt, NULL, &before);
    plumb_executable *ex = plumb_runtime_compile(b->rt, m, a->entry, &d);
    ir_module_free(m);
    plumb_runtime_stats_get(b->rt, NULL, &after);
    /* A build that is not a recompile is its entry's first program. */
    b->built = after.compiles > before.compiles;
    b->disk = b->built && after.disk_hits > before.disk_hits;
    b->first = b->built && !b->disk && after.recompiles == before.recompiles;
    snprintf(b->entry, sizeof b->entry, "%.63s", a->entry ? a->entry : "main");
    if (!ex)
        return conf_bk_error_from_diag(&d);
    plumb_backend_executable *x = plumb_calloc(1, sizeof *x);
    if (!x)
        return conf_bk_error(PLUMB_BACKEND_ERR_RESOURCE, "out of memory");
    x->ex = ex;
    a->executable = x;
    return NULL;
}

static plumb_backend_error *rtb_executable_free(plumb_backend_executable_free_args *a)
{
    if (!a || a->struct_size < sizeof *a)
        return conf_bk_error(PLUMB_BACKEND_ERR_INVALID_ARGUMENT, "executable_free: bad args");
    if (a->executable)
        plumb_free(a->executable, sizeof *a->executable);
    return NULL;
}

static plumb_backend_error *rtb_execute(plumb_backend_execute_args *a)
{
    if (!a || a->struct_size < sizeof *a || !a->backend || !a->executable || (a->n_inputs && !a->inputs) ||
        a->n_inputs > UINT32_MAX)
        return conf_bk_error(PLUMB_BACKEND_ERR_INVALID_ARGUMENT, "execute: bad args");
    size_t n = a->n_inputs;
    plumb_tensor **views = n ? plumb_calloc(n, sizeof *views) : NULL;
    if (n && !views)
        return conf_bk_error(PLUMB_BACKEND_ERR_RESOURCE, "out of memory");
    plumb_backend_error *err = conf_bk_inputs(a->inputs, n, views);
    if (err) {
        plumb_free(views, n * sizeof *views);
        return err;
    }
    uint32_t nout = plumb_executable_num_outputs(a->executable->ex);
    plumb_tensor **outs = nout ? plumb_calloc(nout, sizeof *outs) : NULL;
    plumb_diag d;
    plumb_diag_clear(&d);
    bool ok = !nout || outs;
    if (!ok)
        plumb_diag_set(&d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory");
    else
        ok = plumb_executable_run(a->executable->ex, views, (uint32_t)n, outs, nout, NULL, &d);
    for (size_t i = 0; i < n; i++)
        plumb_tensor_free(views[i]);
    plumb_free(views, n * sizeof *views);
    if (!ok) {
        if (outs)
            plumb_free(outs, (size_t)nout * sizeof *outs);
        return conf_bk_error_from_diag(&d);
    }
    return conf_bk_outputs(outs, nout, &a->outputs);
}

static plumb_backend_error *rtb_stats(plumb_backend_stats_args *a)
{
    if (!a || a->struct_size < sizeof *a || !a->backend || !a->stats)
        return conf_bk_error(PLUMB_BACKEND_ERR_INVALID_ARGUMENT, "stats: bad args");
    plumb_runtime_stats rs;
    memset(&rs, 0, sizeof rs);
    rs.struct_size = sizeof rs;
    if (!plumb_runtime_stats_get(a->backend->rt, NULL, &rs))
        return conf_bk_error(PLUMB_BACKEND_ERR_INTERNAL, "stats: the runtime reported no counters");
    plumb_backend_stats st;
    memset(&st, 0, sizeof st);
    st.compiles = rs.compiles;
    st.cache_hits = rs.cache_hits;
    st.disk_hits = rs.disk_hits;
    st.executions = rs.runs;
    st.compile_seconds = rs.compile_seconds;
    size_t n = a->stats->struct_size < sizeof st ? a->stats->struct_size : sizeof st;
    if (n > sizeof(size_t))
        memcpy((char *)a->stats + sizeof(size_t), (const char *)&st + sizeof(size_t), n - sizeof(size_t));
    return NULL;
}

static plumb_backend_error *rtb_reset_stats(plumb_backend_reset_stats_args *a)
{
    if (!a || a->struct_size < sizeof *a || !a->backend)
        return conf_bk_error(PLUMB_BACKEND_ERR_INVALID_ARGUMENT, "reset_stats: bad args");
    plumb_runtime_stats_reset(a->backend->rt);
    return NULL;
}

/* Why the last compile call built: the runtime's recompile explanation
 * (plumb_runtime_last_explanation and its JSON, docs/runtime.md "Recompile
 * explanations"), or that it was the entry's first program. */
static plumb_backend_error *rtb_explain(plumb_backend_explain_args *a)
{
    if (!a || a->struct_size < sizeof *a || !a->backend)
        return conf_bk_error(PLUMB_BACKEND_ERR_INVALID_ARGUMENT, "explain: bad args");
    plumb_backend *b = a->backend;
    a->text = a->json = NULL;
    if (!b->built)
        return NULL;
    if (b->first || b->disk) {
        /* A disk hit counts as a build but is neither a recompile nor
         * explained by the runtime. */
        snprintf(b->first_text, sizeof b->first_text, "%s of @%s",
                 b->disk ? "loaded from the disk cache, a program" : "first program", b->entry);
        a->text = b->first_text;
        return NULL;
    }
    a->text = plumb_runtime_last_explanation(b->rt);
    a->json = plumb_runtime_last_explanation_json(b->rt);
    return NULL;
}

static const plumb_backend_api runtime_api = {
    .struct_size = sizeof(plumb_backend_api),
    .abi_major = PLUMB_BACKEND_ABI_MAJOR,
    .abi_minor = PLUMB_BACKEND_ABI_MINOR,
    .name = "runtime",
    .version = PLUMB_VERSION_STRING,
    .error_free = conf_bk_error_free,
    .create = rtb_create,
    .destroy = rtb_destroy,
    .capabilities = rtb_capabilities,
    .compile = rtb_compile,
    .executable_free = rtb_executable_free,
    .execute = rtb_execute,
    .outputs_free = conf_bk_outputs_free,
    .stats = rtb_stats,
    .reset_stats = rtb_reset_stats,
    .explain = rtb_explain,
};

const plumb_backend_api *conf_backend_runtime_api(uint32_t abi_major)
{
    return abi_major == PLUMB_BACKEND_ABI_MAJOR ? &runtime_api : NULL;
}
