/* plumb exhaustive: a unary float op over every input of its type. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "../conformance/conf.h"
#include "plumb/fp8.h"

static const char exhaustive_help[] =
    "usage: plumb exhaustive --op NAME --dtype T [--backend ref|runtime|PATH.so]\n"
    "                        [--shard I/N] [--threads N] [--chunk N]\n"
    "\n"
    "Runs a unary elementwise op over every input of the type (65,536 for f16\n"
    "and bf16, 2^32 for f32, 256 or fewer for the FP8/FP6/FP4 formats; --shard\n"
    "I/N takes the I-th of N equal ranges) on\n"
    "the backend, compares each result with the reference's correctly rounded\n"
    "one (the op's ULP bound; special values exactly) and prints the worst\n"
    "error and the count over the bound. Progress and an ETA go to stderr when\n"
    "it is a terminal.\n"
    "\n"
    "options:\n"
    "  --op NAME         the unary float op (e.g. exponential, tanh, sine)\n"
    "  --dtype T         f32, f16, bf16, or an FP8/FP6/FP4 format the op accepts\n"
    "                    (f8E4M3FN, f8E5M2, f8E4M3FNUZ, f8E5M2FNUZ, f8E4M3B11FNUZ,\n"
    "                    f8E3M4, f8E4M3, f8E8M0FNU, f6E2M3FN, f6E3M2FN, f4E2M1FN)\n"
    "  --backend B       ref (default), runtime or the path of a backend .so\n"
    "  --shard I/N       run the I-th of N equal input ranges (0-based); default\n"
    "                    from TEST_SHARD_INDEX and TEST_TOTAL_SHARDS, else 0/1\n"
    "  --threads N       worker threads, 1..64 (default 1)\n"
    "  --chunk N         inputs per backend call, 1..16777216\n"
    "  -h, --help        this text\n"
    "\n"
    "exit codes:\n"
    "  0  every input within the bound\n"
    "  1  some input over the bound, or the backend failed\n"
    "  2  usage error\n";

enum { O_OP = 1, O_DTYPE, O_BACKEND, O_SHARD, O_THREADS, O_CHUNK, O_HELP };

int cmd_exhaustive(int argc, char **argv)
{
    static const cli_opt opts[] = {
        {"op", 0, true, O_OP}, {"dtype", 0, true, O_DTYPE}, {"backend", 0, true, O_BACKEND},
        {"shard", 0, true, O_SHARD}, {"threads", 0, true, O_THREADS}, {"chunk", 0, true, O_CHUNK},
        {"help", 'h', false, O_HELP}, {NULL, 0, false, 0},
    };
    const char *cmd = "exhaustive";
    cli_args a;
    cli_args_init(&a, argc, argv);
    conf_exhaustive_opts o;
    memset(&o, 0, sizeof o);
    o.threads = 1;
    bool have_op = false, have_dt = false, shard_given = false;
    const char *v;
    int id;
    while ((id = cli_next(&a, opts, &v)) != CLI_END) {
        switch (id) {
        case CLI_ERROR: return CLI_EXIT_USAGE;
        case CLI_OPERAND: return cli_usage_error(cmd, "unexpected operand '%s'", v);
        case O_HELP: fputs(exhaustive_help, stdout); return cli_finish(cmd, CLI_EXIT_OK);
        case O_OP:
            if (!cli_op_lookup(v, strlen(v), &o.op)) return cli_usage_error(cmd, "--op: unknown op '%s'", v);
            have_op = true;
            break;
        case O_DTYPE:
            if (!plumb_dtype_parse(v, strlen(v), &o.dtype) ||
                (o.dtype != PLUMB_F32 && o.dtype != PLUMB_F16 && o.dtype != PLUMB_BF16 && !plumb_fpfmt_get(o.dtype)))
                return cli_usage_error(cmd, "--dtype: '%s' is not f32, f16, bf16 or an FP8/FP6/FP4 format", v);
            have_dt = true;
            break;
        case O_BACKEND: o.backend = v; break;
        case O_SHARD:
            if (!cli_parse_shard(v, &o.shard_index, &o.shard_count))
                return cli_usage_error(cmd, "--shard: expected I/N with 0 <= I < N, got '%s'", v);
            shard_given = true;
            break;
        case O_THREADS:
            if (!cli_parse_u32(v, &o.threads) || o.threads == 0 || o.threads > 64)
                return cli_usage_error(cmd, "--threads: expected 1..64, got '%s'", v);
            break;
        case O_CHUNK: {
            uint32_t c;
            if (!cli_parse_u32(v, &c) || c == 0 || c > (1u << 24)) return cli_usage_error(cmd, "--chunk: expected 1..16777216, got '%s'", v);
            o.chunk = c;
            break;
        }
        }
    }
    if (!shard_given) {
        int rc = cli_shard_from_env(cmd, &o.shard_index, &o.shard_count);
        if (rc != CLI_EXIT_OK)
            return rc;
    }
    if (!have_op) return cli_usage_error(cmd, "--op is required");
    if (!have_dt) return cli_usage_error(cmd, "--dtype is required");
    const plumb_op_info *oi = plumb_op_get(o.op);
    if (!conf_exhaustive_accepts(o.op, o.dtype))
        return cli_usage_error(cmd, "--op: %s is not a unary elementwise op on %s", oi->name, plumb_dtype_name(o.dtype));
    if (isatty(fileno(stderr))) o.progress = stderr;
    plumb_diag d;
    memset(&d, 0, sizeof d);
    conf_exhaustive_result r;
    if (!conf_exhaustive_run(&o, &r, &d)) {
        cli_print_diag(cmd, &d);
        return cli_finish(cmd, d.code == PLUMB_ERR_USAGE || d.code == PLUMB_ERR_IO ? CLI_EXIT_USAGE : CLI_EXIT_INVALID);
    }
    printf("exhaustive %s %s on %s: %llu inputs, bound %u ulp, worst %s", oi->name, plumb_dtype_name(o.dtype),
           o.backend ? o.backend : "ref", (unsigned long long)r.checked, r.bound_ulp,
           r.worst_ulp == 0 ? "0 ulp (bitwise equal)" : "");
    if (r.worst_ulp > 0) {
        if (r.worst_ulp > 1e300) printf("mismatch");
        else printf("%.0f ulp", r.worst_ulp);
        printf(" (input 0x%llx: got 0x%llx, want 0x%llx)", (unsigned long long)r.worst_input_bits,
               (unsigned long long)r.worst_got, (unsigned long long)r.worst_want);
    }
    printf(", %llu over bound, %.1f s\n", (unsigned long long)r.over_bound, r.seconds);
    if (r.over_bound) printf("first failure: %s\n", r.first_failure);
    return cli_finish(cmd, r.over_bound ? CLI_EXIT_INVALID : CLI_EXIT_OK);
}
