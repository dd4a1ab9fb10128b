/* The ops that move, index, order or pass values of any type, on the small
 * float formats and i2/i4/ui2/ui4 (ir_lowp_accepts): dynamic_slice,
 * dynamic_update_slice, gather, scatter (replace and add bodies), sort,
 * top_k, map, if, case, while, optimization_barrier. The runtime against the
 * reference, bit for bit (NaN codes too), at every ISA level on 1 and 2
 * threads, over inputs holding every bit pattern of the type. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "rt_test.h"
#include "plumb/fp8.h"

/* Every pattern of t in a scrambled order (an odd multiplier modulo 2^bits
 * is a permutation), repeated to fill the tensor. */
static plumb_tensor *patterns(plumb_dtype t, uint32_t rank, const int64_t *dims, uint32_t mul)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *x = plumb_tensor_new(t, rank, dims, 0, &d);
    assert_non_null(x);
    uint32_t n = 1u << plumb_dtype_get(t)->bits;
    for (uint64_t i = 0; i < plumb_tensor_numel(x); i++)
        plumb_store_bits(t, x->data, i, ((uint32_t)i * mul + 1) & (n - 1));
    return x;
}

static plumb_tensor *scalar_i32(int32_t v)
{
    return rt_scalar_bits(PLUMB_I32, (uint32_t)v);
}

/* T in the template becomes the element type's name. */
static void expand(char *dst, size_t cap, const char *tpl, const char *e)
{
    size_t o = 0;
    for (const char *p = tpl; *p && o + 32 < cap; p++) {
        if (*p == 'T' && (p[1] == '>' || p[1] == '{')) {
            o += (size_t)snprintf(dst + o, cap - o, "%s", e);
            continue;
        }
        dst[o++] = *p;
    }
    dst[o] = 0;
}

static const char *DS =
    "func.func @main(%a: tensor<16x16xT>, %i: tensor<i32>, %j: tensor<i32>) -> tensor<5x7xT> {\n"
    "  %0 = stablehlo.dynamic_slice %a, %i, %j, sizes = [5, 7] : (tensor<16x16xT>, tensor<i32>, tensor<i32>) -> tensor<5x7xT>\n"
    "  return %0 : tensor<5x7xT>\n}\n";
static const char *DUS =
    "func.func @main(%a: tensor<16x16xT>, %u: tensor<5x7xT>, %i: tensor<i32>, %j: tensor<i32>) -> tensor<16x16xT> {\n"
    "  %0 = stablehlo.dynamic_update_slice %a, %u, %i, %j : (tensor<16x16xT>, tensor<5x7xT>, tensor<i32>, tensor<i32>) -> tensor<16x16xT>\n"
    "  return %0 : tensor<16x16xT>\n}\n";
static const char *GATHER =
    "func.func @main(%a: tensor<256xT>) -> tensor<4xT> {\n"
    "  %i = stablehlo.constant dense<[[1], [200], [7], [255]]> : tensor<4x1xi32>\n"
    "  %0 = \"stablehlo.gather\"(%a, %i) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1>}> : (tensor<256xT>, tensor<4x1xi32>) -> tensor<4xT>\n"
    "  return %0 : tensor<4xT>\n}\n";
static const char *SCATTER =
    "func.func @main(%a: tensor<256xT>, %u: tensor<4xT>) -> tensor<256xT> {\n"
    "  %i = stablehlo.constant dense<[[1], [200], [1], [255]]> : tensor<4x1xi32>\n"
    "  %0 = \"stablehlo.scatter\"(%a, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({\n"
    "  ^bb0(%x: tensor<T>, %y: tensor<T>):\n"
    "    %m = stablehlo.BODY %x, %y : tensor<T>\n"
    "    stablehlo.return %m : tensor<T>\n"
    "  }) : (tensor<256xT>, tensor<4x1xi32>, tensor<4xT>) -> tensor<256xT>\n"
    "  return %0 : tensor<256xT>\n}\n";
static const char *SORT =
    "func.func @main(%a: tensor<4x64xT>) -> tensor<4x64xT> {\n"
    "  %0 = \"stablehlo.sort\"(%a) <{dimension = 1 : i64, is_stable = true}> ({\n"
    "  ^bb0(%x: tensor<T>, %y: tensor<T>):\n"
    "    %p = stablehlo.compare LT, %x, %y, TYPE : (tensor<T>, tensor<T>) -> tensor<i1>\n"
    "    stablehlo.return %p : tensor<i1>\n"
    "  }) : (tensor<4x64xT>) -> tensor<4x64xT>\n"
    "  return %0 : tensor<4x64xT>\n}\n";
static const char *TOPK =
    "func.func @main(%a: tensor<4x64xT>) -> (tensor<4x9xT>, tensor<4x9xi32>) {\n"
    "  %v, %i = chlo.top_k(%a, k = 9) : tensor<4x64xT> -> (tensor<4x9xT>, tensor<4x9xi32>)\n"
    "  return %v, %i : tensor<4x9xT>, tensor<4x9xi32>\n}\n";
static const char *MAP =
    "func.func @main(%a: tensor<256xT>, %b: tensor<256xT>) -> tensor<256xT> {\n"
    "  %0 = \"stablehlo.map\"(%a, %b) <{dimensions = array<i64: 0>}> ({\n"
    "  ^bb0(%x: tensor<T>, %y: tensor<T>):\n"
    "    %m = stablehlo.maximum %x, %y : tensor<T>\n"
    "    stablehlo.return %m : tensor<T>\n"
    "  }) : (tensor<256xT>, tensor<256xT>) -> tensor<256xT>\n"
    "  return %0 : tensor<256xT>\n}\n";
static const char *BARRIER =
    "func.func @main(%a: tensor<40xT>, %b: tensor<40xT>) -> (tensor<40xT>, tensor<40xT>) {\n"
    "  %0:2 = stablehlo.optimization_barrier %a, %b : tensor<40xT>, tensor<40xT>\n"
    "  return %0#1, %0#0 : tensor<40xT>, tensor<40xT>\n}\n";
static const char *IF =
    "func.func @main(%a: tensor<256xT>, %b: tensor<256xT>, %p: tensor<i1>) -> tensor<256xT> {\n"
    "  %0 = \"stablehlo.if\"(%p) ({\n"
    "    stablehlo.return %a : tensor<256xT>\n"
    "  }, {\n"
    "    stablehlo.return %b : tensor<256xT>\n"
    "  }) : (tensor<i1>) -> tensor<256xT>\n"
    "  return %0 : tensor<256xT>\n}\n";

static const char *WHILE =
    "func.func @main(%a: tensor<256xT>, %b: tensor<256xT>, %k: tensor<i32>) -> tensor<256xT> {\n"
    "  %z = stablehlo.constant dense<0> : tensor<i32>\n"
    "  %one = stablehlo.constant dense<1> : tensor<i32>\n"
    "  %r:3 = stablehlo.while(%i = %z, %x = %a, %y = %b) : tensor<i32>, tensor<256xT>, tensor<256xT>\n"
    "   cond {\n"
    "    %c = stablehlo.compare LT, %i, %k : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
    "    stablehlo.return %c : tensor<i1>\n"
    "  } do {\n"
    "    %n = stablehlo.add %i, %one : tensor<i32>\n"
    "    %m = stablehlo.maximum %x, %y : tensor<256xT>\n"
    "    stablehlo.return %n, %y, %m : tensor<i32>, tensor<256xT>, tensor<256xT>\n"
    "  }\n"
    "  return %r#2 : tensor<256xT>\n}\n";
static const char *CASE =
    "func.func @main(%a: tensor<256xT>, %b: tensor<256xT>, %s: tensor<i32>) -> tensor<256xT> {\n"
    "  %0 = \"stablehlo.case\"(%s) ({\n"
    "    stablehlo.return %a : tensor<256xT>\n"
    "  }, {\n"
    "    stablehlo.return %b : tensor<256xT>\n"
    "  }) : (tensor<i32>) -> tensor<256xT>\n"
    "  return %0 : tensor<256xT>\n}\n";

static void run(const char *tpl, const char *body, plumb_dtype t, plumb_tensor **in, uint32_t n)
{
    char a[4096], b[4096];
    const char *src = tpl;
    if (body) {
        /* BODY (scatter's op) and TYPE (sort's comparison type) */
        const char *at = strstr(tpl, "BODY");
        const char *ty = strstr(tpl, "TYPE");
        const char *mark = at ? at : ty;
        size_t k = (size_t)(mark - tpl);
        snprintf(a, sizeof a, "%.*s%s%s", (int)k, tpl, body, mark + 4);
        src = a;
    }
    expand(b, sizeof b, src, plumb_dtype_name(t));
    if (getenv("LOWP_MOVE_TRACE")) fprintf(stderr, "%s", b);
    rt_check_exact(b, in, n);
    for (uint32_t i = 0; i < n; i++) plumb_tensor_free(in[i]);
}

/* Every small type through every op above: all bitwise equal. */
static void test_move_all_types(void **state)
{
    (void)state;
    for (int ti = 0; ti < PLUMB_DTYPE_COUNT; ti++) {
        plumb_dtype t = (plumb_dtype)ti;
        if (!plumb_dtype_is_lowp(t)) continue;
        bool fl = plumb_fpfmt_get(t) != NULL;
        int64_t d16[2] = {16, 16}, d57[2] = {5, 7}, d256[1] = {256}, d4[1] = {4}, d464[2] = {4, 64}, d40[1] = {40};
        plumb_tensor *ds[3] = {patterns(t, 2, d16, 5), scalar_i32(3), scalar_i32(12)};   /* 12 + 7 > 16: clamped */
        run(DS, NULL, t, ds, 3);
        plumb_tensor *dus[4] = {patterns(t, 2, d16, 3), patterns(t, 2, d57, 7), scalar_i32(-2), scalar_i32(4)};
        run(DUS, NULL, t, dus, 4);
        plumb_tensor *g[1] = {patterns(t, 1, d256, 1)};
        run(GATHER, NULL, t, g, 1);
        plumb_tensor *s1[2] = {patterns(t, 1, d256, 5), patterns(t, 1, d4, 9)};
        run(SCATTER, "add", t, s1, 2);
        plumb_tensor *s2[2] = {patterns(t, 1, d256, 7), patterns(t, 1, d4, 11)};
        run(SCATTER, "maximum", t, s2, 2);
        plumb_tensor *so[1] = {patterns(t, 2, d464, 13)};
        run(SORT, fl ? "TOTALORDER" : plumb_dtype_is_signed(t) ? "SIGNED" : "UNSIGNED", t, so, 1);
        if (fl) {
            plumb_tensor *so2[1] = {patterns(t, 2, d464, 13)};
            run(SORT, "FLOAT", t, so2, 1);
        }
        plumb_tensor *tk[1] = {patterns(t, 2, d464, 29)};
        run(TOPK, NULL, t, tk, 1);
        plumb_tensor *mp[2] = {patterns(t, 1, d256, 1), patterns(t, 1, d256, 3)};
        run(MAP, NULL, t, mp, 2);
        plumb_tensor *ob[2] = {patterns(t, 1, d40, 3), patterns(t, 1, d40, 5)};
        run(BARRIER, NULL, t, ob, 2);
        plumb_tensor *wh[3] = {patterns(t, 1, d256, 1), patterns(t, 1, d256, 7), scalar_i32(3)};
        run(WHILE, NULL, t, wh, 3);
        for (int k = 0; k < 3; k++) {   /* 2 is out of range: the last branch */
            plumb_tensor *cs[3] = {patterns(t, 1, d256, 1), patterns(t, 1, d256, 5), scalar_i32(k)};
            run(CASE, NULL, t, cs, 3);
        }
        for (int p = 0; p < 2; p++) {
            plumb_tensor *ifs[3] = {patterns(t, 1, d256, 1), patterns(t, 1, d256, 5), rt_scalar_bits(PLUMB_I1, (uint64_t)p)};
            run(IF, NULL, t, ifs, 3);
        }
    }
}

static int teardown(void **state)
{
    (void)state;
    rt_free_all();
    return 0;
}

int main(void)
{
    (void)rt_rand_tensor;
    (void)rt_ty;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_move_all_types),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}
