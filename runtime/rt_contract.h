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

/* Marks the rules matching module/entry as used (module NULL: unnamed). */
void rt_contract_touch(plumb_contract *c, const char *module, const char *entry);

/* Whether the entry may build one more program with key `key`: `built` is
 * how many it has built in this runtime (disk hits excluded), `runs` how
 * many runs it has had. False with every broken rule, by file and line, in
 * why (followed by `explanation` when not NULL). */
bool rt_contract_admit(const plumb_contract *c, const char *module, const char *entry, uint32_t built,
                       uint64_t runs, const uint64_t key[2], const char *explanation, char *why, size_t cap);

/* Rules no compile matched, "FILE:LINE" each, in out; false when there are any. */
bool rt_contract_unmatched(const plumb_contract *c, char *out, size_t cap);

#endif
