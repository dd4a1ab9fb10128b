/* The trace-once guard (canon.c, cache.c): a memory-cache lookup that does
 * not copy, hash and compare the bytes of large baked constants on a hit.
 *
 * The guard's form of a program is the canonical serialization with every
 * constant larger than RT_GUARD_REF_BYTES written as a reference (module
 * uid, tensor and buffer addresses) instead of its bytes; everything else —
 * ops, operands, types (the entry's input signature), attributes, small
 * constants, the key context — is serialized and compared in full on every
 * lookup, as the ordinary key is. A guard form is recorded for a program
 * only after the ordinary lookup (full bytes) found or built that program
 * for the same module, so a guard hit serves what the full lookup would as
 * long as the referenced bytes are unchanged. Module uids are never reused
 * (a module freed and another made at the same address differ), and
 * ir_module_touch gives a module a new one after its constant bytes were
 * written in place; that call is the one rule users must keep
 * (docs/runtime.md, "Trace-once guard"). */
#ifndef PLUMB_RT_GUARD_H
#define PLUMB_RT_GUARD_H

#include "rt_pipeline.h"

/* Constants up to this many bytes are copied into the guard form (checking
 * them costs less than a hash lookup); larger ones are referenced. */
#define RT_GUARD_REF_BYTES 256u
/* Guard forms kept per entry; the oldest is replaced when full (a loop that
 * parses a fresh module every step must not grow memory). */
#define RT_GUARD_SLOTS 8u

/* As rt_canon_build, in the guard's form; *n_refs = constants referenced
 * (0: the guard form is the ordinary one and the guard saves nothing). */
bool rt_canon_build_guard(rt_canon *c, const ir_module *m, const ir_func *entry, const rt_key_ctx *kc,
                          uint32_t *n_refs, plumb_diag *d);

typedef struct rt_guard {
    uint64_t hash;             /* XXH3-64 of bytes */
    uint8_t *bytes;            /* the guard form (owned) */
    size_t len, cap;
    void *target;              /* what the ordinary lookup returned for it */
} rt_guard;

typedef struct rt_guard_set {
    rt_guard slot[RT_GUARD_SLOTS];
    uint32_t n;                /* slots in use */
    uint32_t next;             /* replaced next when all are in use */
} rt_guard_set;

/* The target recorded for exactly this guard form, or NULL. */
void *rt_guard_find(const rt_guard_set *g, const rt_canon *form);
/* Records form -> target (replacing the target of an equal form); false when
 * out of memory (the guard then just misses). */
bool rt_guard_add(rt_guard_set *g, const rt_canon *form, void *target);
/* Forgets every form (their targets are being freed). */
void rt_guard_clear(rt_guard_set *g);

#endif
