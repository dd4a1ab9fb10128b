/* Helpers shared by the plumb subcommands: option parsing, byte counts,
 * reading inputs, atomic writes and the mapping of errors to exit codes. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

void cli_args_init(cli_args *a, int argc, char **argv)
{
    memset(a, 0, sizeof *a);
    a->cmd = argc > 0 ? argv[0] : "plumb";
    a->argc = argc;
    a->argv = argv;
    a->next = 1;   /* argv[0] is the command name */
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "plumb %s: error: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nrun 'plumb %s --help' for usage\n", cmd);
    return CLI_EXIT_USAGE;
}

static const cli_opt *find_long(const cli_opt *opts, const char *name, size_t n)
{
    for (; opts->id; opts++)
        if (opts->long_name && strlen(opts->long_name) == n && memcmp(opts->long_name, name, n) == 0)
            return opts;
    return NULL;
}

static const cli_opt *find_short(const cli_opt *opts, char c)
{
    for (; opts->id; opts++)
        if (opts->short_name && opts->short_name == c)
            return opts;
    return NULL;
}

/* Takes the value of an option from the rest of the argument or the next
 * argument. */
static int take_value(cli_args *a, const cli_opt *o, const char *rest, const char *spelled,
                      const char **value)
{
    if (rest && *rest) {
        *value = rest;
        return o->id;
    }
    if (a->next >= a->argc) {
        cli_usage_error(a->cmd, "option '%s' needs a value", spelled);
        return CLI_ERROR;
    }
    *value = a->argv[a->next++];
    return o->id;
}

static int next_short(cli_args *a, const cli_opt *opts, const char **value)
{
    char c = *a->pending++;
    const cli_opt *o = find_short(opts, c);
    char spelled[3] = {'-', c, 0};
    if (!o) {
        a->pending = NULL;
        cli_usage_error(a->cmd, "unknown option '%s'", spelled);
        return CLI_ERROR;
    }
    if (o->takes_value) {
        const char *rest = a->pending;
        a->pending = NULL;
        return take_value(a, o, rest, spelled, value);
    }
    if (!*a->pending)
        a->pending = NULL;
    return o->id;
}

int cli_next(cli_args *a, const cli_opt *opts, const char **value)
{
    *value = NULL;
    if (a->pending)
        return next_short(a, opts, value);
    if (a->next >= a->argc)
        return CLI_END;
    const char *arg = a->argv[a->next++];
    if (a->operands_only || arg[0] != '-' || arg[1] == 0) {
        *value = arg;
        return CLI_OPERAND;
    }
    if (arg[1] == '-') {
        if (arg[2] == 0) {
            a->operands_only = true;
            return cli_next(a, opts, value);
        }
        const char *name = arg + 2;
        const char *eq = strchr(name, '=');
        size_t n = eq ? (size_t)(eq - name) : strlen(name);
        const cli_opt *o = find_long(opts, name, n);
        if (!o) {
            cli_usage_error(a->cmd, "unknown option '--%.*s'", (int)n, name);
            return CLI_ERROR;
        }
        if (!o->takes_value) {
            if (eq) {
                cli_usage_error(a->cmd, "option '--%s' takes no value", o->long_name);
                return CLI_ERROR;
            }
            return o->id;
        }
        if (eq) {
            *value = eq + 1;
            return o->id;
        }
        return take_value(a, o, NULL, arg, value);
    }
    a->pending = arg + 1;
    return next_short(a, opts, value);
}

bool cli_parse_bytes(const char *s, uint64_t *out)
{
    uint64_t v = 0;
    const char *p = s;
    if (*p < '0' || *p > '9')
        return false;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (plumb_mul_overflow_u64(v, 10, &v) || plumb_add_overflow_u64(v, (uint64_t)(*p - '0'), &v))
            return false;
    }
    static const struct { const char *suffix; uint64_t scale; } units[] = {
        {"", 1},
        {"K", 1000ull}, {"M", 1000000ull}, {"G", 1000000000ull}, {"T", 1000000000000ull},
        {"Ki", 1ull << 10}, {"Mi", 1ull << 20}, {"Gi", 1ull << 30}, {"Ti", 1ull << 40},
    };
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcmp(p, units[i].suffix) == 0) {
            if (plumb_mul_overflow_u64(v, units[i].scale, &v) || v == 0)
                return false;
            *out = v;
            return true;
        }
    }
    return false;
}

const char *cli_display_name(const char *path)
{
    return strcmp(path, "-") == 0 ? "<stdin>" : path;
}

static char *read_stream(FILE *f, size_t cap, size_t *len, plumb_diag *d)
{
    plumb_loc none = {0, 0};
    plumb_buf b;
    plumb_buf_init(&b);
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (b.len + n > cap) {
            plumb_buf_free(&b);
            plumb_diag_set(d, PLUMB_ERR_LIMIT, none,
                           "standard input is larger than the program size limit of %zu bytes "
                           "(PLUMB_MAX_PROGRAM_BYTES)", cap);
            return NULL;
        }
        plumb_buf_append(&b, chunk, n);
        if (b.failed) {
            plumb_buf_free(&b);
            plumb_diag_set(d, PLUMB_ERR_NOMEM, none, "out of memory reading standard input");
            return NULL;
        }
    }
    if (ferror(f)) {
        plumb_buf_free(&b);
        plumb_diag_set(d, PLUMB_ERR_IO, none, "cannot read standard input: %s", strerror(errno));
        return NULL;
    }
    char *p = plumb_buf_take(&b, len);
    if (!p)
        plumb_diag_set(d, PLUMB_ERR_NOMEM, none, "out of memory reading standard input");
    return p;
}

size_t cli_max_program_bytes(void)
{
    const char *e = getenv("PLUMB_MAX_PROGRAM_BYTES");
    uint64_t v;
    /* Like PLUMB_MAX_BYTES: a malformed value is ignored, never "no limit". */
    if (e && *e >= '0' && *e <= '9' && cli_parse_u64(e, &v) && v > 0 && v <= SIZE_MAX - 1)
        return (size_t)v;
    return CLI_DEFAULT_MAX_PROGRAM_BYTES;
}

char *cli_read_input(const char *path, size_t *len, plumb_diag *d)
{
    /* Checked while reading, so `plumb verify /dev/zero` stops at the cap
     * instead of reading until memory runs out. */
    size_t cap = cli_max_program_bytes();
    if (strcmp(path, "-") == 0)
        return read_stream(stdin, cap, len, d);
    plumb_diag rd = {.code = PLUMB_OK};
    char *text = plumb_read_file(path, cap, len, &rd);
    if (!text && rd.code == PLUMB_ERR_LIMIT)
        plumb_diag_set(d, PLUMB_ERR_LIMIT, rd.loc, "'%s' is larger than the program size limit of %zu bytes "
                       "(PLUMB_MAX_PROGRAM_BYTES)", path, cap);
    else if (!text)
        plumb_diag_set(d, rd.code, rd.loc, "%s", rd.msg);
    return text;
}

bool cli_write_stdout(const char *data, size_t len, plumb_diag *d)
{
    plumb_loc none = {0, 0};
    if (len && fwrite(data, 1, len, stdout) != len) {
        plumb_diag_set(d, PLUMB_ERR_IO, none, "cannot write standard output: %s", strerror(errno));
        return false;
    }
    return true;
}

int cli_finish(const char *cmd, int rc)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "plumb %s: error: cannot write standard output: %s\n", cmd, strerror(errno));
        return CLI_EXIT_USAGE;
    }
    return rc;
}

int cli_program_exit(plumb_code code)
{
    switch (code) {
    case PLUMB_ERR_NOMEM:
    case PLUMB_ERR_IO:
    case PLUMB_ERR_USAGE:
        return CLI_EXIT_USAGE;
    default:
        return CLI_EXIT_INVALID;
    }
}

void cli_print_diag(const char *cmd, const plumb_diag *d)
{
    if (d->file || d->loc.line) {
        plumb_diag_print(d, stderr);
        return;
    }
    fprintf(stderr, "plumb %s: error: %s\n", cmd, d->msg);
}

bool cli_write_atomic(const char *path, const char *data, size_t len, plumb_diag *d)
{
    const void *parts[1] = {data};
    return plumb_write_file_atomic(path, parts, &len, 1, d);
}

bool cli_parse_u64(const char *s, uint64_t *out)
{
    if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (*end || errno)
        return false;
    *out = v;
    return true;
}

/* An op named on the command line (--ops, --op): its full name, a stablehlo
 * op without its prefix (plumb_op_lookup), or a chlo op without "chlo." —
 * a program must spell chlo ops in full, a flag need not. */
bool cli_op_lookup(const char *name, size_t len, plumb_opcode *out)
{
    if (plumb_op_lookup(name, len, out))
        return true;
    char full[64];
    if (len == 0 || len > sizeof full - 6 || memchr(name, '.', len))
        return false;
    memcpy(full, "chlo.", 5);
    memcpy(full + 5, name, len);
    return plumb_op_lookup(full, len + 5, out);
}

bool cli_parse_u32(const char *s, uint32_t *out)
{
    uint64_t v;
    if (!cli_parse_u64(s, &v) || v > UINT32_MAX)
        return false;
    *out = (uint32_t)v;
    return true;
}

bool cli_parse_shard(const char *s, uint32_t *index, uint32_t *count)
{
    const char *slash = strchr(s, '/');
    if (!slash)
        return false;
    char a[32];
    size_t la = (size_t)(slash - s);
    if (la == 0 || la >= sizeof a)
        return false;
    memcpy(a, s, la);
    a[la] = 0;
    uint32_t i, n;
    if (!cli_parse_u32(a, &i) || !cli_parse_u32(slash + 1, &n) || n == 0 || i >= n)
        return false;
    *index = i;
    *count = n;
    return true;
}

int cli_shard_from_env(const char *cmd, uint32_t *index, uint32_t *count)
{
    const char *si = getenv("TEST_SHARD_INDEX"), *sn = getenv("TEST_TOTAL_SHARDS");
    if (!si || !sn || !*si || !*sn)
        return CLI_EXIT_OK;
    uint32_t i, n;
    if (!cli_parse_u32(si, &i) || !cli_parse_u32(sn, &n) || n == 0 || i >= n)
        return cli_usage_error(cmd, "TEST_SHARD_INDEX=%s / TEST_TOTAL_SHARDS=%s is not a valid shard", si, sn);
    *index = i;
    *count = n;
    const char *sf = getenv("TEST_SHARD_STATUS_FILE");
    if (sf && *sf) {
        /* Only touched (created if missing): never through a link at the
         * name, and a FIFO there must not block (O_NONBLOCK fails instead). */
        int fd = open(sf, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666);
        if (fd >= 0)
            close(fd);
    }
    return CLI_EXIT_OK;
}

bool cli_mkdir_p(const char *path, plumb_diag *d)
{
    plumb_loc nl = {0, 0};
    char buf[4096];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof buf) {
        plumb_diag_set(d, PLUMB_ERR_USAGE, nl, "folder name '%s' is empty or too long", path);
        return false;
    }
    memcpy(buf, path, n + 1);
    /* Each prefix ending before a '/' is a parent; the whole path is last.
     * EEXIST is fine only when what exists is a folder. */
    for (size_t i = 1; i <= n; i++) {
        if (i < n && buf[i] != '/')
            continue;
        if (i < n && buf[i - 1] == '/')
            continue;   /* "a//b": the prefix "a/" was already made */
        char saved = buf[i];
        buf[i] = '\0';
        if (mkdir(buf, 0777) != 0) {
            int err = errno;
            struct stat st;
            if (err != EEXIST || stat(buf, &st) != 0 || !S_ISDIR(st.st_mode)) {
                plumb_diag_set(d, PLUMB_ERR_IO, nl, "cannot create folder '%s': %s", buf,
                               err == EEXIST ? "it exists and is not a folder" : strerror(err));
                return false;
            }
        }
        buf[i] = saved;
    }
    return true;
}
