/* convert between complex<f32> and complex<f64> (docs/spec/complex.md;
 * docs/spec/types.md, "Conversions"): each component converted on its own,
 * widening exactly and narrowing rounded once to nearest even, with the
 * component type's overflow, underflow, -0 and NaN rules. The plan's convert
 * cases pair real types only; this family, after every other one (no older
 * case's ordinal moves), gives each direction two cases of shape "odd":
 *   special   every pair (re, im) of the component type's special values
 *             (conf_float_specials: zeros, infinities, NaNs, subnormal and
 *             normal extremes), so each component meets each special while
 *             the other holds another;
 *   midpoint  complex<f64> -> complex<f32>: components at, just below and
 *             just above f32 rounding midpoints (normal, subnormal and at
 *             the overflow threshold max + ulp/2), a tie to even, values
 *             that round to 0 or to the least subnormal, each component
 *             drawn independently so a backend that rounds one of them
 *             otherwise is seen on most elements; complex<f32> ->
 *             complex<f64>: random f32 patterns per component (every
 *             binade, subnormals and NaN payloads), widened exactly.
 * Judged bitwise like every convert (exact class). */
#include <math.h>
#include <string.h>

#include "gen_family.h"

uint32_t conf_cconvert_cases(plumb_opcode op) { return op == PLUMB_OP_CONVERT ? 4 : 0; }

/* An f64 near an f32 rounding decision: kind 0 the midpoint of two
 * neighbouring f32 values, 1 one f64 ulp below it, 2 one above, 3 an f32
 * value itself; the f32 value drawn from every binade (subnormals and the
 * top one included, where the midpoint above the largest is the overflow
 * threshold), random sign. */
static double near_midpoint(gen *g)
{
    uint32_t b = (uint32_t)conf_gen_random_bits(g, 31);
    if ((b >> 23) == 0xFF) b = 0x7F7FFFFFu;   /* an inf/NaN pattern: the largest finite */
    float lo;
    memcpy(&lo, &b, sizeof lo);
    double mid = ((double)lo + (double)nextafterf(lo, INFINITY)) / 2;
    if (isinf(nextafterf(lo, INFINITY))) mid = (double)lo + ldexp(1.0, 127 - 24);   /* max + ulp/2 */
    double v;
    switch (conf_gen_random_bits(g, 2)) {
    case 0: v = mid; break;
    case 1: v = nextafter(mid, 0); break;
    case 2: v = nextafter(mid, INFINITY); break;
    default: v = lo; break;
    }
    return conf_gen_random_bits(g, 1) ? -v : v;
}

static bool cconvert_case(gen *g)
{
    plumb_dtype src = g->t, dst = g->target, sc = plumb_dtype_component(src);
    bool special = !strcmp(g->value, "special");
    uint64_t sp[32];
    uint32_t ns = conf_float_specials(sc, sp);
    int64_t n = special ? (int64_t)ns * ns : 61;
    plumb_tensor *x = conf_gen_param(g, "x", src, 1, &n, NULL, 0, 0);
    if (x) {
        for (int64_t i = 0; i < n; i++) {
            uint64_t re, im;
            if (special) {
                re = sp[i / ns];
                im = sp[i % ns];
            } else if (sc == PLUMB_F64) {
                re = plumb_f64_bits(near_midpoint(g));
                im = plumb_f64_bits(near_midpoint(g));
                /* fixed elements: a value that rounds to 0, one that rounds
                 * to the least subnormal (above half of it), an exact tie
                 * to even of two normal f32 values */
                if (i == 0) re = plumb_f64_bits(0x1p-151);
                if (i == 1) im = plumb_f64_bits(-0x1.0000000000001p-150);
                if (i == 2) re = plumb_f64_bits(1.0 + 0x1p-24);
            } else {
                re = conf_gen_random_bits(g, 32);
                im = conf_gen_random_bits(g, 32);
            }
            plumb_store_bits(sc, x->data, (size_t)(2 * i), re);
            plumb_store_bits(sc, x->data, (size_t)(2 * i + 1), im);
        }
    }
    const char *X = conf_gen_tys(g, src, 1, &n), *Y = conf_gen_tys(g, dst, 1, &n);
    plumb_buf_printf(&g->body, "  %%r = stablehlo.convert %%x : (%s) -> %s\n", X, Y);
    g->ret_types = Y;
    return conf_gen_push_case(g, "%r");
}

bool conf_gen_cconvert(gen *g)
{
    if (g->op != PLUMB_OP_CONVERT) return true;
    static const plumb_dtype dir[2][2] = {{PLUMB_C64, PLUMB_C128}, {PLUMB_C128, PLUMB_C64}};
    static const char *const vcs[2] = {"special", "midpoint"};
    bool ok = true;
    for (int d = 0; ok && d < 2; d++)
        for (int v = 0; ok && v < 2; v++) ok = conf_gen_depth_case(g, dir[d][0], dir[d][1], vcs[v], cconvert_case);
    return ok;
}
