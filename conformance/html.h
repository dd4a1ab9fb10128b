/* Self-contained HTML pages of plumb's reports (docs/certify.md, "The HTML
 * report"): the page frame and escaping (conformance/report_html.c), inline
 * SVG charts drawn here rather than by a script or an external library
 * (conformance/svg.c), and the certification page. The pages of golden
 * check, fuzz and run --stats (cli/html_reports.c) use the same frame.
 *
 * A page loads nothing: no network, no external scripts, fonts or images;
 * a Content-Security-Policy forbids it to the browser too. It reads without
 * JavaScript; the only script sorts tables whose class is "sortable" when a
 * header is clicked, and the tables are already in a sensible order. */
#ifndef PLUMB_CONF_HTML_H
#define PLUMB_CONF_HTML_H

#include <stdbool.h>
#include <stdint.h>

#include "plumb/core.h"

struct conf_run;

/* Appends s as HTML text, also safe inside a double- or single-quoted
 * attribute: & < > " ' become entities, control characters other than tab
 * and newline and every byte that is not part of valid UTF-8 become U+FFFD,
 * so that no string from a backend, a path or a message can end an element
 * or an attribute, or make the page invalid. */
void conf_html_esc(plumb_buf *b, const char *s);
/* The same for the first n bytes of s (s need not be terminated). */
void conf_html_esc_n(plumb_buf *b, const char *s, size_t n);

/* "<!DOCTYPE html>..." up to and including "<body>", with the page's CSS
 * and a heading; title is escaped. */
void conf_html_begin(plumb_buf *b, const char *title);
/* The table-sorting script and "</body></html>". */
void conf_html_end(plumb_buf *b);

/* ---- inline SVG (conformance/svg.c) ---------------------------------------- */

/* A bar chart of n bin counts (a budget-used histogram): bar heights on a
 * square-root scale so that a bin of 1 beside one of 10000 still shows;
 * labels[k] names bin k in its tooltip; bins marked in over (a bit mask)
 * are drawn in the failure colour. title is the chart's accessible name. */
void conf_svg_hist(plumb_buf *b, const uint32_t *bins, uint32_t n, const char *const *labels, uint32_t over,
                   const char *title);
/* A horizontal bar of budget used (0 exact, 1 the whole bound): filled in
 * proportion up to 1; over 1 (or not finite) a full bar in the failure
 * colour. */
void conf_svg_budget_bar(plumb_buf *b, double used);
/* A compile timeline: steps first..last of a scenario on a line, every
 * step in builds (n_builds step numbers) marked as a compile. fail draws
 * the marks in the failure colour. */
void conf_svg_timeline(plumb_buf *b, uint32_t first, uint32_t last, const uint32_t *builds, uint32_t n_builds,
                       bool fail, const char *title);

/* ---- the certification page (conformance/report_html.c) ------------------- */

/* The HTML report of a certification run (or of a report read back or
 * merged): certificate, per-op table with histograms and budget bars,
 * cache scenarios with compile timelines, failures grouped by op and
 * reason with their replay commands. */
void conf_report_html(plumb_buf *b, const struct conf_run *run);

#endif
