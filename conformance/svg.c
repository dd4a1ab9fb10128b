/* Inline SVG charts of the HTML reports (html.h): plain shapes with a
 * <title> on each, so that a browser without scripts shows them and a
 * reader can hover a bar for its count. Coordinates are integers or one
 * decimal: the page's size stays proportional to what it shows. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "html.h"

#define SVG_OK "#3a7d44"
#define SVG_EXACT "#1f4e79"
#define SVG_FAIL "#c0392b"
#define SVG_TRACK "#e4e4e4"

static void svg_open(plumb_buf *b, unsigned w, unsigned h, const char *cls, const char *title)
{
    plumb_buf_printf(b, "<svg class=\"%s\" width=\"%u\" height=\"%u\" "
                        "viewBox=\"0 0 %u %u\" role=\"img\" aria-label=\"", cls, w, h, w, h);
    conf_html_esc(b, title);
    plumb_buf_puts(b, "\"><title>");
    conf_html_esc(b, title);
    plumb_buf_puts(b, "</title>");
}

void conf_svg_hist(plumb_buf *b, const uint32_t *bins, uint32_t n, const char *const *labels, uint32_t over,
                   const char *title)
{
    const unsigned bw = 12, gap = 2, h = 32, base = h - 2;
    unsigned w = n * (bw + gap) + gap;
    uint32_t max = 0;
    for (uint32_t k = 0; k < n; k++)
        if (bins[k] > max) max = bins[k];
    svg_open(b, w, h, "hist", title);
    plumb_buf_printf(b, "<line x1=\"0\" y1=\"%u.5\" x2=\"%u\" y2=\"%u.5\" stroke=\"#999\" stroke-width=\"1\"/>",
                     base, w, base);
    for (uint32_t k = 0; k < n; k++) {
        /* sqrt scale: the exact bin often holds thousands, a failure one */
        double frac = max ? sqrt((double)bins[k]) / sqrt((double)max) : 0.0;
        double bh = frac * (double)(base - 1);
        if (bins[k] && bh < 2.0) bh = 2.0;
        const char *fill = (over >> k) & 1 ? SVG_FAIL : k == 0 ? SVG_EXACT : SVG_OK;
        plumb_buf_printf(b, "<rect x=\"%u\" y=\"%.1f\" width=\"%u\" height=\"%.1f\" fill=\"%s\"><title>",
                         gap + k * (bw + gap), (double)base - bh, bw, bh, fill);
        conf_html_esc(b, labels && labels[k] ? labels[k] : "");
        plumb_buf_printf(b, ": %u</title></rect>", bins[k]);
    }
    plumb_buf_puts(b, "</svg>");
}

void conf_svg_budget_bar(plumb_buf *b, double used)
{
    const unsigned w = 100, h = 10;
    char title[64];
    bool fail = !(used <= 1.0);
    if (used >= 1e29 || !isfinite(used))
        snprintf(title, sizeof title, "budget used: mismatch (must match exactly)");
    else
        snprintf(title, sizeof title, "budget used: %.3g of the bound", used);
    svg_open(b, w, h, "bar", title);
    plumb_buf_printf(b, "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"%s\"/>", w, h, SVG_TRACK);
    double fill = fail ? (double)w : (used > 0 ? used * (double)w : 0.0);
    if (used > 0 && fill < 1.0) fill = 1.0;   /* any error at all shows */
    if (fill > 0)
        plumb_buf_printf(b, "<rect x=\"0\" y=\"0\" width=\"%.1f\" height=\"%u\" fill=\"%s\"/>", fill, h,
                         fail ? SVG_FAIL : SVG_OK);
    plumb_buf_puts(b, "</svg>");
}

void conf_svg_timeline(plumb_buf *b, uint32_t first, uint32_t last, const uint32_t *builds, uint32_t n_builds,
                       bool fail, const char *title)
{
    const unsigned left = 6, right = 6, h = 28, y = 14;
    if (last < first) last = first;
    uint32_t n_steps = last - first + 1;
    /* 8 px a step up to 480 px, then squeezed */
    double dx = n_steps > 1 ? (n_steps <= 60 ? 8.0 : 472.0 / (double)(n_steps - 1)) : 0.0;
    unsigned w = left + right + (unsigned)ceil(dx * (double)(n_steps - 1));
    if (w < 60) w = 60;
    svg_open(b, w, h, "timeline", title);
    plumb_buf_printf(b, "<line x1=\"%u\" y1=\"%u\" x2=\"%u\" y2=\"%u\" stroke=\"#999\" stroke-width=\"1\"/>", left, y,
                     w - right, y);
    if (n_steps <= 120)
        for (uint32_t s = 0; s < n_steps; s++)
            plumb_buf_printf(b, "<line x1=\"%.1f\" y1=\"%u\" x2=\"%.1f\" y2=\"%u\" stroke=\"#bbb\" stroke-width=\"1\"/>",
                             left + dx * (double)s, y - 3, left + dx * (double)s, y + 3);
    for (uint32_t i = 0; i < n_builds; i++) {
        uint32_t s = builds[i] < first ? first : builds[i] > last ? last : builds[i];
        plumb_buf_printf(b, "<circle class=\"build\" cx=\"%.1f\" cy=\"%u\" r=\"4\" fill=\"%s\"><title>compile at step "
                            "%u</title></circle>", left + dx * (double)(s - first), y, fail ? SVG_FAIL : SVG_EXACT,
                         builds[i]);
    }
    plumb_buf_puts(b, "</svg>");
}
