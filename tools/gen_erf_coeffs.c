/* gen_erf_coeffs: fits the f32 coefficients of runtime/math_erf.h's pieces,
 * measures each piece's error over every f32 operand in it, and sweeps the
 * runtime's own lane form.
 *
 *   gen_erf_coeffs table S DEG QMAX    the table math_erf.h holds (S = 4,
 *                                      DEG = 5, QMAX = 1): pieces
 *                                      k = floor(S a) of width 1/S over
 *                                      [0, 4), each a polynomial of degree
 *                                      DEG in u = S a - k, the Q form below
 *                                      QMAX, else E; prints each piece's
 *                                      sweep and the rows (E negated)
 *   gen_erf_coeffs s S K DEG QMAX      one such piece K
 *   gen_erf_coeffs sweep               rt_erf_f32_lane (math_erf.h, the
 *                                      portable level, whose bits every
 *                                      level has) on every f32 from 2^-126
 *                                      to +inf: the proof of the bound
 *   gen_erf_coeffs q LO HI ZMID DEG    (the old table's forms) Q piece:
 *                                      erf a = fma(a, Q(a^2 - ZMID), a)
 *                                      on a in [LO, HI), Q of degree DEG
 *   gen_erf_coeffs e LO HI MID DEG     E piece: erf a = 1 - E(a - MID) on
 *                                      a in [LO, HI), E of degree DEG
 *
 * GEN_ERF_STEP=N measures every Nth operand of a piece only (exploring).
 *
 * Built by make as $(BUILD)/tools/gen_erf_coeffs, never run by it (a
 * developer tool; a full piece's sweep takes seconds to a minute).
 *
 * Method: weighted least squares on 600 Chebyshev nodes in long double
 * against glibc's erfl/erfcl (Q: the weight a/erf(a), so the fit minimizes
 * the result's relative error; E: absolute error, the result lying in
 * [0.5, 1) where one ULP is 2^-24), by modified Gram-Schmidt on the
 * weighted Vandermonde matrix. The coefficients are then fixed to f32 one
 * at a time from the constant term up, the rest refitted each time. The
 * piece is then run in f32 arithmetic exactly as rt_erf_f32_lane runs it
 * (fmaf per Horner step, u or a - MID exact) on every f32 in the interval,
 * and the worst error is printed in ULPs of the exact value (erfl, 64-bit
 * significand: its own error is far below what this resolves) together
 * with how many results differ from the correctly rounded one by more
 * than one ULP (which must be zero). The printed coefficients are the
 * table's entries, constant term first. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../runtime/math_erf.h"

#define NODES 600
#define MAXD 16

typedef struct piece {
    int q;              /* 1: Q form, 0: E form */
    long double lo, hi; /* interval of a */
    long double mid;    /* E: the offset */
    int deg;
    int scaled;         /* 1: the variable is v = S a - K in [0, 1) (modes s, table) */
    int k;              /* scaled: the piece index K, a in [K/S, (K+1)/S) */
    float s;            /* scaled: S, a power of 2 */
} piece;

static long double target(const piece *p, long double a, long double *w)
{
    if (p->q) {
        *w = a / erfl(a);
        return a == 0 ? 2 / sqrtl(acosl(-1)) - 1 : erfl(a) / a - 1;
    }
    *w = 1;
    return erfcl(a);
}

/* least squares of sum_{j >= from} c_j v^j to (t - sum_{j < from} c_j v^j)
 * on the nodes, weighted: fills c[from..deg] */
static void fit(const piece *p, long double *c, int from)
{
    static long double A[NODES][MAXD], b[NODES];
    int m = p->deg + 1 - from;
    for (int k = 0; k < NODES; k++) {
        long double u = cosl(acosl(-1) * (k + 0.5L) / NODES);   /* Chebyshev node in (-1, 1) */
        long double a = (p->lo + p->hi) / 2 + u * (p->hi - p->lo) / 2, w;
        long double t = target(p, a, &w);
        long double v = p->scaled ? a * p->s - p->k : p->q ? a * a - p->mid : a - p->mid;
        long double vj = 1;
        for (int j = 0; j <= p->deg; j++) {
            if (j < from)
                t -= c[j] * vj;
            else
                A[k][j - from] = w * vj;
            vj *= v;
        }
        b[k] = w * t;
    }
    /* modified Gram-Schmidt QR, then back substitution */
    static long double R[MAXD][MAXD];
    memset(R, 0, sizeof R);
    for (int j = 0; j < m; j++) {
        for (int i = 0; i < j; i++) {
            long double d = 0;
            for (int k = 0; k < NODES; k++)
                d += A[k][i] * A[k][j];
            R[i][j] = d;
            for (int k = 0; k < NODES; k++)
                A[k][j] -= d * A[k][i];
        }
        long double nn = 0;
        for (int k = 0; k < NODES; k++)
            nn += A[k][j] * A[k][j];
        nn = sqrtl(nn);
        R[j][j] = nn;
        for (int k = 0; k < NODES; k++)
            A[k][j] /= nn;
    }
    long double y[MAXD];
    for (int j = 0; j < m; j++) {
        long double d = 0;
        for (int k = 0; k < NODES; k++)
            d += A[k][j] * b[k];
        y[j] = d;
    }
    for (int j = m - 1; j >= 0; j--) {
        long double s = y[j];
        for (int i = j + 1; i < m; i++)
            s -= R[j][i] * c[from + i];
        c[from + j] = s / R[j][j];
    }
}

static float eval(const piece *p, const float *c, float a)
{
    float v;
    if (p->scaled) {
        /* as math_erf.h: t = S a and t - floor(t) exact */
        float t = a * p->s;
        v = t - floorf(t);
    } else {
        v = p->q ? a * a - (float)p->mid : a - (float)p->mid;
    }
    float e = c[p->deg];
    for (int j = p->deg - 1; j >= 0; j--)
        e = fmaf(e, v, c[j]);
    return p->q ? fmaf(a, e, a) : 1.0f - e;
}

static uint32_t fbits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static float bf(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* worst error in ULPs of the exact value, and the count more than 1 ULP
 * from the correctly rounded value, over every f32 a in [lo, hi) */
static double measure(const piece *p, const float *c, float *worst_at, long *over)
{
    double worst = 0;
    *over = 0;
    float a = p->lo == 0 ? 0x1p-126f : (float)p->lo;
    /* GEN_ERF_STEP=N: every Nth operand only (a quick look while exploring;
     * the proof is the default, every operand) */
    const char *st = getenv("GEN_ERF_STEP");
    uint32_t step = st && atoi(st) > 1 ? (uint32_t)atoi(st) : 1;
    for (; a < (float)p->hi; a = bf(fbits(a) + step)) {
        float r = eval(p, c, a);
        long double y = erfl(a);
        int ex;
        frexpl(y, &ex);
        long double ulp = ldexpl(1, ex - 24);
        double e = (double)(fabsl((long double)r - y) / ulp);
        if (e > worst) {
            worst = e;
            *worst_at = a;
        }
        float cr = (float)y;
        long d = (long)fbits(r) - (long)fbits(cr);
        if (d > 1 || d < -1)
            (*over)++;
    }
    return worst;
}

/* fits p's coefficients into cf[0..deg]: least squares, then fixed to
 * f32 one at a time from the constant term up with the rest refitted */
static void fit_f32(const piece *p, float *cf)
{
    long double c[MAXD];
    fit(p, c, 0);
    for (int j = 0; j <= p->deg; j++) {
        cf[j] = (float)c[j];
        c[j] = cf[j];
        if (j < p->deg)
            fit(p, c, j + 1);
    }
}

/* piece K of scale S: a in [K/S, (K+1)/S), the Q form below QMAX */
static void scaled_piece(piece *p, float sc, int k, int deg, long double qmax)
{
    memset(p, 0, sizeof *p);
    p->scaled = 1;
    p->s = sc;
    p->k = k;
    p->lo = (long double)k / sc;
    p->hi = (long double)(k + 1) / sc;
    p->q = p->hi <= qmax;
    p->deg = deg;
}

/* Sweep of runtime/math_erf.h's rt_erf_f32_lane itself: every f32 a from
 * 2^-126 to +inf (erf is odd and the lane form works on |x| and puts the
 * sign back, so the negative half is the mirror image), against erfl:
 * the worst error in ULPs of the exact value per piece of 1/4 and
 * overall, and how many results are more than 1 ULP from the correctly
 * rounded value (must be none) or flagged. */
static int sweep_lane(void)
{
    double worst[17] = {0};
    float at[17] = {0};
    long over = 0, flagged = 0, n = 0;
    for (uint32_t b = 0x00800000u; b <= 0x7F800000u; b++) {
        float a;
        memcpy(&a, &b, 4);
        int bad;
        float r = rt_erf_f32_lane(a, &bad);
        n++;
        if (bad) {
            flagged++;
            continue;
        }
        long double y = erfl(a);
        int ex;
        frexpl(y, &ex);
        long double ulp = ldexpl(1, ex - 24);
        double e = (double)(fabsl((long double)r - y) / ulp);
        int k = a < 4 ? (int)(a * 4) : 16;
        if (e > worst[k]) {
            worst[k] = e;
            at[k] = a;
        }
        float cr = (float)y;
        long d = (long)fbits(r) - (long)fbits(cr);
        if (d > 1 || d < -1)
            over++;
    }
    double w = 0;
    float wa = 0;
    for (int k = 0; k <= 16; k++) {
        printf("a in [%g, %g): worst %.4f ULP at %a\n", k / 4.0, k < 16 ? (k + 1) / 4.0 : INFINITY, worst[k],
               (double)at[k]);
        if (worst[k] > w) {
            w = worst[k];
            wa = at[k];
        }
    }
    printf("rt_erf_f32_lane on %ld operands [2^-126, inf]: worst %.4f ULP of the exact value at %a, %ld over 1 ULP "
           "from CR, %ld flagged\n",
           n, w, (double)wa, over, flagged);
    return over || flagged ? 1 : 0;
}

int main(int argc, char **argv)
{
    piece p;
    memset(&p, 0, sizeof p);
    if (argc == 2 && !strcmp(argv[1], "sweep"))
        return sweep_lane();
    if (argc == 5 && !strcmp(argv[1], "table")) {
        /* every piece of scale S over [0, 4) at degree DEG, Q form below
         * QMAX: the rows of math_erf.h's table (coefficient j of every
         * piece; the E pieces' negated, the runtime evaluating -E and
         * then fma(-E, 1, 1) = RN(1 - E)) */
        float sc = strtof(argv[2], NULL);
        int deg = atoi(argv[3]);
        long double qmax = strtold(argv[4], NULL);
        int np = (int)(4 * sc);
        if (!(sc >= 1 && sc <= 8 && (sc == 1 || sc == 2 || sc == 4 || sc == 8)) || deg < 1 || deg >= MAXD) {
            fprintf(stderr, "gen_erf_coeffs: S in 1, 2, 4, 8 and DEG in 1..%d\n", MAXD - 1);
            return 2;
        }
        static float tab[32][MAXD];
        int bad = 0, nq = 0;
        for (int k = 0; k < np; k++) {
            scaled_piece(&p, sc, k, deg, qmax);
            nq += p.q;
            fit_f32(&p, tab[k]);
            float at = 0;
            long over;
            double w = measure(&p, tab[k], &at, &over);
            printf("/* piece %d [%Lg, %Lg) %s: worst %.3f ULP at %a, %ld over */\n", k, p.lo, p.hi, p.q ? "Q" : "E",
                   w, (double)at, over);
            bad |= over != 0;
        }
        for (int j = 0; j <= deg; j++) {
            printf("{");
            for (int k = 0; k < np; k++)
                printf("%a%s%s", (double)(k < nq ? tab[k][j] : -tab[k][j]), k + 1 < np ? "," : "", k % 4 == 3 && k + 1 < np ? "\n " : " ");
            printf("},\n");
        }
        return bad;
    }
    if (argc == 6 && !strcmp(argv[1], "s")) {
        float sc = strtof(argv[2], NULL);
        scaled_piece(&p, sc, atoi(argv[3]), atoi(argv[4]), strtold(argv[5], NULL));
        if (!(sc == 1 || sc == 2 || sc == 4 || sc == 8) || p.k < 0 || p.k >= 4 * sc) {
            fprintf(stderr, "gen_erf_coeffs: S in 1, 2, 4, 8 and K in 0..4S-1\n");
            return 2;
        }
    } else if (argc == 6 && !strcmp(argv[1], "q")) {        p.q = 1;
        p.lo = strtold(argv[2], NULL);
        p.hi = strtold(argv[3], NULL);
        p.mid = strtold(argv[4], NULL);
        p.deg = atoi(argv[5]);
        /* a^2 - ZMID exact: ZMID zero, or ZMID/2 <= a^2 <= 2 ZMID for the rounded a^2 */
        if ((float)p.mid != p.mid || (p.mid != 0 && ((float)(p.lo * p.lo) < p.mid / 2 || (float)(p.hi * p.hi) > 2 * p.mid))) {
            fprintf(stderr, "gen_erf_coeffs: ZMID must be 0 or an f32 with ZMID/2 <= LO^2, HI^2 <= 2 ZMID\n");
            return 2;
        }
    } else if (argc == 6 && !strcmp(argv[1], "e")) {
        p.lo = strtold(argv[2], NULL);
        p.hi = strtold(argv[3], NULL);
        p.mid = strtold(argv[4], NULL);
        p.deg = atoi(argv[5]);
        if ((float)p.mid != p.mid || p.lo < p.mid / 2 || p.hi > 2 * p.mid) {
            fprintf(stderr, "gen_erf_coeffs: MID must be an f32 with MID/2 <= LO, HI <= 2 MID (a - MID exact)\n");
            return 2;
        }
    } else {
        fprintf(stderr, "usage: gen_erf_coeffs table S DEG QMAX | s S K DEG QMAX | sweep | q LO HI ZMID DEG | "
                        "e LO HI MID DEG\n");
        return 2;
    }
    if (p.deg < 1 || p.deg >= MAXD || !(p.hi > p.lo)) {
        fprintf(stderr, "gen_erf_coeffs: DEG in 1..%d and LO < HI\n", MAXD - 1);
        return 2;
    }
    float cf[MAXD];
    fit_f32(&p, cf);
    float at = 0;
    long over;
    double w = measure(&p, cf, &at, &over);
    printf("%s [%Lg, %Lg) mid %Lg degree %d: worst %.3f ULP of the exact value at %a, %ld over 1 ULP from CR\n",
           p.q ? "Q" : "E", p.lo, p.hi, p.mid, p.deg, w, (double)at, over);
    for (int j = 0; j <= p.deg; j++)
        printf("%a%s", (double)cf[j], j < p.deg ? ", " : "\n");
    return over ? 1 : 0;
}
