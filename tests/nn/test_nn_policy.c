/* The nn builder's canonicalization policies (docs/policies.md): buckets
 * with length masks, optional fields made always present, top_k's k and
 * MoE capacity clamped at build time. Each turns its leak (a new program
 * per step) into one compile per bucket or one in all, and gives the
 * values of the program it replaces, checked by hand or bit for bit
 * against the unclamped builder call on the reference. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plumb/ir.h"
#include "plumb/nn.h"
#include "plumb/ref.h"
#include "plumb/runtime.h"

static plumb_runtime *make_rt(void)
{
    plumb_runtime_options o;
    plumb_runtime_options_init(&o);
    o.threads = 1;
    o.policy = "none";
    o.cache_dir = "";
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_runtime *rt = plumb_runtime_create(&o, &d);
    assert_non_null(rt);
    return rt;
}

static uint64_t compiles(const plumb_runtime *rt)
{
    plumb_runtime_stats st;
    assert_true(plumb_runtime_stats_get(rt, NULL, &st));
    return st.compiles;
}

static plumb_tensor *i32_scalar(int32_t v)
{
    plumb_tensor *t = plumb_tensor_new(PLUMB_I32, 0, NULL, 0, NULL);
    assert_non_null(t);
    *(int32_t *)t->data = v;
    return t;
}

static plumb_tensor *i1_scalar(bool v)
{
    plumb_tensor *t = plumb_tensor_new(PLUMB_I1, 0, NULL, 0, NULL);
    assert_non_null(t);
    *(uint8_t *)t->data = v ? 1 : 0;
    return t;
}

static void finish(plumb_nn *nn, ir_value *const *vals, uint32_t n, ir_module *m)
{
    if (!plumb_nn_ok(nn))
        print_error("builder: %s\n", nn->d->msg);
    assert_true(plumb_nn_ok(nn));
    assert_true(plumb_nn_return(nn, vals, n));
    plumb_diag d;
    memset(&d, 0, sizeof d);
    bool ok = ir_verify(m, NULL, &d);
    if (!ok)
        print_error("ir_verify: %s\n", d.msg);
    assert_true(ok);
}

static void run_rt(plumb_runtime *rt, const ir_module *m, plumb_tensor *const *in, uint32_t n, plumb_tensor **out,
                   uint32_t n_out)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    bool ok = plumb_runtime_run(rt, m, NULL, in, n, out, n_out, NULL, &d);
    if (!ok)
        print_error("run: %s\n", d.msg);
    assert_true(ok);
}

/* plumb_nn_bucket picks the smallest bucket that fits, -1 beyond the last. */
static void bucket_choice(void **state)
{
    (void)state;
    static const int64_t b[3] = {16, 32, 64};
    assert_int_equal(plumb_nn_bucket(b, 3, 1), 16);
    assert_int_equal(plumb_nn_bucket(b, 3, 16), 16);
    assert_int_equal(plumb_nn_bucket(b, 3, 17), 32);
    assert_int_equal(plumb_nn_bucket(b, 3, 64), 64);
    assert_int_equal(plumb_nn_bucket(b, 3, 65), -1);
    assert_int_equal(plumb_nn_bucket(b, 3, 0), -1);
}

/* The varying sequence length of the seed scenario, built per step at its
 * bucket: x[L] padded to the bucket, a length mask zeroing the padding
 * before a sum, and an elementwise 2x+1 sliced back to L on the host.
 * 20 lengths in 1..64 with buckets {16, 32, 64} compile 3 programs (one
 * per bucket); the sum is 1 + 2 + ... + L = L(L+1)/2 and the elementwise
 * result 2i+3 for x_i = i + 1, exactly. */
static void buckets_one_compile_per_bucket(void **state)
{
    (void)state;
    static const int64_t lengths[20] = {5, 12, 7, 31, 64, 1, 18, 40, 9, 23, 50, 3, 27, 14, 61, 36, 11, 45, 20, 57};
    static const int64_t buckets[3] = {16, 32, 64};
    plumb_runtime *rt = make_rt();
    for (int s = 0; s < 20; s++) {
        int64_t len = lengths[s], size = plumb_nn_bucket(buckets, 3, len);
        assert_true(size >= len);
        ir_module *m = ir_module_new(NULL);
        plumb_nn nn;
        plumb_diag d;
        memset(&d, 0, sizeof d);
        assert_true(plumb_nn_init(&nn, m, &d));
        assert_true(plumb_nn_begin_func(&nn, "main", true));
        ir_value *x = plumb_nn_param(&nn, PLUMB_F32, 1, &size);
        ir_value *n = plumb_nn_param(&nn, PLUMB_I32, 0, NULL);
        ir_value *mask = plumb_nn_length_mask(&nn, n, 1, &size, 0);
        ir_value *xm = plumb_nn_select(&nn, mask, x, plumb_nn_full(&nn, PLUMB_F32, 1, &size, 0.0));
        int64_t d0 = 0;
        ir_value *sum = plumb_nn_reduce(&nn, xm, PLUMB_NN_SUM, &d0, 1);
        ir_value *y = plumb_nn_add(&nn, plumb_nn_mul(&nn, x, plumb_nn_full(&nn, PLUMB_F32, 1, &size, 2.0)),
                                   plumb_nn_full(&nn, PLUMB_F32, 1, &size, 1.0));
        ir_value *outs[2] = {sum, y};
        finish(&nn, outs, 2, m);

        plumb_tensor *xs = plumb_tensor_new(PLUMB_F32, 1, &len, 0, NULL);
        for (int64_t i = 0; i < len; i++)
            ((float *)xs->data)[i] = (float)(i + 1);
        /* the padding holds NaN: the mask, not the fill, must keep it out */
        plumb_tensor *xp = plumb_nn_pad_tensor(xs, 0, size, 0.0 / 0.0, &d);
        assert_non_null(xp);
        plumb_tensor *in[2] = {xp, i32_scalar((int32_t)len)}, *out[2] = {NULL, NULL};
        run_rt(rt, m, in, 2, out, 2);
        assert_true(*(float *)out[0]->data == (float)(len * (len + 1) / 2));
        plumb_tensor *yl = plumb_nn_unpad_tensor(out[1], 0, len, &d);
        assert_non_null(yl);
        assert_int_equal(yl->dims[0], len);
        for (int64_t i = 0; i < len; i++)
            assert_true(((float *)yl->data)[i] == (float)(2 * i + 3));
        plumb_tensor_free(yl);
        plumb_tensor_free(out[0]);
        plumb_tensor_free(out[1]);
        plumb_tensor_free(in[0]);
        plumb_tensor_free(in[1]);
        plumb_tensor_free(xs);
        ir_module_free(m);
    }
    assert_int_equal(compiles(rt), 3);
    plumb_runtime_destroy(rt);
}

/* pad/unpad refuse what does not fit and name it. */
static void pad_tensor_errors(void **state)
{
    (void)state;
    int64_t dims[2] = {2, 3};
    plumb_tensor *x = plumb_tensor_new(PLUMB_F32, 2, dims, 0, NULL);
    plumb_diag d;
    memset(&d, 0, sizeof d);
    assert_null(plumb_nn_pad_tensor(x, 1, 2, 0.0, &d));
    assert_non_null(strstr(d.msg, "below"));
    memset(&d, 0, sizeof d);
    assert_null(plumb_nn_unpad_tensor(x, 2, 1, &d));
    assert_non_null(strstr(d.msg, "out of range"));
    /* padding dimension 1 of a 2x3 keeps each row's 3 values in place */
    for (int i = 0; i < 6; i++)
        ((float *)x->data)[i] = (float)(i + 1);
    plumb_tensor *y = plumb_nn_pad_tensor(x, 1, 4, -1.0, &d);
    assert_non_null(y);
    static const float want[8] = {1, 2, 3, -1, 4, 5, 6, -1};
    assert_memory_equal(y->data, want, sizeof want);
    plumb_tensor_free(y);
    plumb_tensor_free(x);
}

/* Optional batch fields made always present: one program serves batches
 * with and without doc_ids; without, the field reads the absent value
 * (0), with, the batch's values. sum(x * (1 + doc_ids)): 1+2+3+4 = 10
 * absent, 1*2 + 2*3 + 3*4 + 4*5 = 40 present (doc_ids = 1, 2, 3, 4). */
static void optional_field_one_compile(void **state)
{
    (void)state;
    plumb_runtime *rt = make_rt();
    int64_t four = 4;
    for (int s = 0; s < 4; s++) {
        bool present = s % 2 == 1;
        ir_module *m = ir_module_new(NULL);
        plumb_nn nn;
        plumb_diag d;
        memset(&d, 0, sizeof d);
        assert_true(plumb_nn_init(&nn, m, &d));
        assert_true(plumb_nn_begin_func(&nn, "main", true));
        ir_value *x = plumb_nn_param(&nn, PLUMB_F32, 1, &four), *doc, *has;
        assert_true(plumb_nn_optional_param(&nn, PLUMB_F32, 1, &four, &doc, &has));
        ir_value *dv = plumb_nn_optional_value(&nn, doc, has, 0.0);
        ir_value *w = plumb_nn_add(&nn, dv, plumb_nn_full(&nn, PLUMB_F32, 1, &four, 1.0));
        int64_t d0 = 0;
        ir_value *r = plumb_nn_reduce(&nn, plumb_nn_mul(&nn, x, w), PLUMB_NN_SUM, &d0, 1);
        finish(&nn, &r, 1, m);
        plumb_tensor *xs = plumb_tensor_new(PLUMB_F32, 1, &four, 0, NULL);
        plumb_tensor *ds = plumb_tensor_new(PLUMB_F32, 1, &four, 0, NULL);   /* zeros when absent */
        for (int i = 0; i < 4; i++) {
            ((float *)xs->data)[i] = (float)(i + 1);
            if (present)
                ((float *)ds->data)[i] = (float)(i + 1);
        }
        /* an absent field's bits never matter: fill it with NaN */
        if (!present)
            for (int i = 0; i < 4; i++)
                ((float *)ds->data)[i] = 0.0f / 0.0f;
        plumb_tensor *in[3] = {xs, ds, i1_scalar(present)}, *out = NULL;
        run_rt(rt, m, in, 3, &out, 1);
        assert_true(*(float *)out->data == (present ? 40.0f : 10.0f));
        plumb_tensor_free(out);
        for (int i = 0; i < 3; i++)
            plumb_tensor_free(in[i]);
        ir_module_free(m);
    }
    assert_int_equal(compiles(rt), 1);
    plumb_runtime_destroy(rt);
}

/* top_k with k clamped to 8: k = 2, 3, 5, 6, 8 is one program; the
 * masked values sum to the k largest of a row holding 0..31 permuted
 * (31 + 30 + ... + (32 - k)), and the first k indices point at them. */
static void top_k_clamped_one_compile(void **state)
{
    (void)state;
    plumb_runtime *rt = make_rt();
    static const int ks[5] = {2, 3, 5, 6, 8};
    int64_t dims[2] = {1, 32};
    for (int s = 0; s < 5; s++) {
        ir_module *m = ir_module_new(NULL);
        plumb_nn nn;
        plumb_diag d;
        memset(&d, 0, sizeof d);
        assert_true(plumb_nn_init(&nn, m, &d));
        assert_true(plumb_nn_begin_func(&nn, "main", true));
        ir_value *x = plumb_nn_param(&nn, PLUMB_F32, 2, dims);
        ir_value *k = plumb_nn_param(&nn, PLUMB_I32, 0, NULL);
        ir_value *v, *i, *mask;
        assert_true(plumb_nn_top_k_clamped(&nn, x, 8, k, &v, &i, &mask));
        int64_t d1 = 1;
        ir_value *sum = plumb_nn_reduce(&nn, v, PLUMB_NN_SUM, &d1, 1);
        ir_value *outs[2] = {sum, i};
        finish(&nn, outs, 2, m);
        plumb_tensor *xs = plumb_tensor_new(PLUMB_F32, 2, dims, 0, NULL);
        for (int j = 0; j < 32; j++)
            ((float *)xs->data)[j] = (float)((j * 7) % 32);   /* 7 is coprime to 32: a permutation */
        plumb_tensor *in[2] = {xs, i32_scalar(ks[s])}, *out[2] = {NULL, NULL};
        run_rt(rt, m, in, 2, out, 2);
        float want = 0;
        for (int j = 0; j < ks[s]; j++)
            want += (float)(31 - j);
        assert_true(*(float *)out[0]->data == want);
        for (int j = 0; j < ks[s]; j++) {
            int32_t at = ((int32_t *)out[1]->data)[j];
            assert_true((at * 7) % 32 == 31 - j);
        }
        plumb_tensor_free(out[0]);
        plumb_tensor_free(out[1]);
        plumb_tensor_free(in[0]);
        plumb_tensor_free(in[1]);
        ir_module_free(m);
    }
    assert_int_equal(compiles(rt), 1);
    plumb_runtime_destroy(rt);
}

/* Builds the routing of 16 tokens over 4 experts, k = 2: the clamped form
 * (slots 8, capacity a parameter) or plain moe_route with `capacity`. */
static ir_module *moe_program(bool clamped, int64_t capacity)
{
    ir_module *m = ir_module_new(NULL);
    plumb_nn nn;
    static plumb_diag d;
    memset(&d, 0, sizeof d);
    assert_true(plumb_nn_init(&nn, m, &d));
    assert_true(plumb_nn_begin_func(&nn, "main", true));
    int64_t te[2] = {16, 4};
    ir_value *logits = plumb_nn_param(&nn, PLUMB_F32, 2, te);
    plumb_nn_moe_routing r;
    if (clamped) {
        ir_value *cap = plumb_nn_param(&nn, PLUMB_I32, 0, NULL);
        assert_true(plumb_nn_moe_route_clamped(&nn, logits, 2, 8, cap, true, &r));
    } else {
        assert_true(plumb_nn_moe_route(&nn, logits, 2, capacity, true, &r));
    }
    ir_value *outs[2] = {r.dispatch, r.combine};
    finish(&nn, outs, 2, m);
    return m;
}

static void ref_run(const ir_module *m, plumb_tensor *const *in, uint32_t n, plumb_tensor **out)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_ref_result res;
    memset(&res, 0, sizeof res);
    bool ok = plumb_ref_run(m, NULL, in, n, NULL, &res, &d);
    if (!ok)
        print_error("ref: %s\n", d.msg);
    assert_true(ok);
    out[0] = res.outputs[0];
    out[1] = res.outputs[1];
    res.outputs[0] = res.outputs[1] = NULL;
    plumb_ref_result_free(&res);
}

/* The MoE capacity drift (9 ... 13 in the seed; here 2 ... 6 so that
 * tokens are dropped) clamped at 8 slots: on the runtime one program for
 * every capacity, and on the reference its dispatch and combine are,
 * slot for slot, those of moe_route built with that capacity (bitwise),
 * with zeros in the slots above it. */
static void moe_capacity_clamped(void **state)
{
    (void)state;
    plumb_runtime *rt = make_rt();
    int64_t te[2] = {16, 4};
    plumb_tensor *logits = plumb_tensor_new(PLUMB_F32, 2, te, 0, NULL);
    for (int i = 0; i < 64; i++)   /* most tokens prefer experts 0 and 1: capacities overflow */
        ((float *)logits->data)[i] = (float)((i * 37) % 11) * 0.25f - (float)(i % 4);
    ir_module *cm = moe_program(true, 0);
    for (int64_t cap = 2; cap <= 6; cap++) {
        plumb_tensor *capt = i32_scalar((int32_t)cap);
        plumb_tensor *in[2] = {logits, capt}, *got[2], *rto[2] = {NULL, NULL}, *want[2];
        run_rt(rt, cm, in, 2, rto, 2);
        ref_run(cm, in, 2, got);
        ir_module *pm = moe_program(false, cap);
        ref_run(pm, &logits, 1, want);
        for (int o = 0; o < 2; o++) {
            const float *g = got[o]->data, *w = want[o]->data;
            for (int64_t t = 0; t < 16; t++)
                for (int64_t e = 0; e < 4; e++)
                    for (int64_t c = 0; c < 8; c++) {
                        float gv = g[(t * 4 + e) * 8 + c];
                        if (c < cap)
                            assert_memory_equal(&gv, &w[(t * 4 + e) * cap + c], sizeof gv);
                        else
                            assert_true(gv == 0.0f);
                    }
            plumb_tensor_free(got[o]);
            plumb_tensor_free(want[o]);
            plumb_tensor_free(rto[o]);
        }
        ir_module_free(pm);
        plumb_tensor_free(capt);
    }
    assert_int_equal(compiles(rt), 1);
    ir_module_free(cm);
    plumb_tensor_free(logits);
    plumb_runtime_destroy(rt);
}

/* Bad counts are named: k must be tensor<i32>. */
static void clamped_arguments_checked(void **state)
{
    (void)state;
    ir_module *m = ir_module_new(NULL);
    plumb_nn nn;
    plumb_diag d;
    memset(&d, 0, sizeof d);
    assert_true(plumb_nn_init(&nn, m, &d));
    assert_true(plumb_nn_begin_func(&nn, "main", true));
    int64_t dims[1] = {8};
    ir_value *x = plumb_nn_param(&nn, PLUMB_F32, 1, dims);
    ir_value *k = plumb_nn_param(&nn, PLUMB_F32, 0, NULL);
    ir_value *v, *i, *mask;
    assert_false(plumb_nn_top_k_clamped(&nn, x, 4, k, &v, &i, &mask));
    assert_non_null(strstr(d.msg, "k must be tensor<i32>"));
    ir_module_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bucket_choice),
        cmocka_unit_test(buckets_one_compile_per_bucket),
        cmocka_unit_test(pad_tensor_errors),
        cmocka_unit_test(optional_field_one_compile),
        cmocka_unit_test(top_k_clamped_one_compile),
        cmocka_unit_test(moe_capacity_clamped),
        cmocka_unit_test(clamped_arguments_checked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
