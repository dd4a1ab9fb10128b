/* plumb cache: list, verify, prune and clear the runtime's disk cache
 * (runtime/cache_admin.c does the reading and removing). */
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "../runtime/rt_cache_admin.h"
#include "cli.h"

static const char cache_help[] =
    "usage: plumb cache ls|verify|prune|clear [--dir DIR] [--json] [options]\n"
    "\n"
    "Manages the compiled runtime's disk cache: one file per compiled\n"
    "program, DIR/KEYHEX.plumbc (docs/runtime.md, \"Managing the disk cache\").\n"
    "Each entry is judged as this build of plumb would judge it before\n"
    "serving it:\n"
    "  valid    written by this build, header, sizes and authentication check out\n"
    "  stale    written by another build of plumb (or an older entry format)\n"
    "  foreign  not a plumb cache entry, or its header names another key\n"
    "  corrupt  truncated, changed after it was written, or (verify) its\n"
    "           stored graph or program does not read back\n"
    "Only regular files named like entries are read or removed; anything\n"
    "else in DIR (other names, links, folders) is counted and left alone.\n"
    "\n"
    "  ls      one line per entry: key, size, time since last use, state (and\n"
    "          why, when not valid), the function it was compiled for; totals\n"
    "  verify  ls's checks, then every entry's stored graph is parsed back and\n"
    "          must hash to the entry's key, and for the first N entries\n"
    "          (--sample) the stored program must parse, verify, print back to\n"
    "          the same text and build; prints every bad entry with the reason\n"
    "  prune   removes every entry that is not valid; with --max-bytes N then\n"
    "          removes the least recently used valid entries until the rest\n"
    "          total at most N bytes\n"
    "  clear   removes every entry\n"
    "\n"
    "options:\n"
    "      --dir DIR       the cache directory. Default: $PLUMB_CACHE_DIR, the\n"
    "                      directory the runtime uses\n"
    "      --json          print one JSON object instead of text\n"
    "      --sample N      verify: rebuild at most N entries, in key order\n"
    "                      (default 100; 0 = header checks only)\n"
    "      --max-bytes N   prune: then evict least recently used entries down\n"
    "                      to N bytes; N may end in K, M, G (powers of 1000) or\n"
    "                      Ki, Mi, Gi (powers of 1024)\n"
    "  -h, --help          show this help\n"
    "\n"
    "DIR must exist and be trusted as the runtime trusts it: not writable by\n"
    "every user, not by its group unless PLUMB_CACHE_SHARED=1, owned by this\n"
    "user or root unless PLUMB_CACHE_SHARED=1; otherwise nothing is read.\n"
    "\n"
    "exit codes:\n"
    "  0  success (ls, prune and clear also when entries are not valid)\n"
    "  1  verify found an entry that is not valid\n"
    "  2  usage error; no directory given; DIR missing, unreadable or not\n"
    "     trusted; an entry could not be removed\n";

enum { OPT_HELP = 1, OPT_DIR, OPT_JSON, OPT_SAMPLE, OPT_MAX_BYTES };

static const cli_opt cache_opts[] = {
    {"help", 'h', false, OPT_HELP},
    {"dir", 0, true, OPT_DIR},
    {"json", 0, false, OPT_JSON},
    {"sample", 0, true, OPT_SAMPLE},
    {"max-bytes", 0, true, OPT_MAX_BYTES},
    {NULL, 0, false, 0},
};

/* Seconds since the entry's last use (0 for a time in the future). */
static uint64_t age_s(const rt_cache_entry *e, time_t now)
{
    return now > e->used.tv_sec ? (uint64_t)(now - e->used.tv_sec) : 0;
}

static void age_str(char *out, size_t cap, uint64_t s)
{
    if (s < 120)
        snprintf(out, cap, "%" PRIu64 "s", s);
    else if (s < 7200)
        snprintf(out, cap, "%" PRIu64 "m", s / 60);
    else if (s < 2 * 86400)
        snprintf(out, cap, "%" PRIu64 "h", s / 3600);
    else
        snprintf(out, cap, "%" PRIu64 "d", s / 86400);
}

/* The key is the file name without ".plumbc". */
static void key_of(const rt_cache_entry *e, char key[33])
{
    memcpy(key, e->file, 32);
    key[32] = 0;
}

static void entry_line(const rt_cache_entry *e, time_t now)
{
    char key[33], age[32];
    key_of(e, key);
    age_str(age, sizeof age, age_s(e, now));
    printf("%s  %10" PRIu64 " bytes  used %4s ago  %s", key, e->bytes, age, rt_cache_state_name(e->state));
    if (e->state != RT_CACHE_VALID)
        printf(": %s", e->reason);
    if (e->func[0])
        printf("  @%s", e->func);
    if (e->module[0])
        printf(" (module @%s)", e->module);
    putchar('\n');
}

static void entry_json(const rt_cache_entry *e, time_t now)
{
    char key[33];
    key_of(e, key);
    printf("{\"key\": \"%s\", \"file\": \"%s\", \"bytes\": %" PRIu64 ", \"seconds_since_use\": %" PRIu64
           ", \"state\": \"%s\", \"reason\": ",
           key, e->file, e->bytes, age_s(e, now), rt_cache_state_name(e->state));
    plumb_json_str_fput(stdout, e->reason);
    printf(", \"runtime\": ");
    plumb_json_str_fput(stdout, e->runtime);
    printf(", \"isa\": ");
    plumb_json_str_fput(stdout, e->isa_name ? e->isa_name : "");
    printf(", \"opt_level\": %u, \"module\": ", e->opt_level);
    plumb_json_str_fput(stdout, e->module);
    printf(", \"entry\": ");
    plumb_json_str_fput(stdout, e->func);
    printf(", \"rebuilt\": %s}", e->deep ? "true" : "false");
}

typedef struct totals {
    uint64_t bytes;
    uint32_t n[RT_CACHE_CORRUPT + 1];
    uint32_t rebuilt;
} totals;

static totals count(const rt_cache_listing *l)
{
    totals t;
    memset(&t, 0, sizeof t);
    for (size_t i = 0; i < l->n; i++) {
        t.bytes += l->v[i].bytes;
        t.n[l->v[i].state]++;
        t.rebuilt += l->v[i].deep;
    }
    return t;
}

static void totals_json(const rt_cache_listing *l, const totals *t)
{
    printf("\"totals\": {\"entries\": %zu, \"bytes\": %" PRIu64, l->n, t->bytes);
    for (int s = RT_CACHE_VALID; s <= RT_CACHE_CORRUPT; s++)
        printf(", \"%s\": %u", rt_cache_state_name((rt_cache_state)s), t->n[s]);
    printf(", \"rebuilt\": %u, \"ignored\": %u}", t->rebuilt, l->ignored);
}

static void totals_text(const rt_cache_listing *l, const totals *t)
{
    printf("%zu entries, %" PRIu64 " bytes: %u valid, %u stale, %u foreign, %u corrupt; %u other files ignored\n",
           l->n, t->bytes, t->n[RT_CACHE_VALID], t->n[RT_CACHE_STALE], t->n[RT_CACHE_FOREIGN],
           t->n[RT_CACHE_CORRUPT], l->ignored);
}

static int do_ls(const char *dir, const rt_cache_listing *l, bool json, bool verify)
{
    time_t now = time(NULL);
    totals t = count(l);
    uint32_t bad = (uint32_t)l->n - t.n[RT_CACHE_VALID];
    if (json) {
        printf("{\"dir\": ");
        plumb_json_str_fput(stdout, dir);
        printf(", \"entries\": [");
        for (size_t i = 0; i < l->n; i++) {
            printf(i ? ", " : "");
            entry_json(&l->v[i], now);
        }
        printf("], ");
        totals_json(l, &t);
        printf("}\n");
    } else if (verify) {
        for (size_t i = 0; i < l->n; i++)
            if (l->v[i].state != RT_CACHE_VALID)
                entry_line(&l->v[i], now);
        printf("verify: %zu entries checked, %u rebuilt from their stored program, %u bad\n", l->n, t.rebuilt,
               bad);
    } else {
        for (size_t i = 0; i < l->n; i++)
            entry_line(&l->v[i], now);
        totals_text(l, &t);
    }
    return verify && bad ? CLI_EXIT_INVALID : CLI_EXIT_OK;
}

static int do_remove(const char *cmd, const char *dir, const rt_cache_listing *l, bool json, bool all,
                     bool has_max, uint64_t max_bytes)
{
    char msg[1400];
    uint32_t removed = 0;
    uint64_t freed = 0;
    int rc = CLI_EXIT_OK;
    bool ok = rt_cache_remove(dir, l, all, &removed, &freed, msg, sizeof msg);
    if (!ok) {
        fprintf(stderr, "plumb %s: error: %s\n", cmd, msg);
        rc = CLI_EXIT_USAGE;
    }
    /* What is left after the invalid entries went: eviction's starting point. */
    uint64_t left = 0;
    uint32_t left_n = 0;
    for (size_t i = 0; i < l->n; i++)
        if (!all && l->v[i].state == RT_CACHE_VALID) {
            left += l->v[i].bytes;
            left_n++;
        }
    uint32_t evicted = 0;
    uint64_t evicted_bytes = 0;
    if (has_max && ok) {
        uint64_t after = 0;
        evicted = rt_cache_evict(dir, max_bytes, &after);
        evicted_bytes = left > after ? left - after : 0;
        left = after;
        left_n = left_n > evicted ? left_n - evicted : 0;
    }
    time_t now = time(NULL);
    if (json) {
        printf("{\"dir\": ");
        plumb_json_str_fput(stdout, dir);
        printf(", \"removed\": [");
        bool first = true;
        for (size_t i = 0; i < l->n; i++) {
            if (!all && l->v[i].state == RT_CACHE_VALID)
                continue;
            printf(first ? "" : ", ");
            first = false;
            entry_json(&l->v[i], now);
        }
        printf("], \"removed_entries\": %u, \"removed_bytes\": %" PRIu64, removed, freed);
        if (!all)
            printf(", \"evicted_entries\": %u, \"evicted_bytes\": %" PRIu64 ", \"left_entries\": %u, "
                   "\"left_bytes\": %" PRIu64, evicted, evicted_bytes, left_n, left);
        printf(", \"ignored\": %u}\n", l->ignored);
    } else if (all) {
        printf("clear: removed %u entries, %" PRIu64 " bytes; %u other files left alone\n", removed, freed,
               l->ignored);
    } else {
        for (size_t i = 0; i < l->n; i++) {
            const rt_cache_entry *e = &l->v[i];
            if (e->state != RT_CACHE_VALID)
                printf("removed %.32s: %s: %s\n", e->file, rt_cache_state_name(e->state), e->reason);
        }
        printf("prune: removed %u invalid entries (%" PRIu64 " bytes)", removed, freed);
        if (has_max)
            printf(", evicted %u least recently used (%" PRIu64 " bytes)", evicted, evicted_bytes);
        printf("; %u entries, %" PRIu64 " bytes left; %u other files left alone\n", left_n, left, l->ignored);
    }
    return rc;
}

int cmd_cache(int argc, char **argv)
{
    const char *cmd = "cache";
    const char *sub = NULL, *dir = NULL;
    bool json = false, has_max = false, has_sample = false;
    uint32_t sample = 100;
    uint64_t max_bytes = 0;
    cli_args a;
    cli_args_init(&a, argc, argv);
    const char *v;
    int id;
    while ((id = cli_next(&a, cache_opts, &v)) != CLI_END) {
        switch (id) {
        case CLI_ERROR:
            return CLI_EXIT_USAGE;
        case OPT_HELP:
            fputs(cache_help, stdout);
            return cli_finish(cmd, CLI_EXIT_OK);
        case OPT_DIR:
            dir = v;
            break;
        case OPT_JSON:
            json = true;
            break;
        case OPT_SAMPLE:
            if (!cli_parse_u32(v, &sample))
                return cli_usage_error(cmd, "--sample: '%s' is not a count", v);
            has_sample = true;
            break;
        case OPT_MAX_BYTES:
            if (!cli_parse_bytes(v, &max_bytes))
                return cli_usage_error(cmd, "--max-bytes: '%s' is not a positive byte count "
                                       "(digits, optionally followed by K, M, G, Ki, Mi or Gi)", v);
            has_max = true;
            break;
        case CLI_OPERAND:
            if (sub)
                return cli_usage_error(cmd, "unexpected argument '%s' after '%s'", v, sub);
            sub = v;
            break;
        }
    }
    if (!sub)
        return cli_usage_error(cmd, "expected ls, verify, prune or clear");
    bool ls = !strcmp(sub, "ls"), verify = !strcmp(sub, "verify"), prune = !strcmp(sub, "prune"),
         clear = !strcmp(sub, "clear");
    if (!ls && !verify && !prune && !clear)
        return cli_usage_error(cmd, "unknown subcommand '%s' (expected ls, verify, prune or clear)", sub);
    if (has_sample && !verify)
        return cli_usage_error(cmd, "--sample applies to verify only");
    if (has_max && !prune)
        return cli_usage_error(cmd, "--max-bytes applies to prune only");
    if (!dir && !(dir = rt_cache_default_dir()))
        return cli_usage_error(cmd, "no cache directory: give --dir DIR or set PLUMB_CACHE_DIR");
    char msg[1400];
    bool missing = false;
    rt_cache_listing l;
    if (!rt_cache_scan(dir, verify, sample, &l, &missing, msg, sizeof msg)) {
        fprintf(stderr, "plumb %s: error: %s\n", cmd, msg);
        return CLI_EXIT_USAGE;
    }
    int rc;
    if (ls || verify)
        rc = do_ls(dir, &l, json, verify);
    else
        rc = do_remove(cmd, dir, &l, json, clear, has_max, max_bytes);
    rt_cache_listing_free(&l);
    return cli_finish(cmd, rc);
}
