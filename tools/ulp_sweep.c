/* ulp_sweep: compares the runtime's f32 vector math with the reference's
 * correctly rounded value over all (or a range of) 2^32 f32 inputs.
 *
 *   ulp_sweep --op NAME [--isa portable|avx2|avx512] [--start HEX --end HEX]
 *             [--threads N]
 *
 * NAME is an op name (exponential, tanh, chlo.erf, power, ...). --start and
 * --end are inclusive f32 bit patterns (default 0 .. FFFFFFFF). For the
 * binary ops (power, atan2) the swept value is the first operand and the
 * second is drawn, per input, from a fixed pseudo-random stream near the
 * interesting range (see other_operand), so a run is reproducible.
 *
 * Prints the worst distance in ULPs from the correctly rounded result and
 * where it occurred, a histogram, how many inputs exceed the op table's
 * bound, and special-value mismatches: a NaN, infinity or zero expected
 * where something else came (or the reverse), and NaNs whose bits differ.
 * Exits 1 when anything is over the bound or a special value mismatches. */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plumb/checkcmp.h"
#include "plumb/ops.h"
#include "../ref/crmath.h"
#include "../runtime/rt_internal.h"

#define BATCH 4096u
#define HIST 5   /* distances 0, 1, 2, 3, >= 4 */

typedef struct stats {
    uint64_t count, over, special, nan_bits;
    uint64_t hist[HIST];
    uint64_t worst;
    uint32_t worst_x, worst_y, worst_got, worst_want;
    uint32_t first_special_x, first_special_got, first_special_want;
    bool have_special;
} stats;

typedef struct job {
    plumb_opcode op;
    bool binary;
    cr_unary_fn uf;
    cr_binary_fn bf;
    rt_vmath_f32_fn f1;
    rt_vmath2_f32_fn f2;
    uint32_t bound;
    uint64_t start, end;          /* inclusive */
    atomic_uint_fast64_t next;    /* next batch start */
    pthread_mutex_t mu;
    stats total;
} job;

static uint64_t mix(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The second operand for input x. power: exponents of magnitude 2^-8 to
 * 2^7 with random sign (1 in 8: a small integer, to reach the odd/even
 * rules), so |y log x| spans the range where results are neither 1 nor
 * overflowed; atan2: within 2^+-12 of x's magnitude, random sign. */
static uint32_t other_operand(plumb_opcode op, uint32_t x)
{
    uint64_t h = mix(x);
    uint32_t sign = (uint32_t)(h >> 63) << 31;
    uint32_t mant = (uint32_t)h & 0x7FFFFF;
    if (op == PLUMB_OP_POWER) {
        if ((h >> 40 & 7) == 0) {
            float v = (float)((int)(h >> 44 & 31) - 15);
            uint32_t b;
            memcpy(&b, &v, 4);
            return b;
        }
        uint32_t e = 127 - 8 + (uint32_t)(h >> 32 & 15);
        return sign | e << 23 | mant;
    }
    int32_t ex = (int32_t)(x >> 23 & 0xFF) + (int32_t)(h >> 32 & 31) - 12;
    if (ex < 0)
        ex = 0;
    if (ex > 254)
        ex = 254;
    return sign | (uint32_t)ex << 23 | mant;
}

static bool is_special(uint32_t b)
{
    uint32_t m = b & 0x7FFFFFFF;
    return m == 0 || m >= 0x7F800000;
}

static void compare(job *j, stats *s, uint32_t x, uint32_t y, uint32_t got, uint32_t want)
{
    s->count++;
    bool gn = plumb_float_is_nan(PLUMB_F32, got), wn = plumb_float_is_nan(PLUMB_F32, want);
    if (gn || wn || is_special(want) || is_special(got)) {
        bool ok = (gn && wn) || got == want;
        if (gn && wn && got != want)
            s->nan_bits++;
        if (!ok) {
            if (!s->have_special) {
                s->have_special = true;
                s->first_special_x = x;
                s->first_special_got = got;
                s->first_special_want = want;
            }
            s->special++;
            return;
        }
        if (gn || wn) {
            s->hist[0]++;
            return;
        }
    }
    uint64_t d = plumb_ulp_distance(PLUMB_F32, got, want);
    s->hist[d < HIST ? d : HIST - 1]++;
    if (d > j->bound)
        s->over++;
    if (d > s->worst || (s->count == 1)) {
        if (d > s->worst || s->worst == 0) {
            s->worst = d;
            s->worst_x = x;
            s->worst_y = y;
            s->worst_got = got;
            s->worst_want = want;
        }
    }
}

static void *run(void *arg)
{
    job *j = arg;
    stats s;
    memset(&s, 0, sizeof s);
    uint32_t xs[BATCH], ys[BATCH];
    float xf[BATCH], yf[BATCH], out[BATCH];
    for (;;) {
        uint64_t b = atomic_fetch_add(&j->next, BATCH);
        if (b > j->end)
            break;
        uint64_t e = b + BATCH - 1 < j->end ? b + BATCH - 1 : j->end;
        size_t n = (size_t)(e - b + 1);
        for (size_t i = 0; i < n; i++) {
            xs[i] = (uint32_t)(b + i);
            memcpy(&xf[i], &xs[i], 4);
            if (j->binary) {
                ys[i] = other_operand(j->op, xs[i]);
                memcpy(&yf[i], &ys[i], 4);
            }
        }
        if (j->binary)
            j->f2(xf, yf, out, n);
        else
            j->f1(xf, out, n);
        for (size_t i = 0; i < n; i++) {
            uint32_t got;
            memcpy(&got, &out[i], 4);
            uint32_t want = j->binary ? (uint32_t)cr_binary(j->bf, PLUMB_F32, xs[i], ys[i])
                                      : (uint32_t)cr_unary(j->uf, PLUMB_F32, xs[i]);
            compare(j, &s, xs[i], j->binary ? ys[i] : 0, got, want);
        }
    }
    pthread_mutex_lock(&j->mu);
    stats *t = &j->total;
    t->count += s.count;
    t->over += s.over;
    t->nan_bits += s.nan_bits;
    for (int i = 0; i < HIST; i++)
        t->hist[i] += s.hist[i];
    if (s.special && (!t->have_special || s.first_special_x < t->first_special_x)) {
        t->have_special = true;
        t->first_special_x = s.first_special_x;
        t->first_special_got = s.first_special_got;
        t->first_special_want = s.first_special_want;
    }
    t->special += s.special;
    if (s.worst > t->worst || (s.worst == t->worst && s.worst_x < t->worst_x && s.worst)) {
        t->worst = s.worst;
        t->worst_x = s.worst_x;
        t->worst_y = s.worst_y;
        t->worst_got = s.worst_got;
        t->worst_want = s.worst_want;
    }
    pthread_mutex_unlock(&j->mu);
    return NULL;
}

static bool map_op(plumb_opcode op, job *j)
{
    static const struct { plumb_opcode op; int fn; bool bin; } tab[] = {
        {PLUMB_OP_EXPONENTIAL, CR_EXP, false}, {PLUMB_OP_EXPONENTIAL_MINUS_ONE, CR_EXPM1, false},
        {PLUMB_OP_LOG, CR_LOG, false}, {PLUMB_OP_LOG_PLUS_ONE, CR_LOG1P, false},
        {PLUMB_OP_LOGISTIC, CR_LOGISTIC, false}, {PLUMB_OP_TANH, CR_TANH, false},
        {PLUMB_OP_SINE, CR_SIN, false}, {PLUMB_OP_COSINE, CR_COS, false}, {PLUMB_OP_TAN, CR_TAN, false},
        {PLUMB_OP_ERF, CR_ERF, false}, {PLUMB_OP_ERFC, CR_ERFC, false}, {PLUMB_OP_RSQRT, CR_RSQRT, false}, {PLUMB_OP_CBRT, CR_CBRT, false},
        {PLUMB_OP_POWER, CR_POW, true}, {PLUMB_OP_ATAN2, CR_ATAN2, true},
    };
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
        if (tab[i].op == op) {
            j->binary = tab[i].bin;
            if (j->binary)
                j->bf = (cr_binary_fn)tab[i].fn;
            else
                j->uf = (cr_unary_fn)tab[i].fn;
            return true;
        }
    return false;
}

static void usage(void)
{
    fprintf(stderr, "usage: ulp_sweep --op NAME [--isa portable|avx2|avx512] [--start HEX --end HEX] [--threads N]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    const char *name = NULL, *isa_s = NULL;
    uint64_t start = 0, end = 0xFFFFFFFFull;
    unsigned threads = 1;
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc)
            usage();
        char *endp = NULL;
        if (strcmp(argv[i], "--op") == 0)
            name = argv[++i];
        else if (strcmp(argv[i], "--isa") == 0)
            isa_s = argv[++i];
        else if (strcmp(argv[i], "--start") == 0)
            start = strtoull(argv[++i], &endp, 16);
        else if (strcmp(argv[i], "--end") == 0)
            end = strtoull(argv[++i], &endp, 16);
        else if (strcmp(argv[i], "--threads") == 0)
            threads = (unsigned)strtoul(argv[++i], &endp, 10);
        else
            usage();
        if (endp && (*endp || endp == argv[i])) {
            fprintf(stderr, "ulp_sweep: bad number '%s'\n", argv[i]);
            return 2;
        }
    }
    if (!name || start > end || end > 0xFFFFFFFFull || threads < 1 || threads > 256)
        usage();
    plumb_opcode op;
    if (!plumb_op_lookup(name, strlen(name), &op)) {
        fprintf(stderr, "ulp_sweep: unknown op '%s'\n", name);
        return 2;
    }
    op = plumb_op_semantic(op);   /* chlo.tan runs stablehlo.tan's vector function */
    static job j;
    memset(&j, 0, sizeof j);
    j.op = op;
    if (!map_op(op, &j)) {
        fprintf(stderr, "ulp_sweep: %s has no vector math function\n", plumb_op_name(op));
        return 2;
    }
    plumb_isa best = rt_cpu_best_isa(), isa = best;
    if (isa_s) {
        if (strcmp(isa_s, "portable") == 0)
            isa = PLUMB_ISA_PORTABLE;
        else if (strcmp(isa_s, "avx2") == 0)
            isa = PLUMB_ISA_AVX2;
        else if (strcmp(isa_s, "avx512") == 0)
            isa = PLUMB_ISA_AVX512;
        else
            usage();
        if (isa > best) {
            fprintf(stderr, "ulp_sweep: this CPU does not support %s\n", isa_s);
            return 2;
        }
    }
    j.f1 = rt_vmath_f32(op, isa);
    j.f2 = rt_vmath2_f32(op, isa);
    j.bound = plumb_op_ulp_bound(op, PLUMB_F32);
    j.start = start;
    j.end = end;
    atomic_init(&j.next, start);
    pthread_mutex_init(&j.mu, NULL);
    pthread_t tid[256];
    for (unsigned t = 1; t < threads; t++)
        if (pthread_create(&tid[t], NULL, run, &j) != 0) {
            fprintf(stderr, "ulp_sweep: cannot start thread %u\n", t);
            return 2;
        }
    run(&j);
    for (unsigned t = 1; t < threads; t++)
        pthread_join(tid[t], NULL);
    stats *s = &j.total;
    printf("op %s  isa %s  inputs %08" PRIX64 "..%08" PRIX64 " (%" PRIu64 ")  bound %u ulp\n",
           plumb_op_name(op), rt_isa_name(isa), start, end, s->count, j.bound);
    printf("worst %" PRIu64 " ulp", s->worst);
    if (s->worst)
        printf(" at x=0x%08" PRIX32 "%s got 0x%08" PRIX32 " want 0x%08" PRIX32, s->worst_x, "", s->worst_got,
               s->worst_want);
    if (s->worst && j.binary)
        printf(" (second operand 0x%08" PRIX32 ")", s->worst_y);
    printf("\nhistogram: 0 ulp %" PRIu64 ", 1 ulp %" PRIu64 ", 2 ulp %" PRIu64 ", 3 ulp %" PRIu64
           ", >=4 ulp %" PRIu64 "\n", s->hist[0], s->hist[1], s->hist[2], s->hist[3], s->hist[4]);
    printf("over bound %" PRIu64 "  special-value mismatches %" PRIu64 "  NaNs with other bits %" PRIu64 "\n",
           s->over, s->special, s->nan_bits);
    if (s->special)
        printf("first special mismatch: x=0x%08" PRIX32 " got 0x%08" PRIX32 " want 0x%08" PRIX32 "\n",
               s->first_special_x, s->first_special_got, s->first_special_want);
    return s->over || s->special ? 1 : 0;
}
