/* Running fused groups: tile by tile or row by row (run_unit), with the
 * AVX-512 chain, segment and register loops. fusion_build.c builds the
 * step programs run here. */
#include "rt_fusion.h"
#include "rt_iota.h"

#include "plumb/fp8.h"

/* ---- execution ------------------------------------------------------------------------ */

typedef struct frun {
    rt_exec *x;
    bool stream;              /* loop groups stream results out (AVX-512 only) */
    const rt_fused *g;
    plumb_tensor *const *in;
    plumb_tensor *const *out;
    uint8_t *scratch;         /* chunks * n_slots * slot_bytes */
    atomic_bool failed;
} frun;

/* n copies of one element: the first few by hand, then doubling copies
 * (memcpy runs at store bandwidth; a per-element loop does not). */
static void fill(void *dst, const void *src, size_t es, size_t n)
{
    if (n == 0)
        return;
    if (es == 1) {
        memset(dst, *(const uint8_t *)src, n);
        return;
    }
    uint8_t *d = dst;
    size_t total = n * es, have = es;
    memcpy(d, src, es);
    while (have < 64 && have < total) {
        size_t c = have < total - have ? have : total - have;
        memcpy(d + have, d, c);
        have += c;
    }
    while (have < total) {
        size_t c = have < total - have ? have : total - have;
        memcpy(d + have, d, c);
        have += c;
    }
}

/* ---- iotas generated where read ------------------------------------------------------ */

static uint64_t iota_runs_n;

uint64_t rt_fused_iota_runs(void) { return __atomic_load_n(&iota_runs_n, __ATOMIC_RELAXED); }

uint32_t rt_fused_iotas(const rt_fused *g)
{
    uint32_t n = 0;
    for (uint32_t v = 0; g && v < g->n_vals; v++)
        n += g->vals[v].kind == FV_BCAST && g->vals[v].iota;
    return n;
}

/* The bits of index value i in element type t: the iota kernels' and the
 * reference's conversion (ref/movement.c, ref_op_IOTA): floats round the
 * exact index once to nearest even (f16/bf16 and the small formats from
 * the exact double, with their overflow rules), integers keep the low bits
 * (the store truncates to the width), i1 the lowest. */
static uint64_t iota_bits(plumb_dtype t, uint64_t i)
{
    switch (t) {
    case PLUMB_F16: return plumb_f64_to_f16((double)i);
    case PLUMB_BF16: return plumb_f64_to_bf16((double)i);
    case PLUMB_F32: return plumb_f32_bits((float)(double)i);
    case PLUMB_F64: return plumb_f64_bits((double)i);
    case PLUMB_I1: return i & 1;
    case PLUMB_I8: case PLUMB_I16: case PLUMB_I32: case PLUMB_I64:
    case PLUMB_UI8: case PLUMB_UI16: case PLUMB_UI32: case PLUMB_UI64: return i;
    default: return plumb_fpfmt_get(t) ? plumb_f64_to_small(plumb_fpfmt_get(t), (double)i) : i;
    }
}

/* n elements of iota value v at dst: all index i0 (step 0), or the
 * indices i0, i0 + 1, ... (step 1). The common types convert in a loop the
 * compiler vectorizes; below 2^31 an index is exact as an int32_t, and
 * int32 -> float rounds once, as the exact double -> float does. */
static void iota_gen(const fval *v, uint64_t i0, int64_t step, size_t n, uint8_t *dst)
{
    if (step == 0 || n == 1) {
        uint8_t e[8];
        plumb_store_bits(v->dtype, e, 0, iota_bits(v->dtype, i0));
        fill(dst, e, v->es, n);
        return;
    }
    bool small = i0 + n <= 0x7fffffffu;
    switch (v->dtype) {
    case PLUMB_I32: case PLUMB_UI32: {
        /* 8 lanes a step, a fixed-count loop the compiler vectorizes */
        uint32_t b = (uint32_t)i0, *d = (uint32_t *)(void *)dst, w[8];
        size_t k = 0;
        for (unsigned j = 0; j < 8; j++) w[j] = b + j;
        for (; k + 8 <= n; k += 8) {
            memcpy(d + k, w, sizeof w);
            for (unsigned j = 0; j < 8; j++) w[j] += 8u;
        }
        for (; k < n; k++) d[k] = b + (uint32_t)k;
        return;
    }
    case PLUMB_I64: case PLUMB_UI64: {
        uint64_t *d = (uint64_t *)(void *)dst;
        for (size_t k = 0; k < n; k++) d[k] = i0 + k;
        return;
    }
    case PLUMB_F32:
        if (small) {
            /* unsigned lanes (no overflow past the last block); every
             * value stored is below 2^31, so exact as an int32_t */
            uint32_t b = (uint32_t)i0, w[8];
            float *d = (float *)(void *)dst, f[8];
            size_t k = 0;
            for (unsigned j = 0; j < 8; j++) w[j] = b + j;
            for (; k + 8 <= n; k += 8) {
                for (unsigned j = 0; j < 8; j++) f[j] = (float)(int32_t)w[j];
                memcpy(d + k, f, sizeof f);
                for (unsigned j = 0; j < 8; j++) w[j] += 8u;
            }
            for (; k < n; k++) d[k] = (float)(int32_t)(b + (uint32_t)k);
            return;
        }
        break;
    case PLUMB_F64:
        if (small) {
            int32_t b = (int32_t)i0;
            double *d = (double *)(void *)dst;
            for (size_t k = 0; k < n; k++) d[k] = (double)(b + (int32_t)k);
            return;
        }
        break;
    default:
        break;
    }
    for (size_t k = 0; k < n; k++)
        plumb_store_bits(v->dtype, dst, k, iota_bits(v->dtype, i0 + k));
}

/* Elements [off, off + n) of a broadcast value, by index arithmetic (an
 * iota's "source" is its index sequence: src is unused, iota_gen computes
 * what would be read). */
static void materialize(const fval *v, const uint8_t *src, uint64_t off, size_t n, uint8_t *dst)
{
    size_t es = v->es;
    uint32_t R = v->rank;
    bool zero = true;
    for (uint32_t j = 0; j < R; j++)
        zero &= v->stride[j] == 0;
    if (zero) {
        if (v->iota)
            iota_gen(v, 0, 0, n, dst);
        else
            fill(dst, src, es, n);
        return;
    }
    uint64_t idx[PLUMB_MAX_RANK];
    uint64_t rem = off;
    int64_t so = 0;
    for (uint32_t j = R; j-- > 0;) {
        idx[j] = rem % (uint64_t)v->dims[j];
        rem /= (uint64_t)v->dims[j];
        so += (int64_t)idx[j] * v->stride[j];
    }
    size_t done = 0;
    int64_t s = v->stride[R - 1];
    uint64_t inner = (uint64_t)v->dims[R - 1];
    while (done < n) {
        size_t run = (size_t)(inner - idx[R - 1]);
        if (run > n - done)
            run = n - done;
        uint8_t *o = dst + done * es;
        if (v->iota)
            iota_gen(v, (uint64_t)so, s, run, o);
        else if (s == 0)
            fill(o, src + so * (int64_t)es, es, run);
        else if (s == 1)
            memcpy(o, src + so * (int64_t)es, run * es);
        else
            for (size_t i = 0; i < run; i++)
                memcpy(o + i * es, src + (so + (int64_t)i * s) * (int64_t)es, es);
        done += run;
        so += (int64_t)run * s;
        idx[R - 1] += run;
        for (uint32_t j = R - 1; j > 0 && idx[j] == (uint64_t)v->dims[j]; j--) {
            so -= (int64_t)idx[j] * v->stride[j];
            idx[j] = 0;
            idx[j - 1]++;
            so += v->stride[j - 1];
        }
    }
}

/* base + off bytes; empty tensors have no data (and no offset is taken). */
static inline uint8_t *at(void *base, uint64_t off)
{
    return base ? (uint8_t *)base + off : NULL;
}

static inline float max_ieee(float a, float b)
{
    if (a != a) return a;
    if (b != b) return b;
    if (a == b) return signbit(a) ? b : a;
    return a > b ? a : b;
}

/* ---- f32 arithmetic with per-row operands ---------------------------------------------
 * The same bits as the elementwise kernels' f32 add/subtract/multiply/divide:
 * the IEEE result, and in a NaN lane the first operand's NaN quieted, else
 * the second's, else the positive default NaN 0x7FC00000. An operand marked
 * in per_row is one value for the whole row. */
static inline uint32_t arith_nan(uint32_t r, uint32_t x, uint32_t y)
{
    if ((r & 0x7fffffffu) <= 0x7f800000u)
        return r;
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return x | 0x00400000u;
    if ((y & 0x7fffffffu) > 0x7f800000u)
        return y | 0x00400000u;
    return 0x7fc00000u;
}

/* [p, p + n) and [o, o + n) share memory */
static inline bool rt_f32_overlap(const float *p, const float *o, size_t n)
{
    uintptr_t x = (uintptr_t)p, y = (uintptr_t)o, len = (uintptr_t)n * 4;
    return x < y + len && y < x + len;
}

static void arith_portable(plumb_opcode code, const float *a, const float *b, unsigned per_row, float *o, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        float x = a[(per_row & 1) ? 0 : i], y = b[(per_row & 2) ? 0 : i], r;
        switch (code) {
        case PLUMB_OP_ADD: r = x + y; break;
        case PLUMB_OP_SUBTRACT: r = x - y; break;
        case PLUMB_OP_MULTIPLY: r = x * y; break;
        default: r = x / y; break;
        }
        uint32_t rb, xb, yb;
        memcpy(&rb, &r, 4);
        memcpy(&xb, &x, 4);
        memcpy(&yb, &y, 4);
        rb = arith_nan(rb, xb, yb);
        memcpy(o + i, &rb, 4);
    }
}

#if RT_X86
/* One loop per (operation, per-row operand, streaming) with all three
 * known at compile time: a loop that tests them per vector runs at half
 * the speed (branches and mask moves in every iteration). */
__attribute__((target("avx512f"), always_inline))
static inline void arith_loop16(plumb_opcode code, const float *a, const float *b, unsigned per_row, float *o,
                                size_t i, size_t n, bool stream)
{
    __m512 xs = _mm512_set1_ps(a[0]), ys = _mm512_set1_ps(b[0]);
    for (; i + 16 <= n; i += 16) {
        __m512 x = (per_row & 1) ? xs : _mm512_loadu_ps(a + i);
        __m512 y = (per_row & 2) ? ys : _mm512_loadu_ps(b + i);
        __m512 r;
        switch (code) {
        case PLUMB_OP_ADD: r = _mm512_add_ps(x, y); break;
        case PLUMB_OP_SUBTRACT: r = _mm512_sub_ps(x, y); break;
        case PLUMB_OP_MULTIPLY: r = _mm512_mul_ps(x, y); break;
        default: r = _mm512_div_ps(x, y); break;
        }
        if (__builtin_expect(_mm512_cmp_ps_mask(r, r, _CMP_UNORD_Q) != 0, 0)) {
            _mm512_storeu_ps(o + i, r);
            arith_portable(code, (per_row & 1) ? a : a + i, (per_row & 2) ? b : b + i, per_row, o + i, 16);
        } else if (stream) {
            _mm512_stream_ps(o + i, r);
        } else {
            _mm512_storeu_ps(o + i, r);
        }
    }
}

#define RT_ARITH_CASE(CODE, PR, ST)                       \
    case ((CODE) * 8 + (PR) * 2 + (ST)):                  \
        arith_loop16(CODE, a, b, PR, o, i, n, ST);        \
        break;
#define RT_ARITH_OP(CODE) \
    RT_ARITH_CASE(CODE, 0, 0) RT_ARITH_CASE(CODE, 0, 1) RT_ARITH_CASE(CODE, 1, 0) \
    RT_ARITH_CASE(CODE, 1, 1) RT_ARITH_CASE(CODE, 2, 0) RT_ARITH_CASE(CODE, 2, 1) \
    RT_ARITH_CASE(CODE, 3, 0) RT_ARITH_CASE(CODE, 3, 1)

/* Streaming stores need 64-byte alignment: lanes before the first aligned
 * one go through the plain path (the NaN fix-up then rewrites lanes in
 * order, so it never races a streamed line). */
__attribute__((target("avx512f")))
static void arith_avx512(plumb_opcode code, const float *a, const float *b, unsigned per_row, float *o, size_t n,
                         bool stream)
{
    /* a row not a whole number of vectors, or not starting on a line: its
     * first and last vectors are computed whole into a buffer, overlapping
     * the middle's operands, and only their own lanes copied out (a plain
     * store into a line the middle streams, or the reverse, would cost a
     * line flush each); not when the result shares memory with a full-row
     * operand (the last vector would read results) */
    bool whole = n >= 16 && !((per_row & 1) == 0 && rt_f32_overlap(a, o, n)) &&
                 !((per_row & 2) == 0 && rt_f32_overlap(b, o, n));
    size_t i = 0;
    if (stream) {
        size_t head = (size_t)((64 - ((uintptr_t)o & 63)) & 63);
        if (head % 4 != 0 || n < 64)
            stream = false;
        else if (head) {
            head /= 4;
            if (whole) {
                float t[16];
                arith_loop16(code, a, b, per_row, t, 0, 16, false);
                memcpy(o, t, head * sizeof *o);
            } else {
                arith_portable(code, a, b, per_row, o, head);
            }
            i = head;
        }
    }
    unsigned key = (unsigned)code * 8 + (per_row & 3) * 2 + (stream ? 1 : 0);
    switch (key) {
    RT_ARITH_OP(PLUMB_OP_ADD)
    RT_ARITH_OP(PLUMB_OP_SUBTRACT)
    RT_ARITH_OP(PLUMB_OP_MULTIPLY)
    RT_ARITH_OP(PLUMB_OP_DIVIDE)
    default: break;
    }
    size_t done = i + (n - i) / 16 * 16;
    if (done < n && whole) {
        float t[16];
        arith_loop16(code, (per_row & 1) ? a : a + n - 16, (per_row & 2) ? b : b + n - 16, per_row, t, 0, 16, false);
        memcpy(o + done, t + 16 - (n - done), (n - done) * sizeof *o);
    } else if (done < n)
        arith_portable(code, (per_row & 1) ? a : a + done, (per_row & 2) ? b : b + done, per_row, o + done,
                       n - done);
    /* no fence here: run_chunk fences once at the end of its chunk (a
     * thread's own later loads see its streamed stores without one) */
}
#undef RT_ARITH_OP
#undef RT_ARITH_CASE
#endif

static void row_arith(plumb_isa isa, plumb_opcode code, const void *a, const void *b, unsigned per_row, float *o,
                      size_t n, bool stream)
{
    if (n == 0)
        return;
#if RT_X86
    if (isa == PLUMB_ISA_AVX512) {
        arith_avx512(code, a, b, per_row, o, n, stream);
        return;
    }
#else
    (void)isa;
    (void)stream;
#endif
    arith_portable(code, a, b, per_row, o, n);
}

/* The sqsum pass over one row: xc = x - m stored, xc * xc summed in the
 * lanes and order of rt_sum_f32 (rt_sum.h) without being stored. The same
 * IEEE operations and NaN rule as row_arith, so the same bits as the three
 * steps run apart. */
typedef struct sqsum_ctx {
    const float *x;
    float m;
    float *xc;
} sqsum_ctx;

/* Elements [i, i + k) of a block, k <= RT_SUM_LANES, added to lanes 0..k-1. */
static void sqsum_part(const sqsum_ctx *c, size_t i, size_t k, double *l)
{
    float q[RT_SUM_LANES];
    arith_portable(PLUMB_OP_SUBTRACT, c->x + i, &c->m, 2, c->xc + i, k);
    arith_portable(PLUMB_OP_MULTIPLY, c->xc + i, c->xc + i, 0, q, k);
    for (size_t j = 0; j < k; j++)
        l[j] = l[j] + (double)q[j];
}

static double sqsum_block_portable(void *ctx, size_t start, size_t n)
{
    double l[RT_SUM_LANES];
    for (unsigned j = 0; j < RT_SUM_LANES; j++)
        l[j] = -0.0;
    for (size_t i = 0; i < n; i += RT_SUM_LANES)
        sqsum_part(ctx, start + i, n - i < RT_SUM_LANES ? n - i : RT_SUM_LANES, l);
    return rt_sum_fold_lanes(l);
}

#if RT_X86
/* 32 elements per iteration: lanes 0-7, 8-15, 16-23, 24-31 in a[0..3] as in
 * the row-sum kernel. A NaN in xc sends those 32 through the portable
 * subtraction (its NaN rule); squaring a NaN then gives it back unchanged in
 * both forms, and a non-NaN square is never NaN. */
__attribute__((target("avx512f")))
static double sqsum_block_avx512(void *ctx, size_t start, size_t n)
{
    const sqsum_ctx *c = ctx;
    const float *x = c->x + start;
    float *o = c->xc + start;
    __m512 m = _mm512_set1_ps(c->m);
    __m512d a[4];
    rt_sum_lanes_init(a);
    size_t i = 0;
    for (; i + RT_SUM_LANES <= n; i += RT_SUM_LANES) {
        __m512 c0 = _mm512_sub_ps(_mm512_loadu_ps(x + i), m);
        __m512 c1 = _mm512_sub_ps(_mm512_loadu_ps(x + i + 16), m);
        _mm512_storeu_ps(o + i, c0);
        _mm512_storeu_ps(o + i + 16, c1);
        if (__builtin_expect((_mm512_cmp_ps_mask(c0, c0, _CMP_UNORD_Q) |
                              _mm512_cmp_ps_mask(c1, c1, _CMP_UNORD_Q)) != 0, 0)) {
            arith_portable(PLUMB_OP_SUBTRACT, x + i, &c->m, 2, o + i, RT_SUM_LANES);
            c0 = _mm512_loadu_ps(o + i);
            c1 = _mm512_loadu_ps(o + i + 16);
        }
        rt_sum_lanes_add32(a, _mm512_mul_ps(c0, c0), _mm512_mul_ps(c1, c1));
    }
    if (i < n) {
        /* the tail's centred values and squares as sqsum_part computes them */
        float q[RT_SUM_LANES];
        arith_portable(PLUMB_OP_SUBTRACT, x + i, &c->m, 2, o + i, n - i);
        arith_portable(PLUMB_OP_MULTIPLY, o + i, o + i, 0, q, n - i);
        rt_sum_lanes_add_tail(a, q, n - i);
    }
    return rt_sum_lanes_fold(a);
}
#endif

/* Returns the row sum of (x - m)^2 as rt_sum_f32 would, xc written. */
static float run_sqsum(plumb_isa isa, const float *x, float m, float *xc, size_t n)
{
    sqsum_ctx c = {x, m, xc};
    rt_sum_block_fn fn = sqsum_block_portable;
#if RT_X86
    if (isa == PLUMB_ISA_AVX512)
        fn = sqsum_block_avx512;
#else
    (void)isa;
#endif
    return (float)rt_sum_blocks(fn, &c, n);
}

#if RT_X86
/* The expsum pass over one row (AVX-512): e = exp(x - m) stored, e summed
 * in the lanes and order of rt_sum_f32 as it is computed. The subtraction
 * is row_arith's (a NaN sends its 32 elements through arith_portable, its
 * NaN rule); the exp is x16_exp, and a block of 32 with a lane it flags
 * goes through the exp step's own array function (exact), so e has
 * the bits of the three steps run apart and the sum adds the same terms
 * in the same order. */
typedef struct expsum_ctx {
    const float *x;
    float m;
    float *e;
    rt_vmath_f32_fn exp32;    /* the exp step's kernel at this level */
} expsum_ctx;

__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")))
static double expsum_block_avx512(void *ctx, size_t start, size_t n)
{
    const expsum_ctx *c = ctx;
    const float *x = c->x + start;
    float *o = c->e + start;
    __m512 m = _mm512_set1_ps(c->m);
    __m512d a[4];
    rt_sum_lanes_init(a);
    float t[RT_SUM_LANES];
    size_t i = 0;
    for (; i + RT_SUM_LANES <= n; i += RT_SUM_LANES) {
        __m512 c0 = _mm512_sub_ps(_mm512_loadu_ps(x + i), m);
        __m512 c1 = _mm512_sub_ps(_mm512_loadu_ps(x + i + 16), m);
        __mmask16 b0, b1;
        __m512 e0 = x16_exp(c0, &b0), e1 = x16_exp(c1, &b1);
        /* a NaN in x - m is flagged by the exp (which flags NaN inputs) */
        if (__builtin_expect((b0 | b1) != 0, 0)) {
            arith_portable(PLUMB_OP_SUBTRACT, x + i, &c->m, 2, t, RT_SUM_LANES);
            c->exp32(t, o + i, RT_SUM_LANES);
            e0 = _mm512_loadu_ps(o + i);
            e1 = _mm512_loadu_ps(o + i + 16);
        } else {
            _mm512_storeu_ps(o + i, e0);
            _mm512_storeu_ps(o + i + 16, e1);
        }
        rt_sum_lanes_add32(a, e0, e1);
    }
    if (i < n) {
        arith_portable(PLUMB_OP_SUBTRACT, x + i, &c->m, 2, t, n - i);
        c->exp32(t, o + i, n - i);
        rt_sum_lanes_add_tail(a, o + i, n - i);
    }
    return rt_sum_lanes_fold(a);
}

/* Returns the row sum of e = exp(x - m) as rt_sum_f32 would, e written;
 * exp32: the exp step's kernel at the AVX-512 level. */
static float run_expsum(const float *x, float m, float *e, size_t n, rt_vmath_f32_fn exp32)
{
    expsum_ctx c = {x, m, e, exp32};
    return (float)rt_sum_blocks(expsum_block_avx512, &c, n);
}
#endif

/* ---- chains of f32 arithmetic in registers ----------------------------------------------
 * A chain (fstep.chain) of 2..RT_CHAIN_MAX row_arith steps, each result read
 * only by the next, runs as one loop: each link's IEEE operation on the
 * running value and the link's other operand (a full row or a per-row
 * value, on either side), the intermediates never stored. A NaN anywhere in
 * the chain reaches its result (every operation returns NaN for a NaN
 * operand), so a block whose result has no NaN lane needed no NaN rule on
 * the way; a block with one is recomputed link by link by arith_portable,
 * which gives exactly the separate steps' bits. */
typedef struct chain_rt {
    uint32_t n;                        /* links */
    plumb_opcode code[RT_CHAIN_MAX];
    uint8_t side[RT_CHAIN_MAX];        /* links 1..: the operand the running value is */
    bool scal[RT_CHAIN_MAX];           /* links 1..: the other operand is one value per row */
    const float *p[RT_CHAIN_MAX];      /* links 1..: the other operand; head: its first */
    const float *b;                    /* head: its second operand */
    unsigned head_pr;                  /* head: per_row bits */
    float sv[RT_CHAIN_MAX + 1];        /* per-row values, copied before any store (a result
                                        * slot may not share their memory, but the copy costs
                                        * nothing); p[] and b then point here */
} chain_rt;

#define RT_CHAIN_BLOCK 128u

#if RT_X86   /* the AVX-512 chain's NaN blocks and unaligned ends */
/* Elements [i, i + k), k <= RT_CHAIN_BLOCK, of the chain into o[0..k). */
static void chain_portable(const chain_rt *c, size_t i, size_t k, float *o)
{
    float t[RT_CHAIN_BLOCK];
    arith_portable(c->code[0], (c->head_pr & 1) ? c->p[0] : c->p[0] + i, (c->head_pr & 2) ? c->b : c->b + i,
                   c->head_pr, t, k);
    for (uint32_t j = 1; j < c->n; j++) {
        const float *y = c->scal[j] ? c->p[j] : c->p[j] + i;
        if (c->side[j] == 0)
            arith_portable(c->code[j], t, y, c->scal[j] ? 2u : 0u, t, k);
        else
            arith_portable(c->code[j], y, t, c->scal[j] ? 1u : 0u, t, k);
    }
    memcpy(o, t, k * sizeof *o);
}

static void chain_portable_range(const chain_rt *c, size_t i, size_t n, float *o)
{
    while (i < n) {
        size_t k = n - i < RT_CHAIN_BLOCK ? n - i : RT_CHAIN_BLOCK;
        chain_portable(c, i, k, o + i);
        i += k;
    }
}
#endif

#if RT_X86
__attribute__((target("avx512f"), always_inline))
static inline __m512 chain_op(plumb_opcode code, __m512 x, __m512 y)
{
    switch (code) {
    case PLUMB_OP_ADD: return _mm512_add_ps(x, y);
    case PLUMB_OP_SUBTRACT: return _mm512_sub_ps(x, y);
    case PLUMB_OP_MULTIPLY: return _mm512_mul_ps(x, y);
    default: return _mm512_div_ps(x, y);
    }
}

/* The head on B vectors from element i: per_row PR known at compile time. */
__attribute__((target("avx512f"), always_inline))
static inline void chain_head(plumb_opcode code, unsigned pr, const float *a, const float *b, __m512 as, __m512 bs,
                              size_t i, __m512 *v, unsigned B)
{
    _Pragma("GCC unroll 8") for (unsigned k = 0; k < B; k++) {
        __m512 x = (pr & 1) ? as : _mm512_loadu_ps(a + i + 16 * k);
        __m512 y = (pr & 2) ? bs : _mm512_loadu_ps(b + i + 16 * k);
        v[k] = chain_op(code, x, y);
    }
}

/* One link on B vectors: operation, side and operand kind known at compile time. */
__attribute__((target("avx512f"), always_inline))
static inline void chain_link(plumb_opcode code, unsigned side, bool scal, const float *p, __m512 s, size_t i,
                              __m512 *v, unsigned B)
{
    _Pragma("GCC unroll 8") for (unsigned k = 0; k < B; k++) {
        __m512 y = scal ? s : _mm512_loadu_ps(p + i + 16 * k);
        v[k] = side ? chain_op(code, y, v[k]) : chain_op(code, v[k], y);
    }
}

#define RT_HEAD_CASE(CODE, PR) \
    case (CODE) * 4 + (PR): chain_head(CODE, PR, c->p[0], c->b, sc[0], sb, i, v, B); break;
#define RT_LINK_CASE(CODE, SIDE, SCAL) \
    case (CODE) * 4 + (SIDE) * 2 + (SCAL): chain_link(CODE, SIDE, SCAL, c->p[j], sc[j], i, v, B); break;
#define RT_HEAD_OP(CODE) RT_HEAD_CASE(CODE, 0) RT_HEAD_CASE(CODE, 1) RT_HEAD_CASE(CODE, 2)
#define RT_LINK_OP(CODE) \
    RT_LINK_CASE(CODE, 0, 0) RT_LINK_CASE(CODE, 0, 1) RT_LINK_CASE(CODE, 1, 0) RT_LINK_CASE(CODE, 1, 1)

/* B vectors from element i through every link, one switch per link per
 * block (not per vector). */
__attribute__((target("avx512f"), always_inline))
static inline void chain_block_any(const chain_rt *c, const __m512 *sc, __m512 sb, size_t i, __m512 *v, unsigned B)
{
    switch ((unsigned)c->code[0] * 4 + c->head_pr) {
    RT_HEAD_OP(PLUMB_OP_ADD)
    RT_HEAD_OP(PLUMB_OP_SUBTRACT)
    RT_HEAD_OP(PLUMB_OP_MULTIPLY)
    RT_HEAD_OP(PLUMB_OP_DIVIDE)
    default: __builtin_unreachable();   /* arith_f32 ops, per_row 0..2 */
    }
    for (uint32_t j = 1; j < c->n; j++) {
        switch ((unsigned)c->code[j] * 4 + c->side[j] * 2u + (c->scal[j] ? 1u : 0u)) {
        RT_LINK_OP(PLUMB_OP_ADD)
        RT_LINK_OP(PLUMB_OP_SUBTRACT)
        RT_LINK_OP(PLUMB_OP_MULTIPLY)
        RT_LINK_OP(PLUMB_OP_DIVIDE)
        default: __builtin_unreachable();   /* arith_f32 ops */
        }
    }
}
#undef RT_HEAD_CASE
#undef RT_LINK_CASE
#undef RT_HEAD_OP
#undef RT_LINK_OP

/* layer_norm's normalization, (xc * rstd) * gamma + beta: the whole chain
 * known at compile time. Kept although chain_block_any computes the same:
 * without it layer_norm_f32 (4096x1024, 1 thread, broad suite) ran 2.0-2.6%
 * slower at the best of 6-8 alternated runs in each of three rounds
 * (medians +0-1.6%), on a loaded 2-core machine. */
__attribute__((target("avx512f"), always_inline))
static inline void chain_block_ln(const chain_rt *c, const __m512 *sc, __m512 sb, size_t i, __m512 *v, unsigned B)
{
    chain_head(PLUMB_OP_MULTIPLY, 2, c->p[0], c->b, sc[0], sb, i, v, B);
    chain_link(PLUMB_OP_MULTIPLY, 0, false, c->p[1], sc[1], i, v, B);
    chain_link(PLUMB_OP_ADD, 0, false, c->p[2], sc[2], i, v, B);
}

static bool chain_is_ln(const chain_rt *c)
{
    return c->n == 3 && c->code[0] == PLUMB_OP_MULTIPLY && c->head_pr == 2 && c->code[1] == PLUMB_OP_MULTIPLY &&
           c->side[1] == 0 && !c->scal[1] && c->code[2] == PLUMB_OP_ADD && c->side[2] == 0 && !c->scal[2];
}

/* Stores B vectors at o + i, after the NaN check of the chain's result. */
__attribute__((target("avx512f"), always_inline))
static inline void chain_store(const chain_rt *c, __m512 *v, float *o, size_t i, bool stream, unsigned B)
{
    __mmask16 nan = 0;
    _Pragma("GCC unroll 8") for (unsigned k = 0; k < B; k++)
        nan |= _mm512_cmp_ps_mask(v[k], v[k], _CMP_UNORD_Q);
    if (__builtin_expect(nan != 0, 0)) {
        float t[RT_CHAIN_BLOCK];
        chain_portable(c, i, 16 * B, t);
        _Pragma("GCC unroll 8") for (unsigned k = 0; k < B; k++)
            v[k] = _mm512_loadu_ps(t + 16 * k);
    }
    _Pragma("GCC unroll 8") for (unsigned k = 0; k < B; k++) {
        if (stream)
            _mm512_stream_ps(o + i + 16 * k, v[k]);
        else
            _mm512_storeu_ps(o + i + 16 * k, v[k]);
    }
}

#define RT_CHAIN_VECS 8u   /* vectors per block: the switches run once per 128 elements */

__attribute__((target("avx512f"), always_inline))
static inline size_t chain_loop(const chain_rt *c, const __m512 *sc, __m512 sb, float *o, size_t i, size_t n,
                                bool stream, bool ln)
{
    __m512 v[RT_CHAIN_VECS];
    for (; i + 16 * RT_CHAIN_VECS <= n; i += 16 * RT_CHAIN_VECS) {
        if (ln)
            chain_block_ln(c, sc, sb, i, v, RT_CHAIN_VECS);
        else
            chain_block_any(c, sc, sb, i, v, RT_CHAIN_VECS);
        chain_store(c, v, o, i, stream, RT_CHAIN_VECS);
    }
    for (; i + 16 <= n; i += 16) {
        if (ln)
            chain_block_ln(c, sc, sb, i, v, 1);
        else
            chain_block_any(c, sc, sb, i, v, 1);
        chain_store(c, v, o, i, stream, 1);
    }
    return i;
}

/* The vector of the chain at element i computed whole; its lanes
 * [from, from + k) stored to o + i + from. */
__attribute__((target("avx512f")))
static void chain_one(const chain_rt *c, const __m512 *sc, __m512 sb, size_t i, float *o, size_t k, size_t from)
{
    __m512 v[1];
    float t[16];
    chain_block_any(c, sc, sb, i, v, 1);
    if (_mm512_cmp_ps_mask(v[0], v[0], _CMP_UNORD_Q))
        chain_portable(c, i, 16, t);
    else
        _mm512_storeu_ps(t, v[0]);
    memcpy(o + i + from, t + from, k * sizeof *o);
}

/* Streaming stores need 64-byte alignment: the lanes before the first
 * aligned one are computed apart (chain_one, or the portable chain). */
__attribute__((target("avx512f")))
static void chain_avx512(const chain_rt *c, float *o, size_t n, bool stream)
{
    /* first and last vectors whole into a buffer, as in arith_avx512 */
    bool whole = n >= 16 && !(!(c->head_pr & 1) && rt_f32_overlap(c->p[0], o, n)) &&
                 !(!(c->head_pr & 2) && rt_f32_overlap(c->b, o, n));
    for (uint32_t j = 1; j < c->n; j++)
        whole &= c->scal[j] || !rt_f32_overlap(c->p[j], o, n);
    __m512 sc[RT_CHAIN_MAX];
    for (uint32_t j = 0; j < c->n; j++)
        sc[j] = _mm512_set1_ps(c->p[j][0]);   /* used only where p[j] is a per-row value */
    __m512 sb = _mm512_set1_ps(c->b[0]);
    bool ln = chain_is_ln(c);
    size_t i = 0;
    if (stream) {
        size_t head = (size_t)((64 - ((uintptr_t)o & 63)) & 63);
        if (head % 4 != 0 || n < 64) {
            stream = false;
        } else if (head) {
            if (whole)
                chain_one(c, sc, sb, 0, o, head / 4, 0);
            else
                chain_portable_range(c, 0, head / 4, o);
            i = head / 4;
        }
    }
    if (stream)
        i = ln ? chain_loop(c, sc, sb, o, i, n, true, true) : chain_loop(c, sc, sb, o, i, n, true, false);
    else
        i = ln ? chain_loop(c, sc, sb, o, i, n, false, true) : chain_loop(c, sc, sb, o, i, n, false, false);
    if (i < n && whole)
        chain_one(c, sc, sb, n - 16, o, n - i, 16 - (n - i));
    else
        chain_portable_range(c, i, n, o);   /* fenced by run_chunk, as arith_avx512 */
}
#endif

#if RT_X86
/* Whole 64-byte lines go out with streaming stores; the unaligned head and
 * tail (shared with neighbouring tiles' lines) through the cache. */
__attribute__((target("avx512f")))
static void stream_copy_avx512(uint8_t *dst, const uint8_t *src, size_t bytes)
{
    size_t head = (size_t)((64 - ((uintptr_t)dst & 63)) & 63);
    if (head > bytes)
        head = bytes;
    memcpy(dst, src, head);
    size_t i = head;
    for (; i + 64 <= bytes; i += 64)
        _mm512_stream_si512((void *)(dst + i), _mm512_loadu_si512((const void *)(src + i)));
    memcpy(dst + i, src + i, bytes - i);
}
#endif

static void stream_copy(uint8_t *dst, const uint8_t *src, size_t bytes)
{
#if RT_X86
    stream_copy_avx512(dst, src, bytes);
#else
    memcpy(dst, src, bytes);
#endif
}

/* The operand pointers of step s in the unit at off[], cnt[], broadcasts
 * materialized when first read in the unit (invariant ones once per chunk). */
static bool step_ins(frun *fr, uint8_t *slots, const uint64_t *off, const size_t *cnt, bool first_unit, uint32_t s,
                     const void **ins)
{
    const rt_fused *g = fr->g;
    const fstep *st = &g->steps[s];
    if (st->n_in > 16)
        return false;
    for (uint32_t i = 0; i < st->n_in; i++) {
        const fval *v = &g->vals[st->in[i]];
        uint64_t o = off[v->space];
        switch (v->kind) {
        case FV_IN:
            ins[i] = at(fr->in[v->io]->data, o * v->es);
            break;
        case FV_OUT:
            ins[i] = at(fr->out[v->io]->data, o * v->es);
            break;
        case FV_TEMP:
            ins[i] = slots + (size_t)v->slot * g->slot_bytes;
            break;
        case FV_BCAST: {
            uint8_t *buf = slots + (size_t)v->slot * g->slot_bytes;
            ins[i] = buf;
            /* materialized when first read in this unit (invariant ones
             * once per chunk); a value read twice by one step is
             * materialized twice, harmlessly */
            bool first_read = (st->first_read >> i) & 1;
            if (first_read && (!v->invariant || first_unit)) {
                /* an invariant value is materialized for a whole unit
                 * (row, or tile) from offset 0: its elements do not
                 * depend on the unit */
                size_t nn = cnt[v->space];
                if (v->invariant)
                    nn = v->space ? (size_t)g->rpu : g->rows ? (size_t)(g->row_len * g->rpu) : RT_TILE;
                if (nn)
                    materialize(v, v->iota ? NULL : fr->in[v->io]->data, v->invariant ? 0 : o, nn, buf);
            }
            break;
        }
        }
    }
    return true;
}

static uint8_t *step_dst(const frun *fr, uint8_t *slots, const uint64_t *off, const fstep *st)
{
    const rt_fused *g = fr->g;
    const fval *ov = &g->vals[st->out];
    return ov->kind == FV_OUT ? at(fr->out[ov->io]->data, off[ov->space] * ov->es)
                              : slots + (size_t)ov->slot * g->slot_bytes;
}

/* A unit of several rows reads a per-row operand of a step (one value per
 * row) while the step writes its rows, and slot planning may give the
 * result the slot of that operand when this step is its last use (softmax's
 * exp takes the row max's): writing row 0 would overwrite the values of the
 * later rows. So those operands are copied aside first (rows values each,
 * into aside[i]) and read from there. One row per unit never needed it: a
 * step read its one per-row value before writing. */
static void rows_aside(const rt_fused *g, const fstep *st, const void **ins, size_t rows,
                       uint8_t (*aside)[RT_RPU_MAX * 8])
{
    if (rows < 2)
        return;
    for (uint32_t i = 0; i < st->n_in && i < 16; i++)
        if (g->vals[st->in[i]].space == 1) {
            memcpy(aside[i], ins[i], rows * g->vals[st->in[i]].es);
            ins[i] = aside[i];
        }
}

/* The chain headed by step s on a row of n > 0 elements (AVX-512); ins:
 * the head's operands. */
static bool run_chain(frun *fr, uint8_t *slots, const uint64_t *off, const size_t *cnt, bool first_unit, uint32_t s,
                      const void **ins, size_t n)
{
#if RT_X86
    const rt_fused *g = fr->g;
    const fstep *st = &g->steps[s];
    /* the operands of every link: link 0's are ins */
    /* no copies aside (rows_aside) for the links: slot planning keeps every
     * chain operand live to the chain's last step, so the result never
     * takes an operand's slot */
    const void *li[RT_CHAIN_MAX][16];
    for (uint32_t j = 1; j < st->chain; j++)
        if (!step_ins(fr, slots, off, cnt, first_unit, s + j, li[j]))
            return false;
    const fstep *last = &g->steps[s + st->chain - 1];
    float *dst = (float *)step_dst(fr, slots, off, last);
    /* row by row (a unit holds cnt[1] rows of n / cnt[1] elements): a
     * per-row operand is the row's element of its per-row value */
    size_t rows = g->rows && cnt[1] ? cnt[1] : 1, len = n / rows;
    for (size_t r = 0; r < rows; r++) {
        chain_rt c;
        c.n = st->chain;
        c.code[0] = st->op->code;
        c.head_pr = st->per_row;
        c.side[0] = 0;
        c.scal[0] = false;
        const float *a = ins[0], *b = ins[1];
        a += (st->per_row & 1) ? r : r * len;
        b += (st->per_row & 2) ? r : r * len;
        c.sv[0] = *a;
        c.sv[RT_CHAIN_MAX] = *b;
        c.p[0] = (st->per_row & 1) ? &c.sv[0] : a;
        c.b = (st->per_row & 2) ? &c.sv[RT_CHAIN_MAX] : b;
        for (uint32_t j = 1; j < c.n; j++) {
            const fstep *lk = &g->steps[s + j];
            unsigned other = 1u - lk->run_side;
            c.code[j] = lk->op->code;
            c.side[j] = lk->run_side;
            c.scal[j] = (lk->per_row >> other) & 1u;
            const float *p = (const float *)li[j][other] + (c.scal[j] ? r : r * len);
            c.sv[j] = *p;
            c.p[j] = c.scal[j] ? &c.sv[j] : p;
        }
        chain_avx512(&c, dst + r * len, len, last->stream);
    }
    return true;
#else
    (void)fr, (void)slots, (void)off, (void)cnt, (void)first_unit, (void)s, (void)ins, (void)n;
    return false;
#endif
}

/* ---- half register segments (execution) ---------------------------------------------
 * A segment (fstep.hseg, planned by mark_hsegs) on one unit: row by row
 * (a loop group's tile is one row), block by block of HS_BLOCK elements,
 * every step of the segment. Each value lives in a block buffer of half
 * patterns; a register step loads and widens its operands (exactly: F16C /
 * AVX-512 for f16, a shift for bf16), computes in f32, rounds once to the
 * half type (vcvtps2ph, or the integer round to nearest even at bit 16
 * for bf16: the same narrowings as k_ew_half.c's loops) and keeps the
 * pattern for the next step; stored results leave once per block.
 *
 * Bits: the register steps are exactly what rt_ew_half computes for each
 * lane it does not flag (docs/runtime-ew-half.md): add, subtract,
 * multiply, divide and sqrt are one f32 operation rounded once; negate
 * and abs the sign operation on the pattern; exp, logistic and tanh the
 * same x16_* function as x16_arr_* rounded once. The lanes where the
 * kernel applies other rules are flagged here with the kernel's own
 * conditions (a NaN result, and for the three functions the x16_* flags,
 * |r| below the half type's smallest normal or finite at or above its
 * largest finite value) and recomputed by rt_ew_tile on their original
 * operand patterns, gathered: the kernel computes each element from its
 * operands alone, so those lanes get exactly its bits, NaN payloads
 * included. Other ops run rt_ew_tile on the block. So a segment gives the
 * step-by-step bits at every lane, and the other levels, which run the
 * steps one by one, agree with it. */
/* 1024 (was 256): the per-block, per-step work of run_hseg (operand
 * pointers, the hs_step call and its dispatch, the flag bookkeeping) was
 * paid four times per row of 1024; at 1024 a step's block buffers are 2 KiB
 * each, still L1 for a segment's steps (RT_HSEG_MAX of them is 32 KiB of
 * stack at most). Blocking does not change any value: each lane's steps
 * are the same. Measured in docs/runtime-passes.md. */
#define HS_BLOCK 1024u

#if RT_X86
#define HS_TARGET __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma,f16c")))
/* hs_step and the bf16 loops also carry AVX512-BF16 for vcvtne2ps2bf16,
 * executed only where rt_hseg_bf16cvt() says the CPU has it (no other code
 * here is written with bf16 types, so the compiler has nothing else to
 * emit it for) */
#define HS_TARGET_BF __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma,f16c,avx512bf16")))
#endif

/* Whether the bf16 register steps round with vcvtne2ps2bf16: when the CPU
 * has AVX512-BF16, unless a test turned it off (set 0) to run the integer
 * rounding (same bits); set < 0 only asks. */
static int hs_bf16cvt_state = -1;   /* -1 not yet probed, else 0/1 */
bool rt_hseg_bf16cvt(int set)
{
#if RT_X86
    bool hw = __builtin_cpu_supports("avx512bf16");
#else
    bool hw = false;
#endif
    if (set >= 0)
        __atomic_store_n(&hs_bf16cvt_state, set > 0 && hw, __ATOMIC_RELAXED);
    else if (__atomic_load_n(&hs_bf16cvt_state, __ATOMIC_RELAXED) < 0)
        __atomic_store_n(&hs_bf16cvt_state, (int)hw, __ATOMIC_RELAXED);
    return __atomic_load_n(&hs_bf16cvt_state, __ATOMIC_RELAXED) > 0;
}

#if RT_X86

HS_TARGET static inline __m512 hs_widen(bool f16, __m256i h)
{
    if (f16)
        return _mm512_cvtph_ps(h);
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
}

/* round to nearest even; NaN lanes are flagged by the callers and their
 * patterns replaced */
HS_TARGET static inline __m256i hs_narrow(bool f16, __m512 r)
{
    if (f16)
        return _mm512_cvtps_ph(r, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512i v = _mm512_castps_si512(r);
    v = _mm512_add_epi32(v, _mm512_add_epi32(_mm512_set1_epi32(0x7FFF),
                                             _mm512_and_si512(_mm512_srli_epi32(v, 16), _mm512_set1_epi32(1))));
    return _mm512_cvtepi32_epi16(_mm512_srli_epi32(v, 16));
}

/* One register step over the m <= HS_BLOCK elements of a block: operands
 * pa (and pc) as half patterns, the result's patterns into o, the lanes
 * the kernel treats otherwise into fl (per vector of 16); returns whether
 * any is flagged. Inlined with constant code and type, so each op's loop
 * is compiled on its own (a loop that switched per vector ran at a third
 * of the speed). */
HS_TARGET static inline __attribute__((always_inline)) __mmask16 hs_loop(plumb_opcode code, bool f16, bool cbc,
                                                                          bool sq, const uint16_t *pa,
                                                                          const uint16_t *pc,
                                                                          uint16_t *o, size_t m, __mmask16 *fl)
{
    __mmask16 any = 0;
    /* cbc: every pc[i] is pc[0] (a row broadcast), widened once here */
    const __m512 cw = cbc ? hs_widen(f16, _mm256_set1_epi16((short)pc[0])) : _mm512_setzero_ps();
    unsigned nv = (unsigned)((m + 15) / 16);
    for (unsigned k = 0; k < nv; k++) {
        __mmask16 lm = (size_t)16 * (k + 1) <= m ? (__mmask16)0xFFFF : (__mmask16)((1u << (m - 16 * k)) - 1u);
        /* plain loads for whole vectors (all of them in whole blocks,
         * where m is a constant): masked 16-bit loads cost more */
        bool whole = (size_t)16 * (k + 1) <= m;
        __m256i ha = whole ? _mm256_loadu_si256((const __m256i *)(pa + 16 * k)) : _mm256_maskz_loadu_epi16(lm, pa + 16 * k);
        __m256i hc = ha, h;
        __mmask16 f = 0;
        if (!cbc && !sq &&
            (code == PLUMB_OP_ADD || code == PLUMB_OP_SUBTRACT || code == PLUMB_OP_MULTIPLY || code == PLUMB_OP_DIVIDE))
            hc = whole ? _mm256_loadu_si256((const __m256i *)(pc + 16 * k)) : _mm256_maskz_loadu_epi16(lm, pc + 16 * k);
        if (code == PLUMB_OP_NEGATE) {
            h = _mm256_xor_si256(ha, _mm256_set1_epi16((short)0x8000));
        } else if (code == PLUMB_OP_ABS) {
            h = _mm256_and_si256(ha, _mm256_set1_epi16(0x7FFF));
        } else if (f16 && code == PLUMB_OP_EXPONENTIAL) {
            /* f16 exp: the operands whose results could leave f16's
             * normal range flagged up front, in x16_exp's own range test,
             * instead of screening each result (5 instructions per 16).
             * e^-9.703125 = 2^-14 (1 + 9.4e-4) and e^11.0859375 = 65504
             * (1 - 3.9e-3) (both f16 values; ln 2^-14 = -9.70406, ln 65504
             * = 11.08987), so with x16_exp's error below 2^-23 every
             * unflagged result lies in [2^-14, 65504): normal, finite,
             * below the largest finite value, as flag32 requires; the
             * kernel leaves such a lane unflagged too, so it has its bits.
             * A lane flagged here that the screen would have passed only
             * goes to the kernel, whose bits it then gets. */
            h = hs_narrow(true, x16_exp_in(hs_widen(true, ha), -9.703125f, 11.0859375f, &f));
        } else if (code == PLUMB_OP_EXPONENTIAL || code == PLUMB_OP_LOGISTIC || code == PLUMB_OP_TANH) {
            __m512 a = hs_widen(f16, ha), v;
            v = code == PLUMB_OP_EXPONENTIAL ? x16_exp(a, &f)
                : code == PLUMB_OP_LOGISTIC  ? x16_logistic(a, &f)
                                             : x16_tanh(a, &f);
            /* k_ew_half.c's flag32 (NaN, below the smallest normal, zero
             * too, finite at/above the largest finite value) and also
             * infinity, in one unsigned compare: |v| - mn at or above
             * mx - mn. Flagging more lanes only sends them to the kernel,
             * whose bits they then get. */
            __m512i ab = _mm512_and_si512(_mm512_castps_si512(v), _mm512_set1_epi32(0x7FFFFFFF));
            __m512i mn = _mm512_set1_epi32(f16 ? 0x38800000 : 0x00800000);
            __m512i mx = _mm512_set1_epi32(f16 ? 0x477FE000 : 0x7F7F0000);
            f |= _mm512_cmpge_epu32_mask(_mm512_sub_epi32(ab, mn), _mm512_sub_epi32(mx, mn));
            h = hs_narrow(f16, v);
        } else {
            /* sq: both operands the same value (x * x): widened once */
            __m512 a = hs_widen(f16, ha), c = cbc ? cw : sq ? a : hs_widen(f16, hc), v;
            switch (code) {
            case PLUMB_OP_ADD: v = _mm512_add_ps(a, c); break;
            case PLUMB_OP_SUBTRACT: v = _mm512_sub_ps(a, c); break;
            case PLUMB_OP_MULTIPLY: v = _mm512_mul_ps(a, c); break;
            case PLUMB_OP_DIVIDE: v = _mm512_div_ps(a, c); break;
            default: v = _mm512_sqrt_ps(a); break;
            }
            f = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
            h = hs_narrow(f16, v);
        }
        /* o may be the stored value's memory (run_hseg), not 32-byte aligned */
        _mm256_storeu_si256((__m256i *)(o + 16 * k), h);
        f &= lm;
        if (f) {
            /* fl is written only once a lane is flagged (rare): zeroed
             * whole then, so the vectors without flags need no store */
            if (!any)
                memset(fl, 0, HS_BLOCK / 16 * sizeof *fl);
            fl[k] = f;
            any |= f;
        }
    }
    return any;
}

/* The bf16 lanes of one f32 vector after hs_widen2 (below), in element
 * order: the 16 flags of a vector holding elements {8L..8L+3} (lo) or
 * {8L+4..8L+7} (hi) of each 128-bit lane L, spread to their positions in
 * the 32 elements. Nibble j of x goes to bits 8j..8j+3. */
static inline uint32_t hs_spread4(uint32_t x)
{
    x = (x | (x << 8)) & 0x00FF00FFu;
    return (x | (x << 4)) & 0x0F0F0F0Fu;
}

/* Round the f32 lanes of r to nearest even at bit 16 (the integer form of
 * hs_narrow), as 32-bit lanes holding the bf16 pattern in their low half
 * (0..0xffff, so packus_epi32 below passes them unchanged). NaN lanes are
 * flagged by the callers and their patterns replaced. */
HS_TARGET static inline __m512i hs_rne16(__m512 r)
{
    __m512i v = _mm512_castps_si512(r);
    v = _mm512_add_epi32(v, _mm512_add_epi32(_mm512_set1_epi32(0x7FFF),
                                             _mm512_and_si512(_mm512_srli_epi32(v, 16), _mm512_set1_epi32(1))));
    return _mm512_srli_epi32(v, 16);
}

/* hs_loop for bf16 and the ops that compute in f32, 32 elements per
 * step. Widening by unpacking with zero words puts each pattern in the
 * high half of a 32-bit lane (exactly its f32 value, as hs_widen's shift),
 * elements {8L..8L+3} of 128-bit lane L in lo and {8L+4..8L+7} in hi;
 * packus_epi32(lo', hi') packs them back in element order, lane by lane.
 * That is 2 unpacks and 1 pack per 32 elements instead of 2 zero-extends,
 * 2 shifts, 2 narrowing moves (2 uops each) and 2 more loads and stores;
 * every lane gets the same f32 operation and the same rounding as in
 * hs_loop, so the same bits. Flags are found per vector in the unpacked
 * order and spread back to element order (rare: only when some lane is
 * flagged). */
HS_TARGET_BF static inline __attribute__((always_inline)) __mmask16 hs_loop_bf16(plumb_opcode code, bool cbc,
                                                                                  bool sq, bool rcp, bool nebf,
                                                                                  const uint16_t *pa,
                                                                                  const uint16_t *pc, uint16_t *o,
                                                                                  size_t m, __mmask16 *fl)
{
    /* nebf: vcvtne2ps2bf16 rounds the 32 lanes to nearest even at once
     * (2 instructions with the reordering below, where hs_rne16 and the
     * pack take 11). It flushes f32 subnormals to zero (whatever MXCSR
     * says), so those lanes are flagged too: the functions' screen flags
     * them already (exp: its results are 2^-125..2^127), the arithmetic
     * flags them with NaN (one vfpclassps, as the NaN compare). On every
     * other lane (normal or infinite f32 values) it is the same rounding
     * to nearest even as hs_rne16, overflow to infinity included; its NaN
     * rule only touches flagged lanes, whose patterns hs_fix replaces. It converts v0 then v1 lane by lane, so
     * element 8L + j (j < 4) of the unpacked order sits in word 4L + j and
     * element 8L + 4 + j in word 16 + 4L + j: hs_ord undoes that. */
    const __m512i hs_ord = _mm512_set_epi16(31, 30, 29, 28, 15, 14, 13, 12, 27, 26, 25, 24, 11, 10, 9, 8, 23, 22,
                                            21, 20, 7, 6, 5, 4, 19, 18, 17, 16, 3, 2, 1, 0);
    uint32_t any = 0;
    const __m512i z = _mm512_setzero_si512();
    __m512 cw = cbc ? _mm512_castsi512_ps(_mm512_set1_epi32((int)((uint32_t)pc[0] << 16))) : _mm512_setzero_ps();
    /* rcp (a division by a row broadcast c with 2^-126 <= |c| <= 2^126,
     * hs_rcp_ok): multiply by r = RN(1/c) instead, same bits (see there) */
    if (rcp)
        cw = _mm512_div_ps(_mm512_set1_ps(1.0f), cw);
    for (size_t i = 0; i < m; i += 32) {
        __mmask32 lm = m - i >= 32 ? (__mmask32)0xFFFFFFFFu : (__mmask32)((1u << (m - i)) - 1u);
        bool whole = m - i >= 32;
        __m512i ha = whole ? _mm512_loadu_si512((const void *)(pa + i)) : _mm512_maskz_loadu_epi16(lm, pa + i), hc = ha;
        if (!cbc && !sq &&
            (code == PLUMB_OP_ADD || code == PLUMB_OP_SUBTRACT || code == PLUMB_OP_MULTIPLY || code == PLUMB_OP_DIVIDE))
            hc = whole ? _mm512_loadu_si512((const void *)(pc + i)) : _mm512_maskz_loadu_epi16(lm, pc + i);
        __m512 a0 = _mm512_castsi512_ps(_mm512_unpacklo_epi16(z, ha));
        __m512 a1 = _mm512_castsi512_ps(_mm512_unpackhi_epi16(z, ha));
        __m512 v0, v1;
        __mmask16 f0 = 0, f1 = 0;
        if (code == PLUMB_OP_EXPONENTIAL || code == PLUMB_OP_LOGISTIC || code == PLUMB_OP_TANH) {
            v0 = code == PLUMB_OP_EXPONENTIAL ? x16_exp(a0, &f0)
                 : code == PLUMB_OP_LOGISTIC  ? x16_logistic(a0, &f0)
                                              : x16_tanh(a0, &f0);
            v1 = code == PLUMB_OP_EXPONENTIAL ? x16_exp(a1, &f1)
                 : code == PLUMB_OP_LOGISTIC  ? x16_logistic(a1, &f1)
                                              : x16_tanh(a1, &f1);
            /* hs_loop's screen for bf16 (flag32 and infinity). Not for
             * exp: x16_exp flags every operand outside [-86.5, 88], so an
             * unflagged result lies in [2^-125, 2^127) (math_x16.h), where
             * the screen (below 2^-126 or from 0x7F7F0000 up) never fires. */
            if (code != PLUMB_OP_EXPONENTIAL) {
                const __m512i mn = _mm512_set1_epi32(0x00800000), span = _mm512_set1_epi32(0x7F7F0000 - 0x00800000);
                const __m512i ab = _mm512_set1_epi32(0x7FFFFFFF);
                f0 |= _mm512_cmpge_epu32_mask(_mm512_sub_epi32(_mm512_and_si512(_mm512_castps_si512(v0), ab), mn),
                                              span);
                f1 |= _mm512_cmpge_epu32_mask(_mm512_sub_epi32(_mm512_and_si512(_mm512_castps_si512(v1), ab), mn),
                                              span);
            }
        } else {
            __m512 c0 = cbc ? cw : sq ? a0 : _mm512_castsi512_ps(_mm512_unpacklo_epi16(z, hc));
            __m512 c1 = cbc ? cw : sq ? a1 : _mm512_castsi512_ps(_mm512_unpackhi_epi16(z, hc));
            switch (code) {
            case PLUMB_OP_ADD: v0 = _mm512_add_ps(a0, c0); v1 = _mm512_add_ps(a1, c1); break;
            case PLUMB_OP_SUBTRACT: v0 = _mm512_sub_ps(a0, c0); v1 = _mm512_sub_ps(a1, c1); break;
            case PLUMB_OP_MULTIPLY: v0 = _mm512_mul_ps(a0, c0); v1 = _mm512_mul_ps(a1, c1); break;
            case PLUMB_OP_DIVIDE:
                if (rcp) {
                    v0 = _mm512_mul_ps(a0, c0), v1 = _mm512_mul_ps(a1, c1);
                } else {
                    v0 = _mm512_div_ps(a0, c0), v1 = _mm512_div_ps(a1, c1);
                }
                break;
            default: v0 = _mm512_sqrt_ps(a0); v1 = _mm512_sqrt_ps(a1); break;
            }
            if (nebf) {
                /* NaN and also f32-subnormal results, which the
                 * conversion flushes to zero (the integer rounding
                 * rounds them right): one classification each */
                f0 = _mm512_fpclass_ps_mask(v0, 0xA1);
                f1 = _mm512_fpclass_ps_mask(v1, 0xA1);
            } else {
                f0 = _mm512_cmp_ps_mask(v0, v0, _CMP_UNORD_Q);
                f1 = _mm512_cmp_ps_mask(v1, v1, _CMP_UNORD_Q);
            }
        }
        if (nebf)
            _mm512_storeu_si512((void *)(o + i), _mm512_permutexvar_epi16(hs_ord, (__m512i)_mm512_cvtne2ps_pbh(v1, v0)));
        else
            _mm512_storeu_si512((void *)(o + i), _mm512_packus_epi32(hs_rne16(v0), hs_rne16(v1)));
        if (__builtin_expect((f0 | f1) != 0, 0)) {
            uint32_t f = (hs_spread4(f0) | (hs_spread4(f1) << 4)) & lm;
            if (f) {
                /* as in hs_loop: fl zeroed at the first flagged lane */
                if (!any)
                    memset(fl, 0, HS_BLOCK / 16 * sizeof *fl);
                fl[i / 16] = (__mmask16)f;
                fl[i / 16 + 1] = (__mmask16)(f >> 16);
                any |= f;
            }
        }
    }
    return (__mmask16)(any | (any >> 16));
}

/* A bf16 division by a row broadcast c may multiply by r = RN(1/c)
 * instead when 2^-126 <= |c| <= 2^126 (r is then a normal f32), with the
 * same bits: the kernel rounds a/c to f32 and then to bf16, which is one
 * rounding of a/c (docs/runtime-ew-half.md); here a r = (a/c)(1 + t),
 * |t| <= 2^-23 + 2^-48 (two f32 roundings; an f32-subnormal product adds
 * at most 2^-150 absolute). If c is a power of two, r = 1/c exactly and
 * RN(a r) = RN(a/c), the division's f32 value itself. Otherwise a/c is
 * never a bf16 midpoint m and stays far from one: with a = A 2^ea, c =
 * C 2^ec (A, C < 2^8 integers) and m = M 2^(e-8) in a binade [2^e,
 * 2^(e+1)) of a/c, a - m c is a nonzero multiple of 2^min(ea, e-8+ec), and
 * a/c >= 2^e gives ea - ec >= e - 1, so |a/c - m| > 2^(e-16) > 2^-17 a/c
 * (in bf16's subnormal range, midpoints are multiples of 2^-134 and the
 * same count gives > 2^-142, against an error below 2^-149). So no
 * midpoint lies between a r and a/c, a r is none, and both round to the
 * same bf16 value; overflow agrees too (a r overflows f32 only when a/c
 * exceeds bf16's overflow threshold by far more than t). Zeros, infinities
 * and NaN operands give what the division gives (NaN lanes are flagged
 * as before). f16 (11 bits) has only a > 2^-23 margin against the same
 * 2^-23 error, so it keeps the division. */
HS_TARGET_BF static inline bool hs_rcp_ok(const uint16_t *pc)
{
    uint32_t ab = pc[0] & 0x7FFFu;
    return ab >= 0x0080u && ab <= 0x7E80u;
}

/* whole blocks (the common case, unrolled) and partial ones, per type;
 * bf16 by pairs of vectors except for the sign ops, which stay on the
 * patterns */
#define HS_LOOP_R(C, CB, R, SQ)                                                                              \
    (!f16 && (C) != PLUMB_OP_NEGATE && (C) != PLUMB_OP_ABS                                                   \
         ? (m == HS_BLOCK ? (nebf ? hs_loop_bf16(C, CB, SQ, R, true, pa, pc, o, HS_BLOCK, fl)                \
                                  : hs_loop_bf16(C, CB, SQ, R, false, pa, pc, o, HS_BLOCK, fl))              \
                          : hs_loop_bf16(C, CB, SQ, R, false, pa, pc, o, m, fl))                             \
     : m == HS_BLOCK ? (f16 ? hs_loop(C, true, CB, SQ, pa, pc, o, HS_BLOCK, fl)                              \
                            : hs_loop(C, false, CB, SQ, pa, pc, o, HS_BLOCK, fl))                            \
                     : (f16 ? hs_loop(C, true, CB, SQ, pa, pc, o, m, fl) : hs_loop(C, false, CB, SQ, pa, pc, o, m, fl)))
#define HS_LOOP(C, CB) HS_LOOP_R(C, CB, false, false)
/* the binary ops, with a row-broadcast second operand apart */
#define HS_LOOP2(C) (cb ? HS_LOOP(C, true) : HS_LOOP(C, false))

/* The register step of op code on a block; false when code is not one.
 * cb: pc is a row broadcast's block (every pattern pc[0]), so the loop
 * widens it once instead of loading and widening it per vector (the
 * binary steps of softmax and layer_norm all have one); the same values
 * reach the same operation, so the same bits. */
HS_TARGET_BF static bool hs_step(plumb_opcode code, bool f16, bool nebf, const uint16_t *pa, const uint16_t *pc,
                                 bool cb, uint16_t *o, size_t m, __mmask16 *fl, __mmask16 *any)
{
    switch (code) {
    case PLUMB_OP_ADD: *any = HS_LOOP2(PLUMB_OP_ADD); return true;
    case PLUMB_OP_SUBTRACT: *any = HS_LOOP2(PLUMB_OP_SUBTRACT); return true;
    case PLUMB_OP_MULTIPLY:
        /* a square (both operands one block: variance, rms_norm) loads
         * and widens its operand once; the same values reach the same
         * multiply, so the same bits */
        *any = !cb && pa == pc ? HS_LOOP_R(PLUMB_OP_MULTIPLY, false, false, true) : HS_LOOP2(PLUMB_OP_MULTIPLY);
        return true;
    case PLUMB_OP_DIVIDE:
        *any = cb && !f16 && hs_rcp_ok(pc) ? HS_LOOP_R(PLUMB_OP_DIVIDE, true, true, false) : HS_LOOP2(PLUMB_OP_DIVIDE);
        return true;
    case PLUMB_OP_SQRT: *any = HS_LOOP(PLUMB_OP_SQRT, false); return true;
    case PLUMB_OP_NEGATE: *any = HS_LOOP(PLUMB_OP_NEGATE, false); return true;
    case PLUMB_OP_ABS: *any = HS_LOOP(PLUMB_OP_ABS, false); return true;
    case PLUMB_OP_EXPONENTIAL: *any = HS_LOOP(PLUMB_OP_EXPONENTIAL, false); return true;
    case PLUMB_OP_LOGISTIC: *any = HS_LOOP(PLUMB_OP_LOGISTIC, false); return true;
    case PLUMB_OP_TANH: *any = HS_LOOP(PLUMB_OP_TANH, false); return true;
    default: return false;
    }
}
#undef HS_LOOP2
#undef HS_LOOP
#undef HS_LOOP_R

/* The flagged lanes of a register step: the kernel on their own operand
 * patterns (gathered), the results scattered back into o. */
HS_TARGET static bool hs_fix(rt_exec *x, const fstep *st, const uint16_t *p0, const uint16_t *p1, uint16_t *o,
                             const __mmask16 *fl, unsigned nv)
{
    uint16_t ga[HS_BLOCK], gc[HS_BLOCK], gr[HS_BLOCK];
    uint16_t idx[HS_BLOCK];
    size_t q = 0;
    for (unsigned k = 0; k < nv; k++)
        for (unsigned b = fl[k]; b; b &= b - 1) {
            unsigned l = 16 * k + (unsigned)__builtin_ctz(b);
            idx[q] = (uint16_t)l;
            ga[q] = p0[l];
            gc[q] = st->n_in > 1 ? p1[l] : 0;
            q++;
        }
    const void *pin[2] = {ga, gc};
    if (!rt_ew_tile(x, st->op, pin, gr, q))
        return false;
    for (size_t i = 0; i < q; i++)
        o[idx[i]] = gr[i];
    return true;
}

/* A row group's per-row half step (one value per row, m <= HS_BLOCK of
 * them: layer_norm's / N and + eps) with a register op: the segment's
 * loop and fix-up instead of a kernel dispatch per unit. False when the
 * op is not a register op (the caller runs the kernel). */
HS_TARGET static bool hs_rows(rt_exec *x, const fstep *st, const void *const *ins, uint8_t *dst, size_t m,
                              bool *ok)
{
    uint16_t o[HS_BLOCK] __attribute__((aligned(64)));
    __mmask16 fl[HS_BLOCK / 16], any = 0;
    const uint16_t *p0 = ins[0], *p1 = st->n_in > 1 ? ins[1] : p0;
    if (!hs_step(st->op->code, st->op->results[0]->type.dtype == PLUMB_F16, false, p0, p1, false, o, m, fl, &any))
        return false;
    *ok = !any || hs_fix(x, st, p0, p1, o, fl, (unsigned)((m + 15) / 16));
    memcpy(dst, o, m * 2);
    return true;
}

typedef struct prefetch prefetch;
static void prefetch_upto(prefetch *pf, size_t num, size_t den);

/* pf: the next unit's prefetch, asked for block by block (the segment
 * replaces the unit's steps, over which run_unit spreads it) */
HS_TARGET static bool run_hseg(frun *fr, uint8_t *slots, const uint64_t *off, const size_t *cnt, bool first_unit,
                               uint32_t s0, const void **ins0, prefetch *pf)
{
    const rt_fused *g = fr->g;
    uint32_t n = g->steps[s0].hseg;
    const void *li[RT_HSEG_MAX][16];
    uint8_t *dst[RT_HSEG_MAX];
    memcpy(li[0], ins0, g->steps[s0].n_in * sizeof *ins0);
    for (uint32_t j = 1; j < n; j++)
        if (!step_ins(fr, slots, off, cnt, first_unit, s0 + j, li[j]))
            return false;
    for (uint32_t j = 0; j < n; j++)
        dst[j] = g->steps[s0 + j].hstore ? step_dst(fr, slots, off, &g->steps[s0 + j]) : NULL;
    size_t rows = g->rows ? cnt[1] : 1, L = g->rows ? (size_t)g->row_len : cnt[0];
    bool nebf = rt_hseg_bf16cvt(-1);
    uint16_t hb[RT_HSEG_MAX][HS_BLOCK] __attribute__((aligned(64)));
    /* vp[j]: where step j's block is, hb[j] or, for a stored value in a
     * whole block, its memory (written there by the step itself: a copy
     * of the block afterwards was a fifth of run_hseg's own samples in
     * softmax_bf16). Slot planning keeps every operand the segment reads
     * live to its last step, so that memory is no operand's. bv[j]: the
     * pattern a row broadcast's hb[j] holds in all its HS_BLOCK lanes
     * (refilled only when it changes, not per block), or none (> 0xffff). */
    const uint16_t *vp[RT_HSEG_MAX];
    uint32_t bv[RT_HSEG_MAX];
    for (uint32_t j = 0; j < n; j++)
        bv[j] = 0x10000u;
    size_t nblk = rows * ((L + HS_BLOCK - 1) / HS_BLOCK), blk = 0;
    for (size_t r = 0; r < rows; r++)
        for (size_t e = 0; e < L; e += HS_BLOCK) {
            size_t m = L - e < HS_BLOCK ? L - e : HS_BLOCK, base = r * L + e;
            prefetch_upto(pf, ++blk, nblk);
            unsigned nv = (unsigned)((m + 15) / 16);
            for (uint32_t j = 0; j < n; j++) {
                const fstep *st = &g->steps[s0 + j];
                uint16_t *o = hb[j];
                bool direct = dst[j] && !st->hstream && m == HS_BLOCK && st->kind != S_ROWB;
                if (direct)
                    o = (uint16_t *)dst[j] + base;
                vp[j] = o;
                if (st->kind == S_ROWB) {
                    uint16_t c = ((const uint16_t *)li[j][0])[r];
                    if (bv[j] != c) {
                        __m512i cv = _mm512_set1_epi16((short)c);
                        for (unsigned k = 0; k < HS_BLOCK / 32; k++)
                            _mm512_store_si512((__m512i *)(o + 32 * k), cv);
                        bv[j] = c;
                    }
                } else {
                    /* each operand apart: filling an array of them in a loop
                     * and reading it back whole stalled on store forwarding */
                    const uint16_t *p0 = st->hsrc[0] >= 0 ? vp[st->hsrc[0]] : (const uint16_t *)li[j][0] + base;
                    const uint16_t *p1 = st->n_in < 2       ? p0
                                         : st->hsrc[1] >= 0 ? vp[st->hsrc[1]]
                                                            : (const uint16_t *)li[j][1] + base;
                    const uint16_t *p2 = st->n_in < 3       ? p0
                                         : st->hsrc[2] >= 0 ? vp[st->hsrc[2]]
                                                            : (const uint16_t *)li[j][2] + base;
                    const uint16_t *p[3] = {p0, p1, p2};
                    __mmask16 fl[HS_BLOCK / 16], any = 0;
                    bool cb = st->n_in == 2 && st->hsrc[1] >= 0 && g->steps[s0 + (uint32_t)st->hsrc[1]].kind == S_ROWB;
                    bool reg = hs_step(st->op->code, st->op->results[0]->type.dtype == PLUMB_F16, nebf, p[0], p[1],
                                       cb, o, m, fl, &any);
                    if (!reg) {
                        /* not a register op: the kernel on the block */
                        const void *pin[3] = {p[0], p[1], p[2]};
                        if (!rt_ew_tile(fr->x, st->op, pin, o, m))
                            return false;
                    } else if (any && !hs_fix(fr->x, st, p[0], p[1], o, fl, nv)) {
                        return false;
                    }
                }
                if (!dst[j] || direct)
                    continue;
                uint16_t *d = (uint16_t *)dst[j] + base;
                if (st->hstream && m == HS_BLOCK && ((uintptr_t)d & 63) == 0) {
                    for (unsigned k = 0; k < HS_BLOCK / 32; k++)
                        _mm512_stream_si512((__m512i *)(d + 32 * k), _mm512_load_si512(o + 32 * k));
                } else if (st->hstream && m == HS_BLOCK) {
                    /* a group output not 64-byte aligned (large tensors
                     * come from calloc, 16 bytes past a page): its whole
                     * lines streamed too, the two partial ones, shared with
                     * the neighbouring blocks, through the cache. Plain
                     * copies here read each output line for ownership
                     * first: a third of run_hseg's samples in softmax_bf16
                     * (perf annotate), 8% of the program. */
                    stream_copy_avx512((uint8_t *)d, (const uint8_t *)o, HS_BLOCK * 2);
                } else if (m == HS_BLOCK) {
                    /* a whole block by vectors: memcpy of the 512 bytes
                     * compiled to rep movsq, 62% of run_hseg's own samples
                     * in softmax_bf16 (perf annotate) */
                    for (unsigned k = 0; k < HS_BLOCK / 32; k++)
                        _mm512_storeu_si512((__m512i *)(d + 32 * k), _mm512_load_si512(o + 32 * k));
                } else {
                    memcpy(d, o, m * 2);
                }
            }
        }
    return true;
}
#endif

/* Runs every step on one tile (loop groups) or one row (row groups).
 * off[s], n[s]: element offset and count in space s. */
/* The next unit's group inputs, asked for a part at a time while this unit
 * computes. A unit reads its inputs from memory at its first steps and then
 * works in L1, where the hardware prefetcher, which follows demand reads,
 * stops; without this every unit would start with a full trip to memory.
 * The requests are spread over the unit's steps: issued all at once (a
 * measured variant), they filled the miss buffers, stalled the step that
 * issued them and gained nothing; spread, the 16M-element tanh/logistic
 * chain went from 1.94 to 1.61 ns/element on one thread (docs/bench.md). */
#define PF_MAX 4
typedef struct prefetch {
    const char *p[PF_MAX];    /* start of the next unit in each input */
    size_t lines[PF_MAX];     /* 64-byte lines of it */
    size_t done[PF_MAX];      /* lines asked for so far */
    uint32_t n;
} prefetch;

static void prefetch_plan(const frun *fr, uint64_t next_off, size_t next_cnt, prefetch *pf)
{
    const rt_fused *g = fr->g;
    pf->n = 0;
    if (!RT_X86 || next_cnt == 0)
        return;
    for (uint32_t i = 0; i < g->n_pf && pf->n < PF_MAX; i++) {
        const fval *v = &g->vals[g->pf_vals[i]];
        pf->p[pf->n] = (const char *)fr->in[v->io]->data + next_off * v->es;
        pf->lines[pf->n] = (next_cnt * v->es + 63) / 64;
        pf->done[pf->n] = 0;
        pf->n++;
    }
}

/* Asks for the first num/den of every input's next unit. */
static void prefetch_upto(prefetch *pf, size_t num, size_t den)
{
#if RT_X86
    for (uint32_t i = 0; i < pf->n; i++) {
        size_t to = pf->lines[i] * num / den;
        for (; pf->done[i] < to; pf->done[i]++)
            _mm_prefetch(pf->p[i] + pf->done[i] * 64, _MM_HINT_T0);
    }
#else
    (void)pf, (void)num, (void)den;
#endif
}

static bool run_unit(frun *fr, uint8_t *slots, const uint64_t *off, const size_t *cnt, bool first_unit,
                     size_t next_cnt)
{
    const rt_fused *g = fr->g;
    const void *ptr_in[16];
    const void **ins = ptr_in;
    prefetch pf;
    prefetch_plan(fr, off[0] + cnt[0], next_cnt, &pf);
    /* a row group's unit is cnt[1] consecutive rows of L elements: steps
     * over full rows that work row by row (sums, maxima, per-row operands,
     * row broadcasts) loop over them; the others take the unit at once */
    size_t rows = g->rows ? cnt[1] : 1, L = g->rows ? (size_t)g->row_len : cnt[0];
    uint8_t aside[16][RT_RPU_MAX * 8];   /* per-row operands copied aside (rows_aside) */
    for (uint32_t s = 0; s < g->n_steps; s++) {
        const fstep *st = &g->steps[s];
        prefetch_upto(&pf, s + 1, g->n_steps);
        if (!step_ins(fr, slots, off, cnt, first_unit, s, ins))
            return false;
        rows_aside(g, st, ins, rows, aside);
#if RT_X86
        if (st->hseg >= 2 && cnt[0] && rt_isa(fr->x) == PLUMB_ISA_AVX512) {
            if (!run_hseg(fr, slots, off, cnt, first_unit, s, ins, &pf))
                return false;
            s += st->hseg - 1u;
            continue;
        }
#endif
        if (RT_X86 && st->chain >= 2 && cnt[0] && rt_isa(fr->x) == PLUMB_ISA_AVX512) {
            if (!run_chain(fr, slots, off, cnt, first_unit, s, ins, cnt[0]))
                return false;
            s += st->chain - 1u;
            continue;
        }
        const fval *ov = &g->vals[st->out];
        uint8_t *dst = step_dst(fr, slots, off, st);
        size_t n = cnt[st->space];
        uint8_t *streamed = NULL;   /* the destination, when dst is the L1 tile instead */
        if (st->stream && !st->arith && dst && fr->stream) {
            streamed = dst;
            dst = slots + (size_t)g->stream_slot * g->slot_bytes;
        }
        if (st->sqsum && n) {
            const fstep *sum = &g->steps[s + 2];
            const fval *sv = &g->vals[sum->out];
            uint8_t *sdst = sv->kind == FV_OUT ? at(fr->out[sv->io]->data, off[sv->space] * sv->es)
                                               : slots + (size_t)sv->slot * g->slot_bytes;
            float init;
            memcpy(&init, fr->in[sum->init]->data, 4);
            for (size_t r = 0; r < rows; r++) {
                float m;
                memcpy(&m, (const float *)ins[1] + r, 4);
                float v = init + run_sqsum(rt_isa(fr->x), (const float *)ins[0] + r * L, m,
                                           (float *)dst + r * L, L);
                memcpy(sdst + r * 4, &v, 4);
            }
            s += 2;
            continue;
        }
#if RT_X86
        if (st->expsum && n && rt_isa(fr->x) == PLUMB_ISA_AVX512) {
            const fstep *ex = &g->steps[s + 1], *sum = &g->steps[s + 2];
            uint8_t *edst = step_dst(fr, slots, off, ex);
            const fval *sv = &g->vals[sum->out];
            uint8_t *sdst = sv->kind == FV_OUT ? at(fr->out[sv->io]->data, off[sv->space] * sv->es)
                                               : slots + (size_t)sv->slot * g->slot_bytes;
            float init;
            memcpy(&init, fr->in[sum->init]->data, 4);
            rt_vmath_f32_fn exp32 = rt_vmath_f32(PLUMB_OP_EXPONENTIAL, PLUMB_ISA_AVX512);
            for (size_t r = 0; r < rows; r++) {
                float m;
                memcpy(&m, (const float *)ins[1] + r, 4);
                float v = init + run_expsum((const float *)ins[0] + r * L, m, (float *)edst + r * L, L, exp32);
                memcpy(sdst + r * 4, &v, 4);
            }
            s += 2;
            continue;
        }
#endif
        switch (st->kind) {
        case S_EW:
            if (st->arith && st->per_row && st->space == 0) {
                /* a per-row operand: row by row, its element r */
                for (size_t r = 0; r < rows; r++)
                    row_arith(rt_isa(fr->x), st->op->code,
                              (const float *)ins[0] + ((st->per_row & 1) ? r : r * L),
                              (const float *)ins[1] + ((st->per_row & 2) ? r : r * L), st->per_row,
                              (float *)dst + r * L, L, st->stream);
            } else if (st->arith) {
                row_arith(rt_isa(fr->x), st->op->code, ins[0], ins[1], st->per_row, (float *)dst, n, st->stream);
            } else if (RT_X86 && st->hrows && n <= HS_BLOCK && rt_isa(fr->x) == PLUMB_ISA_AVX512) {
#if RT_X86
                bool ok = true;
                if (!hs_rows(fr->x, st, ins, dst, n, &ok) && !rt_ew_tile(fr->x, st->op, ins, dst, n))
                    return false;
                if (!ok)
                    return false;
#endif
            } else if (n && !rt_ew_tile(fr->x, st->op, ins, dst, n)) {
                return false;
            }
            break;
        case S_SUM32: {
            float init;
            memcpy(&init, fr->in[st->init]->data, 4);
            for (size_t r = 0; r < rows; r++) {
                float v = init + rt_sum_f32((const float *)ins[0] + r * L, L, rt_isa(fr->x));
                memcpy(dst + r * 4, &v, 4);
            }
            break;
        }
        case S_SUM64: {
            double init;
            memcpy(&init, fr->in[st->init]->data, 8);
            for (size_t r = 0; r < rows; r++) {
                double v = init + rt_sum_f64((const double *)ins[0] + r * L, L, rt_isa(fr->x));
                memcpy(dst + r * 8, &v, 8);
            }
            break;
        }
        case S_MAX32: {
            float init;
            memcpy(&init, fr->in[st->init]->data, 4);
            for (size_t r = 0; r < rows; r++) {
                float v = max_ieee(init, rt_max_f32((const float *)ins[0] + r * L, L, rt_isa(fr->x)));
                /* the reduce kernel folds in double: a NaN comes back quieted */
                uint32_t rb;
                memcpy(&rb, &v, 4);
                if ((rb & 0x7fffffffu) > 0x7f800000u)
                    rb |= 0x00400000u;
                memcpy(dst + r * 4, &rb, 4);
            }
            break;
        }
        case S_FOLDH: {
            uint16_t init;
            memcpy(&init, fr->in[st->init]->data, 2);
            plumb_opcode body = st->op->regions[0].first->code;
            for (size_t r = 0; r < rows; r++) {
                uint16_t v = rt_fold_half_row(st->op->operands[0]->type.dtype, body,
                                              (const uint16_t *)ins[0] + r * L, L, init, rt_isa(fr->x));
                memcpy(dst + r * 2, &v, 2);
            }
            break;
        }
        case S_ROWB:
            for (size_t r = 0; r < rows; r++)
                fill(dst + r * L * ov->es, (const uint8_t *)ins[0] + r * ov->es, ov->es, L);
            break;
        }
        if (streamed)
            stream_copy(streamed, dst, n * ov->es);
    }
    prefetch_upto(&pf, 1, 1);   /* the parts of steps a fused chain skipped */
    return true;
}

/* ---- loop groups in registers ----------------------------------------------------------
 * A loop group of regs_op's f32 ops (F->regs) runs at the AVX-512 level as
 * blocks of RG_BLOCK elements: each step over the block's vectors, its
 * operands read from the inputs in place or from per-value block buffers
 * (2 KiB together for a small group, in L1; a scalar broadcast's buffer is
 * filled once), the transcendentals inlined from math_x16.h. Against the
 * tile path this drops the per-tile kernel dispatch, the materialized
 * broadcasts' reads, the tile trips of the intermediates and the copy of
 * a streamed result, and reads the inputs in one sequential sweep, which
 * the hardware prefetcher follows.
 *
 * Bits: every operation is the tile kernel's on each lane it does not
 * flag (IEEE add/subtract/multiply/divide, sign operations, and the same
 * x16_* functions x16_arr_* runs), so a block is stored only when no lane
 * was flagged and no result lane is NaN. Every op here returns NaN for a
 * NaN operand, so a NaN met anywhere (an input's, or one an operation
 * made: inf - inf, 0 * inf, 0 / 0) is in a result; the NaN bits (payload,
 * sign) are where the two paths may differ, so such a block, and one with
 * a flagged lane, is recomputed by the tile path's steps (run_unit), which
 * gives exactly the unfused bits. The chunk's last partial block takes the
 * same path. */
#define RG_VECS 8u                    /* vectors per unrolled group */
#define RG_BLOCK (4u * 16u * RG_VECS)  /* 512 elements: four groups per step and block */

#if RT_X86
#define RG_TARGET __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")))

/* One step of a register run as the block loop needs it, resolved once
 * per chunk by run_regs (regs_steps): everything but the block's element
 * offset e. Reading it from the fstep/fval/op structures per block and
 * step (operand kinds, result type, buffers, the stream and alignment
 * tests) was the largest part of run_regs' own work besides the
 * arithmetic: about a sixth of gelu's erf form (perf annotate). */
typedef struct rg_step {
    plumb_opcode code;
    bool fl;                  /* f32 result: NaN-checked when stored; else 32-bit integer */
    bool sg;                  /* i32 (signed max/min) */
    bool xsc, ysc;            /* operand a scalar broadcast: every element xc / yc */
    bool keep;                /* result read by a later step: kept in its block buffer */
    bool nt;                  /* stored with streaming stores (the tensor is 64-byte aligned) */
    float xc, yc;
    const float *xsrc, *ysrc; /* operand read in place from a group input (+ e), else NULL */
    const float *xb, *yb;     /* else the operand's block buffer */
    float *o;                 /* the result's block buffer */
    float *d;                 /* the result's tensor (+ e): a group result, else NULL */
} rg_step;

/* One block of RG_BLOCK elements from element e: every step over the
 * block's vectors; results stored to their tensors as they are computed
 * (with the NaN check), temporaries and results read later into their
 * buffers. The loops are unswitched on whether the step stores a group
 * result: a temporary (most steps) is one store per vector, with no
 * per-vector tests of the result's kind (those tests were a fifth of the
 * arithmetic steps' instructions). */
RG_TARGET static void regs_block(const rg_step *sd, uint32_t n_steps, size_t e, __mmask16 *bad)
{
    __mmask16 b = 0;
    for (uint32_t s = 0; s < n_steps; s++) {
        const rg_step *q = &sd[s];
        const float *x = q->xsrc ? q->xsrc + e : q->xb;
        const float *y = q->ysrc ? q->ysrc + e : q->yb;
        __m512 xs = _mm512_set1_ps(q->xc), ys = _mm512_set1_ps(q->yc);
        bool xsc = q->xsc, ysc = q->ysc, fl = q->fl, sg = q->sg;
        float *o = q->o, *d = q->d ? q->d + e : NULL;
        bool keep = q->keep, nt = q->nt;
        /* each result vector r of vector k: kept, and/or stored with the
         * NaN check */
#define RG_PUT(k, r)                                                                               \
    do {                                                                                           \
        __m512 r_ = (r);                                                                           \
        if (keep)                                                                                  \
            _mm512_store_ps(o + 16 * (k), r_);                                                     \
        if (fl)                                                                                    \
            b |= _mm512_cmp_ps_mask(r_, r_, _CMP_UNORD_Q);                                         \
        if (nt)                                                                                    \
            _mm512_stream_ps(d + 16 * (k), r_);                                                    \
        else                                                                                       \
            _mm512_storeu_ps(d + 16 * (k), r_);                                                    \
    } while (0)
#define RG_TMP(k, r) _mm512_store_ps(o + 16 * (k), (r))
#define RG_LOOP_P(expr, PUT)                                                                       \
    for (unsigned k0 = 0; k0 < RG_BLOCK / 16; k0 += RG_VECS)                                       \
        _Pragma("GCC unroll 8") for (unsigned k = k0; k < k0 + RG_VECS; k++)                       \
        {                                                                                          \
            __m512 a = xsc ? xs : _mm512_loadu_ps(x + 16 * k), c = ysc ? ys : _mm512_loadu_ps(y + 16 * k); \
            (void)c;                                                                               \
            PUT(k, (expr));                                                                        \
        }
#define RG_LOOP(expr)                                                                              \
    do {                                                                                           \
        if (!d) {                                                                                  \
            RG_LOOP_P(expr, RG_TMP)                                                                \
        } else {                                                                                   \
            RG_LOOP_P(expr, RG_PUT)                                                                \
        }                                                                                          \
    } while (0);
#define RG_FLAGGED_P(fn, PUT)                                                                      \
    _Pragma("GCC unroll 1") /* one vector a trip: unrolled by 2 or 4 measured 1-2% slower */       \
    for (unsigned k = 0; k < RG_BLOCK / 16; k++) {                                                 \
        __mmask16 f;                                                                               \
        PUT(k, fn(xsc ? xs : _mm512_loadu_ps(x + 16 * k), &f));                                    \
        b |= f;                                                                                    \
    }
#define RG_FLAGGED(fn)                                                                             \
    do {                                                                                           \
        if (!d) {                                                                                  \
            RG_FLAGGED_P(fn, RG_TMP)                                                               \
        } else {                                                                                   \
            RG_FLAGGED_P(fn, RG_PUT)                                                               \
        }                                                                                          \
    } while (0);
#define RG_I(e) _mm512_castsi512_ps(e)
#define RG_A _mm512_castps_si512(a)
#define RG_C _mm512_castps_si512(c)
        if (!fl) {
            switch (q->code) {
            case PLUMB_OP_ADD: RG_LOOP(RG_I(_mm512_add_epi32(RG_A, RG_C))) break;
            case PLUMB_OP_SUBTRACT: RG_LOOP(RG_I(_mm512_sub_epi32(RG_A, RG_C))) break;
            case PLUMB_OP_MULTIPLY: RG_LOOP(RG_I(_mm512_mullo_epi32(RG_A, RG_C))) break;
            case PLUMB_OP_AND: RG_LOOP(RG_I(_mm512_and_si512(RG_A, RG_C))) break;
            case PLUMB_OP_OR: RG_LOOP(RG_I(_mm512_or_si512(RG_A, RG_C))) break;
            case PLUMB_OP_XOR: RG_LOOP(RG_I(_mm512_xor_si512(RG_A, RG_C))) break;
            case PLUMB_OP_SHIFT_LEFT: RG_LOOP(RG_I(_mm512_sllv_epi32(RG_A, RG_C))) break;
            case PLUMB_OP_SHIFT_RIGHT_LOGICAL: RG_LOOP(RG_I(_mm512_srlv_epi32(RG_A, RG_C))) break;
            case PLUMB_OP_SHIFT_RIGHT_ARITHMETIC:
                /* srav fills with the sign for counts above 31, any count read unsigned */
                RG_LOOP(RG_I(_mm512_srav_epi32(RG_A, RG_C))) break;
            case PLUMB_OP_MAXIMUM:
                if (sg) {
                    RG_LOOP(RG_I(_mm512_max_epi32(RG_A, RG_C)))
                } else {
                    RG_LOOP(RG_I(_mm512_max_epu32(RG_A, RG_C)))
                }
                break;
            case PLUMB_OP_MINIMUM:
                if (sg) {
                    RG_LOOP(RG_I(_mm512_min_epi32(RG_A, RG_C)))
                } else {
                    RG_LOOP(RG_I(_mm512_min_epu32(RG_A, RG_C)))
                }
                break;
            case PLUMB_OP_NEGATE: RG_LOOP(RG_I(_mm512_sub_epi32(_mm512_setzero_si512(), RG_A))) break;
            default: RG_LOOP(RG_I(_mm512_xor_si512(RG_A, _mm512_set1_epi32(-1)))) break;   /* not */
            }
            continue;
        }
#undef RG_I
#undef RG_A
#undef RG_C
        switch (q->code) {
        case PLUMB_OP_ADD: RG_LOOP(_mm512_add_ps(a, c)) break;
        case PLUMB_OP_SUBTRACT: RG_LOOP(_mm512_sub_ps(a, c)) break;
        case PLUMB_OP_MULTIPLY: RG_LOOP(_mm512_mul_ps(a, c)) break;
        case PLUMB_OP_DIVIDE: RG_LOOP(_mm512_div_ps(a, c)) break;
        case PLUMB_OP_NEGATE: RG_LOOP(_mm512_xor_ps(a, _mm512_set1_ps(-0.0f))) break;
        case PLUMB_OP_ABS: RG_LOOP(_mm512_andnot_ps(_mm512_set1_ps(-0.0f), a)) break;
        case PLUMB_OP_TANH: RG_FLAGGED(x16_tanh) break;
        case PLUMB_OP_LOGISTIC: RG_FLAGGED(x16_logistic) break;
        case PLUMB_OP_ERF: RG_FLAGGED(rt_x16_erf) break;   /* gelu's erf form stays in registers */
        default: RG_FLAGGED(x16_exp) break;   /* regs_op admits no other */
        }
#undef RG_PUT
#undef RG_TMP
#undef RG_LOOP_P
#undef RG_LOOP
#undef RG_FLAGGED_P
#undef RG_FLAGGED
    }
    *bad = b;
}

/* Elements [e0, e1) of a register-run loop group; slots: the chunk's tile
 * slots, used by the recomputed blocks. */
RG_TARGET static bool run_regs(frun *fr, uint8_t *slots, uint64_t e0, uint64_t e1)
{
    const rt_fused *g = fr->g;
    float buf[RT_REG_VALS][RG_BLOCK] __attribute__((aligned(64)));
    const float *src[RT_REG_VALS];
    float *dst[RT_REG_VALS], cv[RT_REG_VALS];
    bool scalar[RT_REG_VALS], kept[RT_REG_VALS];
    rg_step sd[RT_REG_VALS];
    if (g->n_steps > RT_REG_VALS)
        return false;   /* regs_ok admits no such group (each step makes a value) */
    memset(kept, 0, sizeof kept);
    for (uint32_t v = 0; v < g->n_vals; v++) {
        const fval *fv = &g->vals[v];
        src[v] = fv->kind == FV_IN ? (const float *)fr->in[fv->io]->data : NULL;
        dst[v] = fv->kind == FV_OUT ? (float *)fr->out[fv->io]->data : NULL;
        scalar[v] = fv->kind == FV_BCAST;
        cv[v] = 0.0f;
        if (scalar[v])
            memcpy(&cv[v], fr->in[fv->io]->data, 4);
    }
    for (uint32_t s = 0; s < g->n_steps; s++)
        for (uint32_t i = 0; i < g->steps[s].n_in; i++)
            kept[g->steps[s].in[i]] = true;   /* read by a step after its own */
    for (uint32_t s = 0; s < g->n_steps; s++) {
        const fstep *st = &g->steps[s];
        uint32_t xi = st->in[0], yi = st->in[st->n_in > 1 ? 1 : 0], oi = st->out;
        plumb_dtype rty = st->op->results[0]->type.dtype;
        sd[s] = (rg_step){
            .code = st->op->code,
            .fl = rty == PLUMB_F32,
            .sg = rty == PLUMB_I32,
            .xsc = scalar[xi],
            .ysc = scalar[yi],
            .keep = kept[oi] || !dst[oi],
            /* e advances by whole blocks (multiples of 64 bytes), so
             * the alignment of d + e is that of d */
            .nt = dst[oi] && st->stream && fr->stream && ((uintptr_t)(dst[oi] + e0) & 63) == 0,
            .xc = cv[xi],
            .yc = cv[yi],
            .xsrc = src[xi],
            .ysrc = src[yi],
            .xb = buf[xi],
            .yb = buf[yi],
            .o = buf[oi],
            .d = dst[oi],
        };
    }
    /* a bad block is stored first and rewritten after: that needs the
     * caller's promise that results and inputs do not share memory
     * (runtime/plan.c); checked, not assumed */
    for (uint32_t v = 0; v < g->n_vals; v++)
        for (uint32_t w = 0; dst[v] && w < g->n_vals; w++)
            if (src[w] && rt_f32_overlap(src[w] + e0, dst[v] + e0, (size_t)(e1 - e0))) {
                /* tile by tile, as run_chunk would (the slots hold one tile) */
                for (uint64_t t = e0; t < e1; t += RT_TILE) {
                    uint64_t off[2] = {t, 0};
                    size_t cnt[2] = {(size_t)(e1 - t < RT_TILE ? e1 - t : RT_TILE), 0};
                    if (!run_unit(fr, slots, off, cnt, t == e0, 0))
                        return false;
                }
                return true;
            }
    bool materialized = false;
    uint64_t e = e0;
    for (; e + RG_BLOCK <= e1; e += RG_BLOCK) {
        __mmask16 bad;
        regs_block(sd, g->n_steps, (size_t)e, &bad);
        if (__builtin_expect(bad != 0, 0)) {
            /* rewritten whole by the tile steps (RG_BLOCK <= RT_TILE:
             * the slots hold it) */
            uint64_t off[2] = {e, 0};
            size_t cnt[2] = {RG_BLOCK, 0};
            if (!run_unit(fr, slots, off, cnt, !materialized, 0))
                return false;
            materialized = true;
        }
    }
    if (e < e1) {
        uint64_t off[2] = {e, 0};
        size_t cnt[2] = {(size_t)(e1 - e), 0};
        if (!run_unit(fr, slots, off, cnt, !materialized, 0))
            return false;
    }
    return true;
}
_Static_assert(RG_BLOCK <= RT_TILE && RG_BLOCK % 16 == 0, "a recomputed block fits the tile slots");
#endif

static void run_chunk(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk)
{
    frun *fr = ctx;
    const rt_fused *g = fr->g;
    /* No slots, no scratch: NULL + 0 is undefined (clang's UBSan checks it). */
    uint8_t *slots = fr->scratch ? fr->scratch + (size_t)chunk * g->n_slots * g->slot_bytes : NULL;
#if RT_X86
    if (g->regs && rt_isa(fr->x) == PLUMB_ISA_AVX512) {
        uint64_t e1 = end * RT_TILE < g->numel ? end * RT_TILE : g->numel;
        if (!run_regs(fr, slots, begin * RT_TILE, e1))
            atomic_store(&fr->failed, true);
        if (fr->stream)
            _mm_sfence();
        return;
    }
#endif
    for (uint64_t u = begin; u < end && !atomic_load(&fr->failed); u++) {
        uint64_t off[2];
        size_t cnt[2];
        if (g->rows) {
            uint64_t r0 = u * g->rpu, nr = g->n_rows - r0 < g->rpu ? g->n_rows - r0 : g->rpu;
            off[0] = r0 * g->row_len;
            cnt[0] = (size_t)(nr * g->row_len);
            off[1] = r0;
            cnt[1] = (size_t)nr;
        } else {
            off[0] = u * RT_TILE;
            cnt[0] = (size_t)(g->numel - off[0] < RT_TILE ? g->numel - off[0] : RT_TILE);
            off[1] = 0;
            cnt[1] = 0;
        }
        /* units are contiguous in space 0; the next one of this chunk */
        uint64_t per = g->rows ? g->row_len * g->rpu : RT_TILE, next_off = off[0] + cnt[0];
        size_t next_cnt = u + 1 < end ? (size_t)(g->numel - next_off < per ? g->numel - next_off : per) : 0;
        if (!run_unit(fr, slots, off, cnt, u == begin, next_cnt))
            atomic_store(&fr->failed, true);
    }
#if RT_X86
    /* this thread's streamed stores (loop groups' results, row groups'
     * row_arith and chain results) are visible before the group ends */
    if (rt_isa(fr->x) == PLUMB_ISA_AVX512)
        _mm_sfence();
#endif
}

uint32_t rt_fused_chains(const rt_fused *g, uint32_t *links)
{
    uint32_t n = 0, l = 0;
    for (uint32_t s = 0; g && s < g->n_steps; s++)
        if (g->steps[s].chain >= 2) {
            n++;
            l += g->steps[s].chain;
        }
    if (links)
        *links = l;
    return n;
}

bool rt_fused_regs(const rt_fused *g) { return g && g->regs; }

uint32_t rt_fused_hsegs(const rt_fused *g, uint32_t *steps)
{
    uint32_t n = 0, k = 0;
    for (uint32_t s = 0; g && s < g->n_steps; s++)
        if (g->steps[s].hseg) {
            n++;
            k += g->steps[s].hseg;
        }
    if (steps)
        *steps = k;
    return n;
}

void rt_fused_row_passes(const rt_fused *g, uint32_t *sqsum, uint32_t *expsum)
{
    *sqsum = *expsum = 0;
    for (uint32_t s = 0; g && s < g->n_steps; s++) {
        *sqsum += g->steps[s].sqsum;
        *expsum += g->steps[s].expsum;
    }
}

const ir_value *rt_fused_space(const rt_fused *g) { return g->sval; }

bool rt_fused_dynamic(const rt_fused *g) { return g && g->dyn; }

bool rt_fused_rows(const rt_fused *g) { return g && g->rows; }

/* The group as a static compile of this run's sizes would have built it:
 * extents from S's actual dims (space), each broadcast's dims and strides
 * from its operand's actual dims. Checks first that every tensor the group
 * reads or writes in place has S's (or its rows') element count and every
 * broadcast operand fits its op, so no index can leave a tensor whatever
 * the shapes (ir_shape_infer has already checked them; this keeps the
 * kernel safe on its own). */
static bool fused_for_run(rt_exec *x, const rt_fused *g, plumb_tensor *const *in, plumb_tensor *const *out,
                          const plumb_tensor *space, rt_fused *r)
{
    uint32_t R = g->sval->type.rank;
    if (!space || space->rank != R)
        return rt_fail(x, g->anchor, PLUMB_ERR_INVALID, "fused group: its iteration space has no run-time shape");
    for (uint32_t i = 0; i < R; i++)
        if (space->dims[i] < 0)
            return rt_fail(x, g->anchor, PLUMB_ERR_INVALID, "fused group: dimension %u of its space is negative", i);
    *r = *g;
    rt_fusion_extents(r, R, space->dims);
    fval *vals = NULL;
    for (uint32_t v = 0; v < g->n_vals; v++) {
        const fval *fv = &g->vals[v];
        if (fv->kind == FV_IN || fv->kind == FV_OUT) {
            const plumb_tensor *t = fv->kind == FV_IN ? in[fv->io] : out[fv->io];
            uint64_t want = fv->space ? r->n_rows : r->numel;
            if (plumb_tensor_numel(t) != want)
                return rt_fail(x, g->anchor, PLUMB_ERR_INVALID,
                               "fused group: a tensor of %llu elements where this run's space has %llu",
                               (unsigned long long)plumb_tensor_numel(t), (unsigned long long)want);
            continue;
        }
        if (fv->kind != FV_BCAST || !fv->bop)
            continue;
        const ir_op *op = fv->bop;
        const plumb_tensor *src = in[fv->io];
        if (src->rank != op->a.dims.n || fv->rank != R)
            return rt_fail(x, op, PLUMB_ERR_INVALID, "fused broadcast: operand of rank %u for %u dimensions",
                           src->rank, op->a.dims.n);
        if (!vals) {
            vals = rt_scratch(x, g->anchor, (size_t)g->n_vals * sizeof *vals);
            if (!vals)
                return false;
            memcpy(vals, g->vals, (size_t)g->n_vals * sizeof *vals);
        }
        fval *nv = &vals[v];
        int64_t ist[PLUMB_MAX_RANK], st = 1;
        for (uint32_t i = src->rank; i-- > 0;) {
            ist[i] = st;
            st *= src->dims[i];
        }
        for (uint32_t j = 0; j < R; j++) {
            nv->dims[j] = space->dims[j];
            nv->stride[j] = 0;
        }
        for (uint32_t i = 0; i < src->rank; i++) {
            int64_t to = op->a.dims.v[i];
            if (to < 0 || (uint32_t)to >= R || (src->dims[i] != 1 && src->dims[i] != space->dims[to]))
                return rt_fail(x, op, PLUMB_ERR_INVALID,
                               "fused broadcast: operand dimension %u of size %lld does not fit result dimension %lld",
                               i, (long long)src->dims[i], (long long)to);
            if (src->dims[i] != 1)
                nv->stride[to] = ist[i];
        }
    }
    if (vals)
        r->vals = vals;
    return true;
}

bool rt_fused_run(rt_exec *x, const rt_fused *g, plumb_tensor *const *in, plumb_tensor *const *out,
                  const plumb_tensor *space)
{
    rt_fused dyn;
    if (g->dyn) {
        if (!fused_for_run(x, g, in, out, space, &dyn))
            return false;
        g = &dyn;
    }
    uint64_t units = g->rows ? (g->n_rows + g->rpu - 1) / g->rpu : (g->numel + RT_TILE - 1) / RT_TILE;
    if (units == 0)
        return true;
    uint64_t per_unit = g->rows ? (g->row_len ? g->row_len : 1) * g->rpu : RT_TILE;
    uint64_t grain = RT_FUSE_GRAIN / per_unit;
    if (grain == 0)
        grain = 1;
    uint32_t chunks = rt_parallel_chunks(x, units, grain);
    frun fr;
    memset(&fr, 0, sizeof fr);
    fr.x = x;
    fr.g = g;
    fr.in = in;
    fr.out = out;
#if RT_X86
    fr.stream = !g->rows && g->stream_slot >= 0 && rt_isa(x) == PLUMB_ISA_AVX512;
#endif
    atomic_init(&fr.failed, false);
    uint64_t bytes;
    if (plumb_mul_overflow_u64((uint64_t)chunks * g->n_slots, g->slot_bytes, &bytes) || bytes > SIZE_MAX)
        return rt_fail(x, g->anchor, PLUMB_ERR_LIMIT, "fused group scratch overflows");
    if (bytes) {
        fr.scratch = rt_scratch(x, g->anchor, (size_t)bytes);
        if (!fr.scratch)
            return false;
    }
    rt_parallel_for(x, units, grain, run_chunk, &fr);
    if (rt_fused_iotas(g))
        __atomic_fetch_add(&iota_runs_n, 1, __ATOMIC_RELAXED);
    if (atomic_load(&fr.failed))
        return rt_fail(x, g->anchor, PLUMB_ERR_UNSUPPORTED, "an op of a fused group has no tile kernel");
    return true;
}
