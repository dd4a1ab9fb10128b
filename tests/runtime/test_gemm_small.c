/* The in-place path for small f32 products (runtime/k_gemm.c, small_rows:
 * one k block, operands in L2, tiles reading A and B where they are) gives
 * the packed path's bits: the first m rows of A_big . B, where A_big has
 * so many rows that the packed path runs, equal A . B (A = those m rows,
 * small path) bit for bit, for k up to the block edge (1 to 256), row
 * counts around the 8-row tile and column counts around the 32-column
 * tile (edge tiles packed), at every ISA level on 1 and 2 threads; and
 * batched products, whose batches run over the threads, give each batch
 * the bits of the same product alone. The bound against an exact model
 * is test_gemm.c's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "runtime/rt_test.h"

static ir_module *dot_prog(int64_t m, int64_t n, int64_t k)
{
    char src[1024], ta[64], tb[64], tc[64];
    int64_t da[2] = {m, k}, db[2] = {k, n}, dc[2] = {m, n};
    rt_ty(ta, sizeof ta, PLUMB_F32, 2, da);
    rt_ty(tb, sizeof tb, PLUMB_F32, 2, db);
    rt_ty(tc, sizeof tc, PLUMB_F32, 2, dc);
    snprintf(src, sizeof src,
             "func.func @main(%%a: %s, %%b: %s) -> %s {\n"
             "  %%r = stablehlo.dot_general %%a, %%b, contracting_dims = [1] x [0] : (%s, %s) -> %s\n"
             "  func.return %%r : %s\n}\n",
             ta, tb, tc, ta, tb, tc, tc);
    return rt_parse(src);
}

/* Small products equal the rows of a product too large for the small path. */
static void test_gemm_small_bits(void **state)
{
    (void)state;
    static const int64_t ks[] = {1, 5, 64, 200, 256};
    static const int64_t ms[] = {1, 8, 13, 128};
    static const int64_t ns[] = {1, 31, 32, 33, 100, 128};
    for (size_t a = 0; a < sizeof ks / sizeof *ks; a++)
        for (size_t b = 0; b < sizeof ns / sizeof *ns; b++) {
            int64_t k = ks[a], n = ns[b], big = 65536 / k + 1;   /* (big + n) * k > 64Ki: packed */
            int64_t dbig[2] = {big, k}, dbb[2] = {k, n};
            plumb_tensor *abig = rt_rand_tensor(PLUMB_F32, 2, dbig, false), *bm = rt_rand_tensor(PLUMB_F32, 2, dbb, false);
            ir_module *pbig = dot_prog(big, n, k);
            for (size_t c = 0; c < sizeof ms / sizeof *ms; c++) {
                int64_t m = ms[c], dsm[2] = {m, k};
                plumb_tensor *asm_ = plumb_tensor_new(PLUMB_F32, 2, dsm, 0, NULL);
                assert_non_null(asm_);
                memcpy(asm_->data, abig->data, asm_->nbytes);
                ir_module *psm = dot_prog(m, n, k);
                for (int isa = PLUMB_ISA_PORTABLE; isa <= (int)rt_hw_isa(); isa++)
                    for (uint32_t th = 1; th <= 2; th++) {
                        plumb_tensor *in1[2] = {abig, bm}, *in2[2] = {asm_, bm}, *gb[1], *gs[1];
                        rt_exec_on(pbig, (plumb_isa)isa, th, in1, 2, gb, 1);
                        rt_exec_on(psm, (plumb_isa)isa, th, in2, 2, gs, 1);
                        if (memcmp(gb[0]->data, gs[0]->data, gs[0]->nbytes) != 0)
                            fail_msg("isa %d threads %u: %lldx%lldx%lld differs from the packed path's rows", isa, th,
                                     (long long)m, (long long)n, (long long)k);
                        rt_outs_free(gb, 1);
                        rt_outs_free(gs, 1);
                    }
                ir_module_free(psm);
                plumb_tensor_free(asm_);
            }
            ir_module_free(pbig);
            plumb_tensor_free(abig);
            plumb_tensor_free(bm);
        }
}

/* Batches of small products spread over the threads (k_dot.c,
 * batch_range) give each batch the bits of the same product alone. */
static void test_gemm_small_batches(void **state)
{
    (void)state;
    static const int64_t shp[][3] = {{13, 33, 64}, {8, 32, 1}, {128, 128, 64}, {3, 100, 200}};
    const int64_t nb = 5;
    for (size_t q = 0; q < sizeof shp / sizeof *shp; q++) {
        int64_t m = shp[q][0], n = shp[q][1], k = shp[q][2];
        int64_t da[3] = {nb, m, k}, db[3] = {nb, k, n}, dc[3] = {nb, m, n};
        char ta[64], tb[64], tc[64], src[1024];
        rt_ty(ta, sizeof ta, PLUMB_F32, 3, da);
        rt_ty(tb, sizeof tb, PLUMB_F32, 3, db);
        rt_ty(tc, sizeof tc, PLUMB_F32, 3, dc);
        snprintf(src, sizeof src,
                 "func.func @main(%%a: %s, %%b: %s) -> %s {\n"
                 "  %%r = stablehlo.dot_general %%a, %%b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : "
                 "(%s, %s) -> %s\n"
                 "  func.return %%r : %s\n}\n",
                 ta, tb, tc, ta, tb, tc, tc);
        ir_module *pb = rt_parse(src), *p1 = dot_prog(m, n, k);
        plumb_tensor *a = rt_rand_tensor(PLUMB_F32, 3, da, false), *b = rt_rand_tensor(PLUMB_F32, 3, db, false);
        int64_t d1a[2] = {m, k}, d1b[2] = {k, n};
        plumb_tensor *a1 = plumb_tensor_new(PLUMB_F32, 2, d1a, 0, NULL), *b1 = plumb_tensor_new(PLUMB_F32, 2, d1b, 0, NULL);
        assert_non_null(a1);
        assert_non_null(b1);
        for (int isa = PLUMB_ISA_PORTABLE; isa <= (int)rt_hw_isa(); isa++)
            for (uint32_t th = 1; th <= 2; th++) {
                plumb_tensor *in[2] = {a, b}, *got[1];
                rt_exec_on(pb, (plumb_isa)isa, th, in, 2, got, 1);
                for (int64_t bi = 0; bi < nb; bi++) {
                    memcpy(a1->data, (const char *)a->data + bi * a1->nbytes, a1->nbytes);
                    memcpy(b1->data, (const char *)b->data + bi * b1->nbytes, b1->nbytes);
                    plumb_tensor *in1[2] = {a1, b1}, *one[1];
                    rt_exec_on(p1, (plumb_isa)isa, th, in1, 2, one, 1);
                    if (memcmp((const char *)got[0]->data + bi * one[0]->nbytes, one[0]->data, one[0]->nbytes) != 0)
                        fail_msg("isa %d threads %u: batch %lld of %lldx%lldx%lld differs from the product alone", isa,
                                 th, (long long)bi, (long long)m, (long long)n, (long long)k);
                    rt_outs_free(one, 1);
                }
                rt_outs_free(got, 1);
            }
        plumb_tensor_free(a);
        plumb_tensor_free(b);
        plumb_tensor_free(a1);
        plumb_tensor_free(b1);
        ir_module_free(pb);
        ir_module_free(p1);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gemm_small_bits),
        cmocka_unit_test(test_gemm_small_batches),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    rt_free_all();
    return rc;
}
