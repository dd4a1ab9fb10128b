/* Host tensors: dense row-major buffers with an overflow-checked shape. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "plumb/tensor.h"

static const plumb_loc no_loc = {0, 0};

/* 0 means "the default": PLUMB_MAX_BYTES from the environment when it holds a
 * positive decimal byte count, otherwise 16 GiB. A malformed variable is
 * ignored rather than turned into "no limit". */
uint64_t plumb_max_bytes(uint64_t max_bytes)
{
    if (max_bytes)
        return max_bytes;
    const char *env = getenv("PLUMB_MAX_BYTES");
    if (env && *env >= '0' && *env <= '9') {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(env, &end, 10);
        if (errno == 0 && *end == '\0' && v > 0)
            return v;
    }
    return PLUMB_DEFAULT_MAX_BYTES;
}

bool plumb_shape_size(plumb_dtype t, uint32_t rank, const int64_t *dims,
                      uint64_t max_bytes, uint64_t *numel, uint64_t *nbytes,
                      plumb_diag *d)
{
    if ((unsigned)t >= PLUMB_DTYPE_COUNT) {
        plumb_diag_set(d, PLUMB_ERR_INVALID, no_loc, "unknown element type %u", (unsigned)t);
        return false;
    }
    if (rank > PLUMB_MAX_RANK) {
        plumb_diag_set(d, PLUMB_ERR_LIMIT, no_loc, "rank %u exceeds the maximum rank %d",
                       rank, PLUMB_MAX_RANK);
        return false;
    }
    bool zero = false;
    for (uint32_t i = 0; i < rank; i++) {
        if (dims[i] < 0) {
            plumb_diag_set(d, PLUMB_ERR_INVALID, no_loc,
                           "dimension %u has negative size %lld", i, (long long)dims[i]);
            return false;
        }
        if (dims[i] == 0)
            zero = true;
    }
    /* A zero dimension makes the tensor empty however large the others are,
     * so the product is only checked for overflow when it is not zero. */
    uint64_t n = 1;
    if (zero) {
        n = 0;
    } else {
        for (uint32_t i = 0; i < rank; i++) {
            if (plumb_mul_overflow_u64(n, (uint64_t)dims[i], &n)) {
                plumb_diag_set(d, PLUMB_ERR_LIMIT, no_loc,
                               "element count overflows 64 bits at dimension %u (size %lld)",
                               i, (long long)dims[i]);
                return false;
            }
        }
    }
    uint64_t bytes;
    if (plumb_mul_overflow_u64(n, plumb_dtype_size(t), &bytes)) {
        plumb_diag_set(d, PLUMB_ERR_LIMIT, no_loc,
                       "byte size of %llu elements of %s overflows 64 bits",
                       (unsigned long long)n, plumb_dtype_name(t));
        return false;
    }
    uint64_t limit = plumb_max_bytes(max_bytes);
    if (bytes > limit || bytes > SIZE_MAX) {
        plumb_diag_set(d, PLUMB_ERR_LIMIT, no_loc,
                       "tensor of %llu bytes exceeds the limit of %llu bytes",
                       (unsigned long long)bytes, (unsigned long long)limit);
        return false;
    }
    if (numel)
        *numel = n;
    if (nbytes)
        *nbytes = bytes;
    return true;
}

plumb_tensor *plumb_tensor_new(plumb_dtype t, uint32_t rank, const int64_t *dims,
                               uint64_t max_bytes, plumb_diag *d)
{
    uint64_t nbytes;
    if (!plumb_shape_size(t, rank, dims, max_bytes, NULL, &nbytes, d))
        return NULL;
    plumb_tensor *x = plumb_calloc(1, sizeof *x);
    if (!x) {
        plumb_diag_set(d, PLUMB_ERR_NOMEM, no_loc, "out of memory allocating a tensor");
        return NULL;
    }
    x->dtype = t;
    x->rank = rank;
    for (uint32_t i = 0; i < rank; i++)
        x->dims[i] = dims[i];
    x->nbytes = (size_t)nbytes;
    x->owned = true;
    if (nbytes) {
        x->data = plumb_calloc(1, (size_t)nbytes);
        if (!x->data) {
            plumb_free(x, sizeof *x);
            plumb_diag_set(d, PLUMB_ERR_NOMEM, no_loc,
                           "out of memory allocating %llu bytes of tensor data",
                           (unsigned long long)nbytes);
            return NULL;
        }
    }
    return x;
}

void plumb_tensor_free(plumb_tensor *t)
{
    if (!t)
        return;
    if (t->owned && t->data)
        plumb_free(t->data, t->nbytes);
    plumb_free(t, sizeof *t);
}

plumb_tensor *plumb_tensor_clone(const plumb_tensor *t, plumb_diag *d)
{
    /* The source already exists, so no byte limit applies to its copy. */
    plumb_tensor *c = plumb_tensor_new(t->dtype, t->rank, t->dims, UINT64_MAX, d);
    if (c && c->nbytes)
        memcpy(c->data, t->data, c->nbytes);
    return c;
}

uint64_t plumb_tensor_numel(const plumb_tensor *t)
{
    uint64_t n = 1;
    for (uint32_t i = 0; i < t->rank; i++)
        n *= (uint64_t)t->dims[i];
    return n;
}

void plumb_tensor_type_print(plumb_buf *b, const plumb_tensor *t)
{
    plumb_buf_puts(b, "tensor<");
    for (uint32_t i = 0; i < t->rank; i++)
        plumb_buf_printf(b, "%lldx", (long long)t->dims[i]);
    plumb_buf_puts(b, plumb_dtype_name(t->dtype));
    plumb_buf_puts(b, ">");
}

bool plumb_tensor_equal(const plumb_tensor *a, const plumb_tensor *b)
{
    if (a->dtype != b->dtype || a->rank != b->rank || a->nbytes != b->nbytes)
        return false;
    for (uint32_t i = 0; i < a->rank; i++)
        if (a->dims[i] != b->dims[i])
            return false;
    return a->nbytes == 0 || memcmp(a->data, b->data, a->nbytes) == 0;
}
