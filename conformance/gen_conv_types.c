/* The convolution family on the types added by issue 20 (docs/spec/conv.md,
 * "Element types"; docs/conformance.md): convolution and dynamic_conv on
 * complex<f32>/complex<f64>, every FP8/FP6/FP4 format (E8M0 included) and
 * i2/i4/ui2/ui4, after every other family, the same in both suites.
 *
 *   complex      shapes odd (NHWC 3x3, padding 1) and dilated (1-D, lhs and
 *                rhs dilation, padding, reversal) for convolution, same and
 *                crop (negative padding) for dynamic_conv; values
 *                  normal   components from N(0, 1);
 *                  wide     random sign, magnitude 2^e, e uniform in
 *                           [-30, 30]: each sum is dominated by a few terms
 *                           and the others vanish below its rounding;
 *                judged per component by the complex dot bound (check.c's
 *                check_csum, with K = input features x window elements).
 *   FP8/FP6/FP4  shape odd (same), values
 *                  finite   random finite patterns of magnitude at most 4
 *                           (subnormals and both zeros included);
 *                  specials the same with every special pattern of the
 *                           format placed in both operands: NaN, +-inf where
 *                           the format has them, -0 where it has one, the
 *                           smallest subnormal and the largest finite value
 *                           (whose products overflow the sums);
 *                judged by the dot bound in the format's unit roundoff.
 *   i2/i4/ui2/ui4 shape odd (same), value every (random patterns, all
 *                values), judged exactly (sums wrap modulo 2^bits). */
#include <math.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "conv_types.h"
#include "plumb/complex.h"
#include "plumb/fp8.h"

static const char *const V_CPLX[] = {"normal", "wide"};
static const char *const V_SMALL[] = {"finite", "specials"};
static const char *const V_SUBINT[] = {"every"};
static const char *const S_CONV_CPLX[] = {"odd", "dilated"}, *const S_CONV_LOWP[] = {"odd"};
static const char *const S_DYN_CPLX[] = {"same", "crop"}, *const S_DYN_LOWP[] = {"same"};

#define LEN(a) ((uint32_t)(sizeof(a) / sizeof((a)[0])))

static bool is_conv(plumb_opcode op) { return op == PLUMB_OP_CONVOLUTION || op == PLUMB_OP_DYNAMIC_CONV; }

const char *const *conf_conv_types_values(plumb_dtype t, uint32_t *n)
{
    if (plumb_dtype_is_complex(t)) { *n = LEN(V_CPLX); return V_CPLX; }
    if (plumb_fpfmt_get(t)) { *n = LEN(V_SMALL); return V_SMALL; }
    if (plumb_dtype_is_subbyte_int(t)) { *n = LEN(V_SUBINT); return V_SUBINT; }
    *n = 0;
    return NULL;
}

const char *const *conf_conv_types_shapes(plumb_opcode op, plumb_dtype t, uint32_t *n)
{
    bool c = plumb_dtype_is_complex(t);
    if (!is_conv(op) || (!c && !plumb_dtype_is_lowp(t))) { *n = 0; return NULL; }
    if (op == PLUMB_OP_CONVOLUTION) {
        *n = c ? LEN(S_CONV_CPLX) : LEN(S_CONV_LOWP);
        return c ? S_CONV_CPLX : S_CONV_LOWP;
    }
    *n = c ? LEN(S_DYN_CPLX) : LEN(S_DYN_LOWP);
    return c ? S_DYN_CPLX : S_DYN_LOWP;
}

uint32_t conf_conv_types_cases(plumb_opcode op)
{
    uint32_t total = 0;
    for (int ti = 0; is_conv(op) && ti < PLUMB_DTYPE_COUNT; ti++) {
        uint32_t ns, nv;
        conf_conv_types_shapes(op, (plumb_dtype)ti, &ns);
        conf_conv_types_values((plumb_dtype)ti, &nv);
        total += ns * nv;
    }
    return total;
}

/* A random finite pattern of f with magnitude at most 4. */
static uint32_t small_finite(const plumb_fpfmt *f, gsl_rng *rng)
{
    for (;;) {
        uint32_t b = (uint32_t)gsl_rng_uniform_int(rng, 1ul << f->bits);
        double v = plumb_small_to_f64(f, b);
        if (isfinite(v) && fabs(v) <= 4.0) return b;
    }
}

/* The format's special patterns (see the header comment) into sp; their count. */
static uint32_t small_specials(const plumb_fpfmt *f, uint32_t *sp)
{
    uint32_t n = 0, top = 1u << f->bits;
    bool have_nan = false, have_pinf = false, have_ninf = false, have_nzero = false;
    double maxv = plumb_small_max(f);
    for (uint32_t b = 0; b < top; b++) {
        double v = plumb_small_to_f64(f, b);
        if (plumb_small_is_nan(f, b) && !have_nan) { sp[n++] = b; have_nan = true; }
        else if (isinf(v) && v > 0 && !have_pinf) { sp[n++] = b; have_pinf = true; }
        else if (isinf(v) && v < 0 && !have_ninf) { sp[n++] = b; have_ninf = true; }
        else if (v == 0 && signbit(v) && !have_nzero) { sp[n++] = b; have_nzero = true; }
    }
    /* the smallest positive value (a subnormal, or E8M0's 2^-127) and the largest finite */
    double least = INFINITY;
    uint32_t lb = 0, mb = 0;
    for (uint32_t b = 0; b < top; b++) {
        double v = plumb_small_to_f64(f, b);
        if (v > 0 && v < least) { least = v; lb = b; }
        if (v == maxv) mb = b;
    }
    sp[n++] = lb;
    sp[n++] = mb;
    return n;
}

bool conf_conv_types_fill(const char *vc, plumb_tensor *x, gsl_rng *rng)
{
    plumb_dtype t = x->dtype;
    uint64_t n = plumb_tensor_numel(x);
    if (plumb_dtype_is_complex(t)) {
        bool wide = !strcmp(vc, "wide");
        if (!wide && strcmp(vc, "normal")) return false;
        for (uint64_t i = 0; i < n; i++) {
            double c[2];
            for (int j = 0; j < 2; j++) {
                if (wide) {
                    double m = ldexp(1.0 + gsl_rng_uniform(rng), (int)gsl_rng_uniform_int(rng, 61) - 30);
                    c[j] = gsl_rng_uniform(rng) < 0.5 ? -m : m;
                } else {
                    c[j] = gsl_ran_gaussian(rng, 1.0);
                }
            }
            plumb_complex_store(t, x->data, (size_t)i, c[0], c[1]);
        }
        return true;
    }
    const plumb_fpfmt *f = plumb_fpfmt_get(t);
    if (f) {
        bool specials = !strcmp(vc, "specials");
        if (!specials && strcmp(vc, "finite")) return false;
        for (uint64_t i = 0; i < n; i++) plumb_store_bits(t, x->data, (size_t)i, small_finite(f, rng));
        if (specials && n) {
            uint32_t sp[8], ns = small_specials(f, sp);
            /* each special at a few random positions, so that it meets
             * ordinary values and the other specials in some sums */
            for (uint32_t k = 0; k < ns; k++)
                for (int r = 0; r < 2; r++)
                    plumb_store_bits(t, x->data, (size_t)gsl_rng_uniform_int(rng, (unsigned long)n), sp[k]);
        }
        return true;
    }
    if (plumb_dtype_is_subbyte_int(t)) {
        if (strcmp(vc, "every")) return false;
        for (uint64_t i = 0; i < n; i++)
            plumb_store_bits(t, x->data, (size_t)i, gsl_rng_uniform_int(rng, 1ul << plumb_dtype_get(t)->bits));
        return true;
    }
    return false;
}
