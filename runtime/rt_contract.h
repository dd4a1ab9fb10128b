/* The runtime's side of compile contracts (contract.c, docs/contracts.md). */
#ifndef PLUMB_RT_CONTRACT_H
#define PLUMB_RT_CONTRACT_H

#include "plumb/contract.h"
#include "rt_pipeline.h"

/* Reads every variant file of c and computes its key under kc (the key the
 * runtime's cache uses). A file that cannot be read or parsed, whose module
 * name differs from the rule's or that has no function named by the rule's
 * entry is an error "CONTRACT:LINE: ...". */
bool rt_contract_resolve(plumb_contract *c, const rt_key_ctx *kc, uint64_t max_bytes, plumb_diag *d);

/* A module's signature for contracts: XXH3-64 of the entry's parameter and
 * result element types and ranks (not sizes, values or ops, so the programs
 * one model recompiles into keep it while another model under the same
 * @name usually does not). Written as 16 lowercase hex digits. */
uint64_t rt_module_signature(const ir_func *entry);

/* Per entry: the signatures its programs had and how many programs each
 * built here (what a rule pinned to a signature counts). */
#define RT_SIG_MAX 8
typedef struct rt_sig_book {
    uint32_t n;
    uint64_t sig[RT_SIG_MAX];
    uint32_t built[RT_SIG_MAX];
    bool warned;               /* the shared-budget warning was given */
} rt_sig_book;

/* Records a program of signature sig (built here or not). */
void rt_sig_note(rt_sig_book *b, uint64_t sig, bool built);
/* Programs of signature sig built here. */
uint32_t rt_sig_built(const rt_sig_book *b, uint64_t sig);

/* Marks the rules matching module/entry/sig as used (module NULL: unnamed). */
void rt_contract_touch(plumb_contract *c, const char *module, const char *entry, uint64_t sig);

/* Whether the entry may build one more program with key `key` and module
 * signature `sig`: `built` is how many it has built in this runtime (disk
 * hits excluded), `book` its programs by signature, `runs` how many runs it
 * has had. A rule pinned to a signature counts only that signature's
 * programs; a compile whose signature no pinned rule of its module names,
 * while some does, is refused (another module under the same @name). False
 * with every broken rule, by file and line, in why (followed by
 * `explanation` when not NULL). */
bool rt_contract_admit(const plumb_contract *c, const char *module, const char *entry, uint64_t sig,
                       uint32_t built, const rt_sig_book *book, uint64_t runs, const uint64_t key[2],
                       const char *explanation, char *why, size_t cap);

/* When a rule without a signature covers module/entry and sig differs from
 * the signature of the entry's first program: writes once per entry, to f,
 * that two modules (signatures) share the rule's budget and how to pin
 * them apart. */
void rt_contract_warn_shared(const plumb_contract *c, rt_sig_book *b, const char *module, const char *entry,
                             uint64_t sig, FILE *f);

/* Rules no compile matched, "FILE:LINE" each, in out; false when there are any. */
bool rt_contract_unmatched(const plumb_contract *c, char *out, size_t cap);

#endif
