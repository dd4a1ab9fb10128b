/* The HTML report of a certification (html.h): written from the same
 * conf_run the text, JSON and JUnit writers read (conformance/report.c),
 * so the page and the JSON always agree on counts and verdict. Also the
 * page frame and escaping every HTML page of plumb uses. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "certify.h"
#include "conf.h"
#include "html.h"

/* ---- escaping ------------------------------------------------------------------ */

/* Length of the valid UTF-8 sequence at p (at most n bytes), 0 if invalid
 * (overlong forms, surrogates and code points past U+10FFFF included). */
static size_t utf8_len(const unsigned char *p, size_t n)
{
    unsigned c = p[0];
    size_t len;
    unsigned min;
    if (c < 0x80) return 1;
    if (c >= 0xc2 && c <= 0xdf) { len = 2; min = 0x80; }
    else if (c >= 0xe0 && c <= 0xef) { len = 3; min = 0x800; }
    else if (c >= 0xf0 && c <= 0xf4) { len = 4; min = 0x10000; }
    else return 0;
    if (n < len) return 0;
    unsigned cp = c & (0x3fu >> (len - 1));
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xc0) != 0x80) return 0;
        cp = cp << 6 | (p[i] & 0x3fu);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
    return len;
}

void conf_html_esc_n(plumb_buf *b, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        unsigned char c = p[i];
        const char *ent = NULL;
        switch (c) {
        case '&': ent = "&amp;"; break;
        case '<': ent = "&lt;"; break;
        case '>': ent = "&gt;"; break;
        case '"': ent = "&quot;"; break;
        case '\'': ent = "&#39;"; break;
        default: break;
        }
        if (ent) {
            plumb_buf_puts(b, ent);
            i++;
            continue;
        }
        if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) {
            plumb_buf_puts(b, "\xef\xbf\xbd");
            i++;
            continue;
        }
        size_t len = utf8_len(p + i, n - i);
        if (!len) {
            plumb_buf_puts(b, "\xef\xbf\xbd");
            i++;
            continue;
        }
        plumb_buf_append(b, (const char *)p + i, len);
        i += len;
    }
}

void conf_html_esc(plumb_buf *b, const char *s) { conf_html_esc_n(b, s, strlen(s)); }

/* ---- the page frame -------------------------------------------------------------- */

/* Nothing may load from anywhere: the policy allows only the page's own
 * inline style and script. */
static const char html_head[] =
    "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
    "script-src 'unsafe-inline'\">\n"
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
    "<meta name=\"generator\" content=\"plumb " PLUMB_VERSION_STRING "\">\n<title>";

static const char html_style[] =
    "<style>\n"
    "body{font-family:system-ui,sans-serif;margin:1.5em;color:#222;max-width:100em}\n"
    "h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ccc}\n"
    "table{border-collapse:collapse;margin:.5em 0}th,td{border:1px solid #ccc;padding:.2em .5em;"
    "text-align:left;vertical-align:top}\n"
    "th{background:#f0f0f0}table.sortable th{cursor:pointer}td.n{text-align:right;font-variant-numeric:tabular-nums}\n"
    "tr.bad td{background:#fdecea}code,pre{font-family:ui-monospace,monospace;font-size:.9em}\n"
    "pre{white-space:pre-wrap;margin:.2em 0}\n"
    ".verdict{padding:.8em 1em;border:3px solid;margin:1em 0}.verdict p{margin:.2em 0}\n"
    ".verdict .word{font-size:1.6em;font-weight:bold}\n"
    ".v-pass{border-color:#3a7d44;background:#eaf5ec}.v-fail{border-color:#c0392b;background:#fdecea}\n"
    ".v-partial{border-color:#b7791f;background:#fff4d6}\n"
    "dl.cert{display:grid;grid-template-columns:max-content auto;gap:.2em 1em}dl.cert dt{font-weight:bold}"
    "dl.cert dd{margin:0}\n"
    "svg{vertical-align:middle}.muted{color:#666}\n"
    "</style>\n</head>\n<body>\n";

/* Sorts a "sortable" table by the clicked column: by each cell's data-v
 * (a number) when it has one, else by its text; a second click reverses. */
static const char html_script[] =
    "<script>\n"
    "document.querySelectorAll('table.sortable').forEach(function(t){\n"
    "  t.querySelectorAll('thead th').forEach(function(th,col){\n"
    "    th.title='click to sort';\n"
    "    th.addEventListener('click',function(){\n"
    "      var body=t.tBodies[0],rows=Array.prototype.slice.call(body.rows);\n"
    "      var dir=th.getAttribute('data-dir')==='asc'?-1:1;\n"
    "      t.querySelectorAll('thead th').forEach(function(h){h.removeAttribute('data-dir');});\n"
    "      th.setAttribute('data-dir',dir===1?'asc':'desc');\n"
    "      function key(r){var c=r.cells[col];if(!c)return '';var v=c.getAttribute('data-v');"
    "return v!==null?parseFloat(v):c.textContent;}\n"
    "      rows.sort(function(a,b){var x=key(a),y=key(b);"
    "if(typeof x==='number'&&typeof y==='number')return dir*(x-y);return dir*String(x).localeCompare(String(y));});\n"
    "      rows.forEach(function(r){body.appendChild(r);});\n"
    "    });\n"
    "  });\n"
    "});\n"
    "</script>\n";

void conf_html_begin(plumb_buf *b, const char *title)
{
    plumb_buf_puts(b, html_head);
    conf_html_esc(b, title);
    plumb_buf_puts(b, "</title>\n");
    plumb_buf_puts(b, html_style);
    plumb_buf_puts(b, "<h1>");
    conf_html_esc(b, title);
    plumb_buf_puts(b, "</h1>\n");
}

void conf_html_end(plumb_buf *b)
{
    plumb_buf_printf(b, "<p class=\"muted\">Written by plumb %s. This page loads nothing from outside; "
                        "JavaScript only sorts the tables.</p>\n", PLUMB_VERSION_STRING);
    plumb_buf_puts(b, html_script);
    plumb_buf_puts(b, "</body>\n</html>\n");
}

/* ---- the certification page -------------------------------------------------- */

static const char *suite_name(conf_suite s) { return s == CONF_SUITE_FULL ? "full" : "quick"; }

static void type_list(plumb_buf *b, uint32_t mask)
{
    bool first = true;
    for (int t = 0; t < PLUMB_DTYPE_COUNT; t++) {
        if (!(mask & PLUMB_TY_BIT(t))) continue;
        plumb_buf_puts(b, first ? "" : ", ");
        conf_html_esc(b, plumb_dtype_name((plumb_dtype)t));   /* complex<f32> has angle brackets */
        first = false;
    }
    if (first) plumb_buf_puts(b, "-");
}

/* A budget as the text report prints it; a sort key that puts mismatches
 * last (largest). */
static void budget_cell(plumb_buf *b, double v, bool have)
{
    if (!have) {
        plumb_buf_puts(b, "<td class=\"n\" data-v=\"-1\">-</td>");
        return;
    }
    bool mismatch = v >= 1e29 || !isfinite(v);
    plumb_buf_printf(b, "<td class=\"n\" data-v=\"%.6g\">", mismatch ? 1e30 : v);
    conf_svg_budget_bar(b, v);
    if (mismatch) plumb_buf_puts(b, " mismatch");
    else plumb_buf_printf(b, " %.3g", v);
    plumb_buf_puts(b, "</td>");
}

/* Bin labels of conf_budget_hist, for tooltips and the legend. */
static const char *const hist_labels[CONF_HIST_BINS] = {
    "exact (0)", "(0, 1/16]", "(1/16, 1/8]", "(1/8, 1/4]", "(1/4, 1/2]", "(1/2, 1]", "over 1 (fails)",
};

static void hist_svg(plumb_buf *b, const conf_budget_hist *h, const char *what)
{
    char title[200];
    snprintf(title, sizeof title, "budget used by %u checked cases of %s", h->n, what);
    conf_svg_hist(b, h->bins, CONF_HIST_BINS, hist_labels, 1u << (CONF_HIST_BINS - 1), title);
}

static void fmt_quantile(plumb_buf *b, double v)
{
    if (v >= 1e29 || !isfinite(v)) plumb_buf_puts(b, "mismatch");
    else plumb_buf_printf(b, "%.3g", v);
}

/* The row order without a script: ops with problems first (failed cases,
 * then a short manifest), then by worst budget used, then by op. */
typedef struct op_row {
    int op;
    uint32_t failed;
    bool short_manifest;
    double worst;
} op_row;

static int op_row_cmp(const void *a, const void *b)
{
    const op_row *x = a, *y = b;
    if (x->failed != y->failed) return x->failed > y->failed ? -1 : 1;
    if (x->short_manifest != y->short_manifest) return x->short_manifest ? -1 : 1;
    if (x->worst != y->worst) return x->worst > y->worst ? -1 : 1;
    return x->op - y->op;
}

static void cert_section(plumb_buf *b, const conf_run *run)
{
    const conf_backend *bk = &run->backend;
    const conf_caps *c = &bk->caps;
    const conf_run_options *o = &run->opts;
    bool certified = conf_run_certified(run), complete = conf_run_complete(run);
    const char *cls = certified ? "v-pass" : complete ? "v-fail" : "v-partial";
    const char *word = certified ? "CERTIFIED" : complete ? "NOT CERTIFIED" : "PARTIAL RUN — NOT A CERTIFICATE";
    plumb_buf_printf(b, "<section id=\"verdict\" class=\"verdict %s\" data-certified=\"%s\">\n<p class=\"word\">%s</p>\n"
                        "<p>", cls, certified ? "true" : "false", word);
    plumb_buf v;
    plumb_buf_init(&v);
    conf_report_verdict(&v, run);
    conf_html_esc(b, v.data ? v.data : "");
    if (v.failed) b->failed = true;
    plumb_buf_free(&v);
    plumb_buf_printf(b, "</p>\n<p>%llu passed, %llu failed, %llu skipped</p>\n</section>\n",
                     (unsigned long long)run->passed, (unsigned long long)run->failed,
                     (unsigned long long)run->skipped);

    plumb_buf_puts(b, "<h2 id=\"certificate\">Certificate</h2>\n<dl class=\"cert\">\n<dt>backend</dt><dd>");
    conf_html_esc(b, bk->name);
    plumb_buf_puts(b, "</dd>\n<dt>version</dt><dd>");
    conf_html_esc(b, bk->version);
    plumb_buf_puts(b, "</dd>\n<dt>location</dt><dd><code>");
    conf_html_esc(b, bk->where);
    plumb_buf_printf(b, "</code></dd>\n<dt>suite</dt><dd>%s, seed %llu, shard %u/%u</dd>\n<dt>scope</dt><dd>",
                     suite_name(o->suite), (unsigned long long)o->seed, o->shard_index, o->shard_count);
    if (complete) {
        plumb_buf_puts(b, "the whole suite");
    } else {
        plumb_buf sc;
        plumb_buf_init(&sc);
        conf_run_scope_text(&sc, run);
        plumb_buf_puts(b, "<strong>PARTIAL: ");
        conf_html_esc(b, sc.data ? sc.data : "");
        plumb_buf_puts(b, "</strong>");
        plumb_buf_free(&sc);
    }
    plumb_buf_printf(b, "</dd>\n<dt>capabilities</dt><dd>%u ops claimed; polymorphic shapes %s; subnormals ",
                     c->n_claimed_ops, conf_poly_name(c->poly));
    if (c->flush_subnormals) {
        plumb_buf_puts(b, "flushed to zero for ");
        type_list(b, c->flush_subnormals);
    } else {
        plumb_buf_puts(b, "IEEE");
    }
    plumb_buf_printf(b, "; NaN payloads %s; %s</dd>\n", c->preserves_nan_payload ? "preserved" : "not preserved",
                     c->deterministic ? "deterministic" : "not deterministic");
    plumb_buf_printf(b, "<dt>accumulators</dt><dd>f16&#8594;%s, bf16&#8594;%s, f32&#8594;%s, f64&#8594;%s</dd>\n",
                     plumb_dtype_name(c->accum[PLUMB_F16]), plumb_dtype_name(c->accum[PLUMB_BF16]),
                     plumb_dtype_name(c->accum[PLUMB_F32]), plumb_dtype_name(c->accum[PLUMB_F64]));
    /* the small formats' (ABI 1.4 accum_small), as the text certificate
     * words them: one line, a format summed in itself named as a limit */
    char small[768];
    conf_caps_small_accum_text(c, small, sizeof small);
    plumb_buf_puts(b, "<dt>small-format accumulators</dt><dd id=\"accum-small\">");
    conf_html_esc(b, small);
    plumb_buf_puts(b, "</dd>\n");
    plumb_buf_printf(b, "<dt>digest</dt><dd><code id=\"digest\">xxh3-128:%016llx%016llx</code></dd>\n",
                     (unsigned long long)run->digest[0], (unsigned long long)run->digest[1]);
    char when[64] = "";
    time_t t = (time_t)run->started;
    struct tm tmv;
    if (run->started && gmtime_r(&t, &tmv)) strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tmv);
    plumb_buf_printf(b, "<dt>run</dt><dd>%s%s%.1f s; plumb %s</dd>\n", when, when[0] ? ", " : "", run->seconds,
                     PLUMB_VERSION_STRING);
    if (run->baseline) {
        plumb_buf_puts(b, "<dt>baseline</dt><dd><code>");
        conf_html_esc(b, run->baseline->path);
        plumb_buf_printf(b, "</code>: %u entr%s, %u known failure%s excused</dd>\n", run->baseline->n,
                         run->baseline->n == 1 ? "y" : "ies", run->n_excused, run->n_excused == 1 ? "" : "s");
    }
    plumb_buf_puts(b, "</dl>\n");
}

static void ops_section(plumb_buf *b, const conf_run *run)
{
    op_row rows[PLUMB_OP_COUNT];
    uint32_t n = 0;
    for (int i = 0; i < PLUMB_OP_COUNT; i++) {
        if (!run->op_in_run[i]) continue;
        const conf_op_summary *s = &run->ops[i];
        rows[n++] = (op_row){i, s->failed, s->claimed && !s->manifest_ok, s->cases ? s->worst_budget : -1.0};
    }
    qsort(rows, n, sizeof *rows, op_row_cmp);
    plumb_buf_printf(b, "<h2 id=\"ops\">Ops (%u)</h2>\n", n);
    plumb_buf_puts(b, "<p>Budget used is a case's error as a fraction of its bound (0 exact, over 1 fails). "
                      "Histogram bins, left to right: ");
    for (int k = 0; k < CONF_HIST_BINS; k++) plumb_buf_printf(b, "%s%s", k ? ", " : "", hist_labels[k]);
    plumb_buf_puts(b, "; bar heights on a square-root scale. Ops with failures come first; click a heading to "
                      "sort.</p>\n");
    plumb_buf_puts(b, "<table class=\"sortable\" id=\"op-table\">\n<thead><tr><th>op</th><th>types claimed</th>"
                      "<th>cases</th><th>passed</th><th>failed</th><th>unsupported</th><th>worst budget</th>"
                      "<th>budget histogram</th><th>worst case, note</th></tr></thead>\n<tbody>\n");
    for (uint32_t r = 0; r < n; r++) {
        int i = rows[r].op;
        const conf_op_summary *s = &run->ops[i];
        const char *name = plumb_op_name((plumb_opcode)i);
        bool bad = s->failed || (s->claimed && !s->manifest_ok);
        plumb_buf_printf(b, "<tr class=\"op%s\" data-op=\"", bad ? " bad" : "");
        conf_html_esc(b, name);
        plumb_buf_puts(b, "\"><td><code>");
        conf_html_esc(b, name);
        plumb_buf_puts(b, "</code></td><td>");
        if (s->claimed) type_list(b, s->claimed);
        else plumb_buf_puts(b, "(unsupported)");
        plumb_buf_printf(b, "</td><td class=\"n\" data-v=\"%u\">%u</td><td class=\"n\" data-v=\"%u\">%u</td>"
                            "<td class=\"n failed\" data-v=\"%u\">%u</td><td class=\"n\" data-v=\"%u\">%u</td>",
                         s->cases, s->cases, s->passed, s->passed, s->failed, s->failed, s->skipped, s->skipped);
        budget_cell(b, s->worst_budget, s->cases != 0);
        /* the op's histogram over its types, then one per type */
        conf_budget_hist all, per[PLUMB_DTYPE_COUNT];
        memset(&all, 0, sizeof all);
        for (int t = 0; t < PLUMB_DTYPE_COUNT; t++) {
            if (!conf_run_budget_hist(run, (plumb_opcode)i, (plumb_dtype)t, &per[t])) {
                b->failed = true;   /* out of memory: the report is not written */
                return;
            }
            if (!per[t].n) continue;
            all.n += per[t].n;
            for (int k = 0; k < CONF_HIST_BINS; k++) all.bins[k] += per[t].bins[k];
        }
        plumb_buf_printf(b, "<td data-v=\"%u\">", all.n);
        if (all.n) {
            hist_svg(b, &all, name);
            plumb_buf_puts(b, "<details><summary>per type</summary><table><thead><tr><th>type</th><th>cases</th>"
                              "<th>histogram</th><th>p50</th><th>p90</th><th>p99</th><th>worst</th></tr></thead>"
                              "<tbody>");
            for (int t = 0; t < PLUMB_DTYPE_COUNT; t++) {
                if (!per[t].n) continue;
                char what[128];
                snprintf(what, sizeof what, "%s in %s", name, plumb_dtype_name((plumb_dtype)t));
                plumb_buf_puts(b, "<tr><td>");
                conf_html_esc(b, plumb_dtype_name((plumb_dtype)t));
                plumb_buf_printf(b, "</td><td class=\"n\">%u</td><td>", per[t].n);
                hist_svg(b, &per[t], what);
                plumb_buf_puts(b, "</td><td class=\"n\">");
                fmt_quantile(b, per[t].p50);
                plumb_buf_puts(b, "</td><td class=\"n\">");
                fmt_quantile(b, per[t].p90);
                plumb_buf_puts(b, "</td><td class=\"n\">");
                fmt_quantile(b, per[t].p99);
                plumb_buf_puts(b, "</td><td class=\"n\">");
                fmt_quantile(b, per[t].worst);
                plumb_buf_puts(b, "</td></tr>");
            }
            plumb_buf_puts(b, "</tbody></table></details>");
        } else {
            plumb_buf_puts(b, "-");
        }
        plumb_buf_puts(b, "</td><td>");
        if (s->worst_case[0]) {
            plumb_buf_puts(b, "<code>");
            conf_html_esc(b, s->worst_case);
            plumb_buf_puts(b, "</code>");
        }
        if (s->note[0] && s->claimed) {
            plumb_buf_puts(b, s->worst_case[0] ? "<br>" : "");
            conf_html_esc(b, s->note);
        }
        plumb_buf_puts(b, "</td></tr>\n");
    }
    plumb_buf_puts(b, "</tbody>\n</table>\n");
}

/* The step numbers of the "step N: why" lines of a scenario's reasons
 * (the cache suite's own scenarios count steps from 0, the seed scenarios
 * from 1: *min_step tells which). */
static uint32_t explain_steps(const char *explain, uint32_t *steps, uint32_t cap, uint32_t *min_step,
                              uint32_t *max_step)
{
    uint32_t n = 0;
    *max_step = 0;
    *min_step = UINT32_MAX;
    for (const char *l = explain; *l;) {
        unsigned long v;
        char *end;
        if (!strncmp(l, "step ", 5) && l[5] >= '0' && l[5] <= '9' && (v = strtoul(l + 5, &end, 10)) < UINT32_MAX &&
            *end == ':') {
            if (n < cap) steps[n++] = (uint32_t)v;
            if (v > *max_step) *max_step = (uint32_t)v;
            if (v < *min_step) *min_step = (uint32_t)v;
        }
        const char *e = strchr(l, '\n');
        if (!e) break;
        l = e + 1;
    }
    return n;
}

static void cache_section(plumb_buf *b, const conf_run *run)
{
    if (!run->n_cache && !run->n_cache_not_run) return;
    plumb_buf_printf(b, "<h2 id=\"cache\">Cache stability (%u scenarios run, %u not run)</h2>\n", run->n_cache,
                     run->n_cache_not_run);
    plumb_buf_puts(b, "<p>Compiles counted through the backend's stats against the count the scenario expects. "
                      "The timeline marks each compile call that built a program (from the backend's reasons, "
                      "ABI 1.2 explain).</p>\n");
    if (run->n_cache) {
        plumb_buf_puts(b, "<table class=\"sortable\" id=\"cache-table\">\n<thead><tr><th>scenario</th><th>compiles</th>"
                          "<th>expected</th><th>runs</th><th>verdict</th><th>compile timeline</th><th>note, reasons"
                          "</th></tr></thead>\n<tbody>\n");
        /* failed scenarios first */
        for (int pass = 0; pass < 2; pass++)
            for (uint32_t i = 0; i < run->n_cache; i++) {
                const conf_cache_scenario *s = &run->cache[i];
                if (s->pass != (pass == 1)) continue;
                plumb_buf_printf(b, "<tr class=\"scenario%s\" data-scenario=\"", s->pass ? "" : " bad");
                conf_html_esc(b, s->name);
                plumb_buf_puts(b, "\"><td><code>");
                conf_html_esc(b, s->name);
                plumb_buf_printf(b, "</code></td><td class=\"n compiles\" data-v=\"%llu\">%llu</td>",
                                 (unsigned long long)s->compiles, (unsigned long long)s->compiles);
                if (s->expected_min == s->expected_max)
                    plumb_buf_printf(b, "<td class=\"n\" data-v=\"%llu\">%llu</td>", (unsigned long long)s->expected_max,
                                     (unsigned long long)s->expected_max);
                else
                    plumb_buf_printf(b, "<td class=\"n\" data-v=\"%llu\">%llu to %llu</td>",
                                     (unsigned long long)s->expected_min, (unsigned long long)s->expected_min,
                                     (unsigned long long)s->expected_max);
                if (s->runs)
                    plumb_buf_printf(b, "<td class=\"n\" data-v=\"%u\">%u runs, %u sizes</td>", s->runs, s->runs,
                                     s->distinct);
                else
                    plumb_buf_puts(b, "<td class=\"n\" data-v=\"0\">-</td>");
                plumb_buf_printf(b, "<td>%s</td><td>", s->pass ? "pass" : "<strong>FAIL</strong>");
                uint32_t steps[256], min_step, max_step;
                uint32_t n_steps = explain_steps(s->explain, steps, 256, &min_step, &max_step);
                if (n_steps) {
                    uint32_t first = min_step == 0 ? 0 : 1;
                    uint64_t last = max_step;
                    if (s->calls && first + s->calls - 1 > last) last = first + s->calls - 1;
                    if (last > 100000) last = 100000;
                    char title[200];
                    snprintf(title, sizeof title, "%u of %llu compiles placed on steps %u to %llu", n_steps,
                             (unsigned long long)s->compiles, first, (unsigned long long)last);
                    conf_svg_timeline(b, first, (uint32_t)last, steps, n_steps, !s->pass, title);
                    if (s->calls)
                        plumb_buf_printf(b, " <span class=\"muted\">%llu calls</span>", (unsigned long long)s->calls);
                } else if (s->compiles) {
                    plumb_buf_puts(b, "<span class=\"muted\">no reasons given: compile steps unknown</span>");
                } else {
                    plumb_buf_puts(b, "<span class=\"muted\">no compiles</span>");
                }
                plumb_buf_puts(b, "</td><td>");
                if (!s->pass) {
                    plumb_buf_puts(b, "<strong>");
                    conf_html_esc(b, s->reason);
                    plumb_buf_puts(b, "</strong><br>");
                }
                conf_html_esc(b, s->note);
                if (s->explain[0]) {
                    plumb_buf_printf(b, "<details><summary>%u build%s explained</summary><pre>", s->builds_explained,
                                     s->builds_explained == 1 ? "" : "s");
                    conf_html_esc(b, s->explain);
                    if (s->builds_explained > n_steps)
                        plumb_buf_printf(b, "\n(%u more)", s->builds_explained - n_steps);
                    plumb_buf_puts(b, "</pre></details>");
                }
                plumb_buf_puts(b, "</td></tr>\n");
            }
        plumb_buf_puts(b, "</tbody>\n</table>\n");
        if (run->no_explain)
            plumb_buf_puts(b, "<p>Reasons: none (the backend's table has no explain, an optional function appended "
                              "in ABI 1.2).</p>\n");
    }
    if (run->n_cache_not_run) {
        plumb_buf_puts(b, "<h3>Not run</h3>\n<ul id=\"cache-not-run\">\n");
        for (uint32_t i = 0; i < run->n_cache_not_run; i++) {
            plumb_buf_puts(b, "<li><code>");
            conf_html_esc(b, run->cache_not_run[i].name);
            plumb_buf_puts(b, "</code>: ");
            conf_html_esc(b, run->cache_not_run[i].reason);
            plumb_buf_puts(b, "</li>\n");
        }
        plumb_buf_puts(b, "</ul>\n");
    }
}

/* ---- failures grouped by op and reason --------------------------------------- */

/* A reason's shape: numbers, hex values and index lists replaced by '#', so
 * that "output 0 element 3 at [3]: got 0x7f800000 (inf)..." and the same
 * failure at element 5 fall in one group. Also the status. */
static void reason_shape(const conf_case_result *r, char *out, size_t cap)
{
    size_t k = 0;
    int n = snprintf(out, cap, "%s: ", conf_status_name(r->status));
    if (n > 0) k = (size_t)n < cap ? (size_t)n : cap - 1;
    const char *p = r->reason;
    while (*p && k + 1 < cap) {
        unsigned char c = (unsigned char)*p;
        bool word_start = p == r->reason || !((p[-1] >= 'a' && p[-1] <= 'z') || (p[-1] >= 'A' && p[-1] <= 'Z') ||
                                              p[-1] == '_');
        if (word_start && ((c >= '0' && c <= '9') || ((c == '-' || c == '+') && p[1] >= '0' && p[1] <= '9'))) {
            /* a number: digits, hex digits, '.', 'x', exponents */
            p++;
            while ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f') || (*p >= 'A' && *p <= 'F') || *p == '.' ||
                   *p == 'x' || *p == 'X' || ((*p == '-' || *p == '+') && (p[-1] == 'e' || p[-1] == 'E')))
                p++;
            out[k++] = '#';
            continue;
        }
        if (c == '[') {
            /* an index: [3,1] */
            const char *q = p + 1;
            while ((*q >= '0' && *q <= '9') || *q == ',' || *q == ' ') q++;
            if (*q == ']') {
                if (k + 3 < cap) { out[k++] = '['; out[k++] = '#'; out[k++] = ']'; }
                p = q + 1;
                continue;
            }
        }
        out[k++] = (char)c;
        p++;
    }
    out[k] = 0;
}

typedef struct fail_ref {
    uint32_t index;            /* into run->cases */
    plumb_opcode op;
    char shape[600];
} fail_ref;

static int fail_ref_cmp(const void *a, const void *b)
{
    const fail_ref *x = a, *y = b;
    if (x->op != y->op) return x->op < y->op ? -1 : 1;
    int k = strcmp(x->shape, y->shape);
    if (k) return k;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* Cases listed per group; the rest are counted (the JSON report has all). */
#define HTML_CASES_PER_GROUP 25

static void replay_command(plumb_buf *b, const conf_run *run, const char *id)
{
    plumb_buf_puts(b, "plumb certify --backend ");
    conf_html_esc(b, run->backend.where);
    plumb_buf_printf(b, " --suite %s --seed %llu --case ", suite_name(run->opts.suite),
                     (unsigned long long)run->opts.seed);
    conf_html_esc(b, id);
}

static void failures_section(plumb_buf *b, const conf_run *run)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < run->n_cases; i++) n += run->cases[i].status != CONF_ST_PASS;
    plumb_buf_printf(b, "<h2 id=\"failures\">Failures (%u)</h2>\n", n);
    if (!n) {
        plumb_buf_puts(b, "<p>None: every case that ran passed.</p>\n");
        return;
    }
    fail_ref *v = plumb_malloc(sizeof *v * n);
    if (!v) {
        b->failed = true;
        return;
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < run->n_cases; i++) {
        const conf_case_result *r = &run->cases[i];
        if (r->status == CONF_ST_PASS) continue;
        v[k].index = i;
        v[k].op = r->op;
        reason_shape(r, v[k].shape, sizeof v[k].shape);
        k++;
    }
    qsort(v, n, sizeof *v, fail_ref_cmp);
    plumb_buf_puts(b, "<p>Grouped by op, then by reason with the numbers taken out (#). Each case's command reruns "
                      "it alone and saves its reproducer.</p>\n");
    for (uint32_t i = 0; i < n;) {
        plumb_opcode op = v[i].op;
        uint32_t end = i, groups = 0;
        while (end < n && v[end].op == op) {
            if (end == i || strcmp(v[end].shape, v[end - 1].shape)) groups++;
            end++;
        }
        const char *name = plumb_op_name(op);
        plumb_buf_puts(b, "<section class=\"fail-op\" data-op=\"");
        conf_html_esc(b, name);
        plumb_buf_printf(b, "\" data-count=\"%u\">\n<h3><code>", end - i);
        conf_html_esc(b, name);
        plumb_buf_printf(b, "</code>: %u failure%s in %u group%s</h3>\n", end - i, end - i == 1 ? "" : "s", groups,
                         groups == 1 ? "" : "s");
        for (uint32_t g = i; g < end;) {
            uint32_t ge = g + 1;
            while (ge < end && !strcmp(v[ge].shape, v[g].shape)) ge++;
            plumb_buf_printf(b, "<div class=\"fail-group\" data-count=\"%u\">\n<p><strong>%u case%s</strong>: <code>",
                             ge - g, ge - g, ge - g == 1 ? "" : "s");
            conf_html_esc(b, v[g].shape);
            plumb_buf_puts(b, "</code></p>\n<ul>\n");
            for (uint32_t j = g; j < ge && j < g + HTML_CASES_PER_GROUP; j++) {
                const conf_case_result *r = &run->cases[v[j].index];
                plumb_buf_puts(b, "<li class=\"failure\" data-case=\"");
                conf_html_esc(b, r->id);
                plumb_buf_printf(b, "\" data-status=\"%s\"><code>", conf_status_name(r->status));
                conf_html_esc(b, r->id);
                plumb_buf_printf(b, "</code> [%s]%s ", conf_status_name(r->status),
                                 r->excused ? " (known failure, in the baseline)" : "");
                conf_html_esc(b, r->reason);
                plumb_buf_puts(b, "<br>replay: <code class=\"replay\">");
                replay_command(b, run, r->id);
                plumb_buf_puts(b, "</code>");
                if (r->repro[0]) {
                    plumb_buf_puts(b, "<br>reproducer: <code>");
                    conf_html_esc(b, r->repro);
                    plumb_buf_puts(b, "</code>");
                }
                if (r->attempts > 1) plumb_buf_printf(b, "<br>attempts: %u", r->attempts);
                plumb_buf_puts(b, "</li>\n");
            }
            if (ge - g > HTML_CASES_PER_GROUP)
                plumb_buf_printf(b, "<li class=\"more\">and %u more (every case is in the JSON report)</li>\n",
                                 ge - g - HTML_CASES_PER_GROUP);
            plumb_buf_puts(b, "</ul>\n</div>\n");
            g = ge;
        }
        plumb_buf_puts(b, "</section>\n");
        i = end;
    }
    plumb_free(v, sizeof *v * n);
}

static void flaky_section(plumb_buf *b, const conf_run *run)
{
    if (run->n_flaky) {
        plumb_buf_printf(b, "<h2 id=\"flaky\">Flaky (%u)</h2>\n<p>Crashed or timed out, then passed on a retry; not "
                            "failing.</p>\n<ul>\n", run->n_flaky);
        for (uint32_t i = 0; i < run->n_cases; i++) {
            const conf_case_result *r = &run->cases[i];
            if (!r->flaky) continue;
            plumb_buf_puts(b, "<li><code>");
            conf_html_esc(b, r->id);
            plumb_buf_printf(b, "</code> passed on attempt %u; first: ", r->attempts);
            conf_html_esc(b, r->reason);
            plumb_buf_puts(b, "</li>\n");
        }
        plumb_buf_puts(b, "</ul>\n");
    }
    if (run->n_fixed) {
        plumb_buf_puts(b, "<h2 id=\"fixed\">Fixed baseline entries</h2>\n<ul>\n");
        for (uint32_t i = 0; i < run->n_fixed; i++) {
            plumb_buf_puts(b, "<li><code>");
            conf_html_esc(b, run->fixed[i]);
            plumb_buf_puts(b, "</code> fixed — remove it from the baseline</li>\n");
        }
        plumb_buf_puts(b, "</ul>\n");
    }
}

void conf_report_html(plumb_buf *b, const conf_run *run)
{
    char title[200];
    snprintf(title, sizeof title, "plumb certify: %s %s", run->backend.name, run->backend.version);
    conf_html_begin(b, title);
    plumb_buf_printf(b, "<nav><a href=\"#certificate\">certificate</a> · <a href=\"#failures\">failures</a> · "
                        "<a href=\"#ops\">ops</a>%s</nav>\n",
                     run->n_cache || run->n_cache_not_run ? " · <a href=\"#cache\">cache stability</a>" : "");
    cert_section(b, run);
    failures_section(b, run);
    ops_section(b, run);
    cache_section(b, run);
    flaky_section(b, run);
    conf_html_end(b);
}
