/* Compile cost does not grow with tensor sizes: compiling a program never
 * touches memory in proportion to its tensors. Proved structurally, not by
 * timing: the test routes plumb's allocations through its own allocator,
 * which maps every large block (>= 1 MiB) as fresh anonymous pages and
 * remembers it; mincore() then tells which of those pages were ever touched.
 * After compiling programs on 2048x2048 tensors, the large blocks allocated
 * during the compile hold the planned buffers (their size is checked) and
 * none of their pages is resident. The first run does touch them, which
 * shows the measurement sees touching when there is any; its results are
 * checked against values computed here by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "plumb/core.h"
#include "plumb/ir.h"
#include "plumb/runtime.h"

#define BIG ((size_t)1 << 20)
#define MAX_BLOCKS 256

typedef struct block {
    void *p;
    size_t size;
    bool at_compile;   /* allocated while the test was compiling */
} block;

static block blocks[MAX_BLOCKS];
static bool compiling;

static block *find_block(const void *p)
{
    for (int i = 0; i < MAX_BLOCKS; i++)
        if (blocks[i].p == p) return &blocks[i];
    return NULL;
}

static void *map_block(size_t size)
{
    block *b = find_block(NULL);
    if (!b) return NULL;
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return NULL;
    b->p = p;
    b->size = size;
    b->at_compile = compiling;
    return p;
}

/* Large blocks: fresh mappings (untouched until written); the rest: libc. */
static void *test_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    (void)ud;
    block *b = ptr ? find_block(ptr) : NULL;
    if (nsize == 0) {
        if (b) {
            munmap(b->p, b->size);
            memset(b, 0, sizeof *b);
        } else {
            free(ptr);
        }
        return NULL;
    }
    if (!ptr) return nsize >= BIG ? map_block(nsize) : malloc(nsize);
    if (!b && nsize < BIG) return realloc(ptr, nsize);
    void *q = nsize >= BIG ? map_block(nsize) : malloc(nsize);
    if (!q) return NULL;
    memcpy(q, ptr, osize < nsize ? osize : nsize);
    test_alloc(ud, ptr, osize, 0);
    return q;
}

/* Bytes of the blocks allocated during compiles, and how many of their
 * pages are resident. */
static void compile_blocks(size_t *bytes, size_t *resident_pages)
{
    long page = sysconf(_SC_PAGESIZE);
    *bytes = *resident_pages = 0;
    for (int i = 0; i < MAX_BLOCKS; i++) {
        if (!blocks[i].p || !blocks[i].at_compile) continue;
        size_t np = (blocks[i].size + (size_t)page - 1) / (size_t)page;
        unsigned char *vec = malloc(np);
        assert_non_null(vec);
        assert_int_equal(mincore(blocks[i].p, blocks[i].size, vec), 0);
        for (size_t k = 0; k < np; k++) *resident_pages += vec[k] & 1;
        free(vec);
        *bytes += blocks[i].size;
    }
}

static ir_module *parse(const char *src)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    ir_module *m = ir_parse(src, strlen(src), "t", NULL, &d);
    if (!m || !ir_verify(m, NULL, &d)) plumb_diag_print(&d, stderr);
    assert_non_null(m);
    return m;
}

#define N 2048

/* add(broadcast(x), y) feeding a transpose, and a broadcast scalar
 * constant (which the passes must not fold into an N x N constant): the
 * kernels' intermediates and results are planned buffers of N*N*4 bytes
 * (16 MiB). After the compile, none of their pages has been touched;
 * after the first run, they have, and the results are x[j] + y[i][j]
 * transposed times y + 1.5, and y + 1.5. */
static void test_compile_touches_no_tensor_data(void **state)
{
    (void)state;
    ir_module *m = parse(
        "func.func @main(%x: tensor<2048xf32>, %y: tensor<2048x2048xf32>) -> (tensor<2048x2048xf32>, tensor<2048x2048xf32>) {\n"
        "  %b = stablehlo.broadcast_in_dim %x, dims = [1] : (tensor<2048xf32>) -> tensor<2048x2048xf32>\n"
        "  %s = stablehlo.add %b, %y : tensor<2048x2048xf32>\n"
        "  %t = stablehlo.transpose %s, dims = [1, 0] : (tensor<2048x2048xf32>) -> tensor<2048x2048xf32>\n"
        "  %c = stablehlo.constant dense<1.5> : tensor<f32>\n"
        "  %cb = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> tensor<2048x2048xf32>\n"
        "  %u = stablehlo.add %y, %cb : tensor<2048x2048xf32>\n"
        "  %v = stablehlo.multiply %t, %u : tensor<2048x2048xf32>\n"
        "  func.return %v, %u : tensor<2048x2048xf32>, tensor<2048x2048xf32>\n}\n");
    plumb_runtime_options o;
    plumb_runtime_options_init(&o);
    o.threads = 1;
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_runtime *rt = plumb_runtime_create(&o, &d);
    assert_non_null(rt);

    compiling = true;
    plumb_executable *ex = plumb_runtime_compile(rt, m, "main", &d);
    compiling = false;
    if (!ex) plumb_diag_print(&d, stderr);
    assert_non_null(ex);
    size_t bytes, resident;
    compile_blocks(&bytes, &resident);
    fprintf(stderr, "compile: %zu bytes in large blocks, %zu pages resident\n", bytes, resident);
    /* the transpose's operand cannot be computed in place: at least one
     * N x N buffer is planned */
    assert_true(bytes >= (size_t)N * N * 4);
    assert_int_equal(resident, 0);

    int64_t dx[1] = {N}, dy[2] = {N, N};
    plumb_tensor *in[2] = {plumb_tensor_new(PLUMB_F32, 1, dx, 0, &d), plumb_tensor_new(PLUMB_F32, 2, dy, 0, &d)};
    assert_non_null(in[0]);
    assert_non_null(in[1]);
    float *x = in[0]->data, *y = in[1]->data;
    for (int j = 0; j < N; j++) x[j] = (float)(j % 7);
    for (size_t i = 0; i < (size_t)N * N; i++) y[i] = (float)(i % 5) * 0.25f;
    plumb_tensor *out[2] = {NULL, NULL};
    uint32_t failed = 0;
    bool ok = plumb_executable_run(ex, in, 2, out, 2, &failed, &d);
    if (!ok) plumb_diag_print(&d, stderr);
    assert_true(ok);
    /* v[i][j] = (x[i] + y[j][i]) * (y[i][j] + 1.5), exact in f32: small
     * multiples of 1/4 and 1/16 */
    const float *v = out[0]->data, *u = out[1]->data;
    for (size_t i = 0; i < N; i += 61)
        for (size_t j = 0; j < N; j += 53) {
            float want_u = y[i * N + j] + 1.5f;
            assert_true(u[i * N + j] == want_u);
            assert_true(v[i * N + j] == (x[i] + y[j * N + i]) * want_u);
        }
    compile_blocks(&bytes, &resident);
    fprintf(stderr, "after the first run: %zu pages resident\n", resident);
    assert_true(resident > 0);

    plumb_tensor_free(out[0]);
    plumb_tensor_free(out[1]);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
    plumb_runtime_destroy(rt);
    ir_module_free(m);
}

int main(void)
{
    plumb_set_allocator(test_alloc, NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compile_touches_no_tensor_data),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    plumb_set_allocator(NULL, NULL);
    return rc;
}
