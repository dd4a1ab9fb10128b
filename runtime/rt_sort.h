/* Typed key sort for stablehlo.sort (runtime/k_sort_keys.c): a comparator
 * that is one `compare DIR, a_p, b_p [, TYPE]` (or its mirror) becomes an
 * order-preserving unsigned key per element, and each slice is sorted on
 * the keys (LSD radix for long slices, a merge sort for short ones) into
 * exactly the permutation the reference's stable merge sort yields
 * (docs/runtime-kernels.md, "Sort"). */
#ifndef PLUMB_RT_SORT_H
#define PLUMB_RT_SORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plumb/dtype.h"
#include "plumb/fp8.h"
#include "plumb/ir.h"
#include "plumb/tensor.h"

typedef struct rt_sort_keys {
    uint32_t operand;        /* the key operand */
    plumb_dtype dt;
    uint32_t esz;            /* its storage bytes */
    uint32_t kbits;          /* key width: the value bits */
    uint8_t kind;            /* how bits become a key (k_sort_keys.c) */
    bool nan_check;          /* FLOAT: a slice holding a NaN takes the merge sort */
    bool zero_merge;         /* FLOAT on a signed format: -0 sorts as +0 */
    bool desc;               /* GT/GE: keys complemented */
    bool ties_rev;           /* LE/GE: equal keys in decreasing position order */
    bool keys_only;          /* one operand, key <-> bits one to one: sort the keys alone */
    uint64_t sign, mask;     /* of the value */
    uint64_t inf;            /* wide IEEE floats: the +inf pattern (NaN: magnitude above it) */
    const plumb_fpfmt *fmt;  /* small floats: their NaN test */
} rt_sort_keys;

/* Whether the comparator `compare dir` (operands swapped when `swapped`)
 * of type `type` on operand `operand` of type dt, with n operands and
 * slices of len elements, takes the key sort; fills p. */
bool rt_sort_keys_plan(rt_sort_keys *p, uint32_t operand, ir_cmp_dir dir, bool swapped, ir_cmp_type type,
                       plumb_dtype dt, uint32_t n, int64_t len);

/* Scratch bytes one slice of len elements needs (len within the plan's
 * limit, so no overflow below 2^32 elements). */
uint64_t rt_sort_keys_scratch(const rt_sort_keys *p, int64_t len);

/* Sorts the slice at element offset base (positions base + q * stride,
 * q < len) of every operand in[0..n) into out; false (nothing written) when
 * the slice holds a NaN under FLOAT and must take the merge sort. */
bool rt_sort_keys_slice(const rt_sort_keys *p, plumb_tensor *const *in, plumb_tensor *const *out, uint32_t n,
                        int64_t base, int64_t stride, int64_t len, void *scratch);

#endif
