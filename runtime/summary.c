/* Per-entry recompile summary: which causes made an entry's programs, and
 * a warning when they come too often (rt_summary.h). */
#include <stdlib.h>
#include <string.h>

#include "rt_summary.h"

/* The value of "key" in the explanation object's top level (before its
 * "differences" list): a string (escapes kept as written) or a number. */
static bool top_field(const char *json, const char *key, char *out, size_t cap)
{
    char pat[48];
    snprintf(pat, sizeof pat, "\"%s\": ", key);
    const char *end = strstr(json, "\"differences\"");
    const char *p = strstr(json, pat);
    out[0] = 0;
    if (!p || (end && p > end))
        return false;
    p += strlen(pat);
    size_t n = 0;
    if (*p == '"') {
        for (p++; *p && *p != '"' && n + 1 < cap; p++) {
            if (*p == '\\' && p[1])
                out[n++] = *p++;
            if (n + 1 < cap)
                out[n++] = *p;
        }
    } else {
        for (; *p && *p != ',' && *p != '}' && n + 1 < cap; p++)
            out[n++] = *p;
    }
    out[n] = 0;
    return true;
}

void rt_summary_note(rt_summary *s, const char *json, uint64_t runs, FILE *log, bool log_json, const char *module,
                     const char *entry)
{
    rt_cause k;
    memset(&k, 0, sizeof k);
    char node[32], file[64], line[16];
    top_field(json, "class", k.cls, sizeof k.cls);
    k.node = top_field(json, "node", node, sizeof node) ? strtol(node, NULL, 10) : -1;
    top_field(json, "name", k.name, sizeof k.name);
    /* The front end's location names the source line to fix; without one,
     * the program file's. */
    if (!top_field(json, "from", k.from, sizeof k.from) && top_field(json, "file", file, sizeof file) &&
        top_field(json, "line", line, sizeof line))
        snprintf(k.from, sizeof k.from, "%s:%s", file, line);
    uint32_t i = 0;
    for (; i < s->n; i++)
        if (strcmp(s->c[i].cls, k.cls) == 0 && s->c[i].node == k.node && strcmp(s->c[i].name, k.name) == 0 &&
            strcmp(s->c[i].from, k.from) == 0)
            break;
    if (i < s->n) {
        s->c[i].count++;
    } else if (s->n < RT_SUMMARY_CAUSES) {
        k.count = 1;
        s->c[s->n++] = k;
    } else {
        s->other++;
    }
    s->at_run[s->n_at++ % RT_FREQUENT_COMPILES] = runs;
    if (!log || s->warned || s->n_at < RT_FREQUENT_COMPILES)
        return;
    /* The oldest of the last RT_FREQUENT_COMPILES recompiles. */
    uint64_t first = s->at_run[s->n_at % RT_FREQUENT_COMPILES];
    if (runs - first >= RT_FREQUENT_RUNS)
        return;
    s->warned = true;
    if (log_json) {
        fprintf(log, "{\"too_frequent\": {\"module\": ");
        if (module)
            plumb_json_str_fput(log, module);
        else
            fputs("null", log);
        fputs(", \"entry\": ", log);
        plumb_json_str_fput(log, entry);
        fprintf(log, ", \"recompiles\": %d, \"runs\": %d}}\n", RT_FREQUENT_COMPILES, RT_FREQUENT_RUNS);
    } else {
        fprintf(log, "plumb: warning: %s%s@%s: %d recompiles in its last %d runs (a recompile storm: see the causes)\n",
                module ? module : "", module ? "/" : "", entry, RT_FREQUENT_COMPILES, RT_FREQUENT_RUNS);
    }
    fflush(log);
}

void rt_summary_print(FILE *log, bool log_json, const char *module, const char *entry, const rt_summary *s,
                      const plumb_runtime_stats *st)
{
    /* Most frequent first; ties keep first-seen order. */
    uint32_t ord[RT_SUMMARY_CAUSES];
    for (uint32_t i = 0; i < s->n; i++) {
        uint32_t j = i;
        for (; j > 0 && s->c[ord[j - 1]].count < s->c[i].count; j--)
            ord[j] = ord[j - 1];
        ord[j] = i;
    }
    if (log_json) {
        fputs("{\"summary\": {\"module\": ", log);
        if (module)
            plumb_json_str_fput(log, module);
        else
            fputs("null", log);
        fputs(", \"entry\": ", log);
        plumb_json_str_fput(log, entry);
        fprintf(log, ", \"programs\": %u, \"compiles\": %llu, \"recompiles\": %llu, \"disk_hits\": %llu, \"runs\": %llu, "
                     "\"causes\": [",
                st->programs, (unsigned long long)st->compiles, (unsigned long long)st->recompiles,
                (unsigned long long)st->disk_hits, (unsigned long long)st->runs);
        for (uint32_t i = 0; i < s->n; i++) {
            const rt_cause *c = &s->c[ord[i]];
            fprintf(log, "%s{\"count\": %u, \"class\": ", i ? ", " : "", c->count);
            plumb_json_str_fput(log, c->cls);
            fprintf(log, ", \"node\": %ld, \"name\": ", c->node);
            plumb_json_str_fput(log, c->name);
            fputs(", \"from\": ", log);
            plumb_json_str_fput(log, c->from);
            fputc('}', log);
        }
        fprintf(log, "], \"other\": %u}}\n", s->other);
    } else {
        fprintf(log, "plumb: summary %s%s@%s: %u programs, %llu compiles (%llu recompiles, %llu disk hits), %llu runs",
                module ? module : "", module ? "/" : "", entry, st->programs, (unsigned long long)st->compiles,
                (unsigned long long)st->recompiles, (unsigned long long)st->disk_hits, (unsigned long long)st->runs);
        for (uint32_t i = 0; i < s->n; i++) {
            const rt_cause *c = &s->c[ord[i]];
            fprintf(log, "%s%ux %s", i ? ", " : ": ", c->count, c->cls);
            if (c->node >= 0)
                fprintf(log, " at node %ld", c->node);
            if (c->name[0] || c->from[0])
                fprintf(log, " (%s%s%s)", c->name, c->name[0] && c->from[0] ? ", " : "", c->from);
        }
        if (s->other)
            fprintf(log, ", %ux other causes", s->other);
        fputc('\n', log);
    }
    fflush(log);
}
