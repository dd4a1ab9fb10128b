/* Compile contract files: parser and checker (docs/contracts.md).
 *
 *   # comment
 *   module NAME|* [signature HEX] entry NAME|* max-programs N
 *   module NAME|* [signature HEX] entry NAME|* variants V [V ...]
 *   module NAME|* [signature HEX] entry NAME|* warmup-runs N then no-new-compiles
 *
 * NAME is a module's `module @NAME` (without '@'), `*` any module, named or
 * not; an entry is a function name. `signature HEX` (16 hex digits,
 * rt_module_signature) pins the rule to one module of that name: two
 * different models that share a @name then have budgets of their own, and a
 * third one is refused. A variant V is a program's 32-digit
 * cache key (plumb_runtime_key; a variants violation prints the key of the
 * program it refused) or a .mlir
 * file, relative to the contract's folder, whose entry's key under the
 * runtime's options is computed when the runtime takes the contract (keys
 * depend on the ISA level and opt level, files do not).
 *
 * Fixed-size tables keep it simple: a contract is a short file checked in
 * next to a training script, not data. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "rt_contract.h"

#define CT_MAX_RULES 64
#define CT_MAX_VARIANTS 16
#define CT_NAME 128
#define CT_PATH 512

typedef enum { CT_MAX_PROGRAMS, CT_VARIANTS, CT_WARMUP } ct_kind;

typedef struct ct_variant {
    char text[CT_PATH];         /* as written */
    bool is_key;
    uint64_t key[2];            /* set for a key, or by rt_contract_resolve for a file */
} ct_variant;

typedef struct ct_rule {
    uint32_t line;
    char module[CT_NAME], entry[CT_NAME];
    bool has_sig;               /* pinned to one module signature */
    uint64_t sig;
    ct_kind kind;
    uint64_t n;                 /* max-programs, warmup-runs */
    ct_variant v[CT_MAX_VARIANTS];
    uint32_t n_v;
    bool used;
} ct_rule;

struct plumb_contract {
    char file[CT_PATH];
    ct_rule r[CT_MAX_RULES];
    uint32_t n;
};

static bool pat_match(const char *pat, const char *name)
{
    return strcmp(pat, "*") == 0 || (name && strcmp(pat, name) == 0);
}

static bool parse_u64(const char *s, uint64_t *out)
{
    if (!*s)
        return false;
    uint64_t v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > (UINT64_MAX - 9) / 10)
            return false;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    *out = v;
    return true;
}

static bool parse_key(const char *s, uint64_t key[2])
{
    if (strlen(s) != 32)
        return false;
    for (int h = 0; h < 2; h++) {
        uint64_t v = 0;
        for (int i = 0; i < 16; i++) {
            char ch = s[h * 16 + i];
            int dv = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
            if (dv < 0)
                return false;
            v = v << 4 | (uint64_t)dv;
        }
        key[h] = v;
    }
    return true;
}

static bool parse_sig(const char *s, uint64_t *sig)
{
    if (strlen(s) != 16)
        return false;
    uint64_t v = 0;
    for (int i = 0; i < 16; i++) {
        char ch = s[i];
        int dv = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
        if (dv < 0)
            return false;
        v = v << 4 | (uint64_t)dv;
    }
    *sig = v;
    return true;
}

static void fmt_key(const uint64_t key[2], char out[33])
{
    snprintf(out, 33, "%016llx%016llx", (unsigned long long)key[0], (unsigned long long)key[1]);
}

#define CT_ERR(...)                                                                                     \
    do {                                                                                                \
        char m_[700];                                                                                   \
        snprintf(m_, sizeof m_, __VA_ARGS__);                                                           \
        plumb_diag_set(d, PLUMB_ERR_USAGE, (plumb_loc){0, 0}, "%s:%u: %s", c->file, lineno, m_);        \
        goto out_free;                                                                                  \
    } while (0)

/* Same patterns, or `*` in a that covers b's name: a's rule applies wherever b's does. */
static bool covers(const ct_rule *a, const ct_rule *b)
{
    return (strcmp(a->module, "*") == 0 || strcmp(a->module, b->module) == 0) &&
           (strcmp(a->entry, "*") == 0 || strcmp(a->entry, b->entry) == 0);
}

plumb_contract *plumb_contract_parse(const char *text, size_t len, const char *filename, plumb_diag *d)
{
    plumb_contract *c = plumb_calloc(1, sizeof *c);
    uint32_t lineno = 0;
    if (!c) {
        plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory reading contract %s", filename);
        return NULL;
    }
    snprintf(c->file, sizeof c->file, "%s", filename ? filename : "<contract>");
    for (size_t pos = 0; pos < len;) {
        const char *ls = text + pos;
        const char *nl = memchr(ls, '\n', len - pos);
        size_t ll = nl ? (size_t)(nl - ls) : len - pos;
        pos += ll + 1;
        lineno++;
        char buf[4096];
        if (ll >= sizeof buf)
            CT_ERR("line longer than %zu bytes", sizeof buf - 1);
        memcpy(buf, ls, ll);
        buf[ll] = 0;
        if (memchr(buf, 0, ll))
            CT_ERR("NUL byte in the line");
        char *hash = strchr(buf, '#');
        if (hash)
            *hash = 0;
        char *tok[4 + CT_MAX_VARIANTS + 2];
        uint32_t nt = 0;
        for (char *p = strtok(buf, " \t\r"); p; p = strtok(NULL, " \t\r")) {
            if (nt == sizeof tok / sizeof tok[0])
                CT_ERR("too many words (at most %d variants in one rule)", CT_MAX_VARIANTS);
            tok[nt++] = p;
        }
        if (nt == 0)
            continue;
        /* `module NAME signature HEX entry ...`: drop the pair, keep the value */
        const char *sig_text = NULL;
        if (nt >= 4 && strcmp(tok[0], "module") == 0 && strcmp(tok[2], "signature") == 0) {
            sig_text = tok[3];
            for (uint32_t i = 4; i < nt; i++)
                tok[i - 2] = tok[i];
            nt -= 2;
        }
        if (nt < 6 || strcmp(tok[0], "module") != 0 || strcmp(tok[2], "entry") != 0)
            CT_ERR("expected 'module NAME|* [signature HEX] entry NAME|* RULE', where RULE is max-programs N, "
                   "variants V..., or warmup-runs N then no-new-compiles");
        if (c->n == CT_MAX_RULES)
            CT_ERR("more than %d rules", CT_MAX_RULES);
        ct_rule *r = &c->r[c->n];
        memset(r, 0, sizeof *r);
        r->line = lineno;
        const char *mod = tok[1][0] == '@' ? tok[1] + 1 : tok[1];
        const char *ent = tok[3][0] == '@' ? tok[3] + 1 : tok[3];
        if (!*mod || strlen(mod) >= CT_NAME || !*ent || strlen(ent) >= CT_NAME)
            CT_ERR("module or entry name is empty or longer than %d bytes", CT_NAME - 1);
        snprintf(r->module, sizeof r->module, "%s", mod);
        snprintf(r->entry, sizeof r->entry, "%s", ent);
        if (sig_text) {
            if (!parse_sig(sig_text, &r->sig))
                CT_ERR("signature '%.40s' is not 16 lowercase hex digits (as a contract message prints it)",
                       sig_text);
            if (strcmp(r->module, "*") == 0)
                CT_ERR("a signature pins a named module: 'module NAME signature HEX', not module *");
            r->has_sig = true;
        }
        if (strcmp(tok[4], "max-programs") == 0) {
            r->kind = CT_MAX_PROGRAMS;
            if (nt != 6 || !parse_u64(tok[5], &r->n) || r->n == 0 || r->n > UINT32_MAX)
                CT_ERR("max-programs takes one number from 1 to %u", UINT32_MAX);
        } else if (strcmp(tok[4], "warmup-runs") == 0) {
            r->kind = CT_WARMUP;
            if (nt != 8 || !parse_u64(tok[5], &r->n) || strcmp(tok[6], "then") != 0 ||
                strcmp(tok[7], "no-new-compiles") != 0)
                CT_ERR("expected 'warmup-runs N then no-new-compiles'");
        } else if (strcmp(tok[4], "variants") == 0) {
            r->kind = CT_VARIANTS;
            for (uint32_t i = 5; i < nt; i++) {
                ct_variant *v = &r->v[r->n_v++];
                if (strlen(tok[i]) >= sizeof v->text)
                    CT_ERR("variant '%.40s...' is longer than %d bytes", tok[i], CT_PATH - 1);
                snprintf(v->text, sizeof v->text, "%s", tok[i]);
                v->is_key = parse_key(tok[i], v->key);
                if (!v->is_key && strcmp(r->entry, "*") == 0)
                    CT_ERR("variant file %s needs a named entry (which function's program it is), not *", tok[i]);
                for (uint32_t j = 0; j + 1 < r->n_v; j++)
                    if (strcmp(r->v[j].text, v->text) == 0)
                        CT_ERR("variant %s is listed twice", v->text);
            }
        } else {
            CT_ERR("unknown rule '%s' (max-programs, variants or warmup-runs)", tok[4]);
        }
        c->n++;
        /* Contradictions with the rules before: one module and entry gets
         * one value per rule kind, and a cap below its variants could never
         * be met by a run that uses them all. */
        for (uint32_t i = 0; i + 1 < c->n; i++) {
            const ct_rule *o = &c->r[i];
            bool same = strcmp(o->module, r->module) == 0 && strcmp(o->entry, r->entry) == 0 &&
                        o->has_sig == r->has_sig && (!o->has_sig || o->sig == r->sig);
            if (same && o->kind == r->kind && r->kind != CT_VARIANTS && o->n != r->n)
                CT_ERR("contradicts line %u: %s %llu there, %llu here for module %s entry %s", o->line,
                       r->kind == CT_MAX_PROGRAMS ? "max-programs" : "warmup-runs", (unsigned long long)o->n,
                       (unsigned long long)r->n, r->module, r->entry);
            if (same && o->kind == CT_VARIANTS && r->kind == CT_VARIANTS)
                CT_ERR("module %s entry %s already lists its variants at line %u (one list per entry)", r->module,
                       r->entry, o->line);
            const ct_rule *mp = o->kind == CT_MAX_PROGRAMS ? o : r->kind == CT_MAX_PROGRAMS ? r : NULL;
            const ct_rule *vr = o->kind == CT_VARIANTS ? o : r->kind == CT_VARIANTS ? r : NULL;
            if (mp && vr && mp != vr && covers(mp, vr) && vr->n_v > mp->n)
                CT_ERR("contradicts line %u: max-programs %llu but %u variants allowed for module %s entry %s",
                       o->line, (unsigned long long)mp->n, vr->n_v, vr->module, vr->entry);
        }
    }
    return c;
out_free:
    plumb_free(c, sizeof *c);
    return NULL;
}

plumb_contract *plumb_contract_load(const char *path, plumb_diag *d)
{
    size_t len = 0;
    char *text = plumb_read_file(path, (size_t)1 << 20, &len, d);
    if (!text)
        return NULL;
    plumb_contract *c = plumb_contract_parse(text, len, path, d);
    plumb_free(text, len + 1);
    return c;
}

void plumb_contract_free(plumb_contract *c)
{
    if (c)
        plumb_free(c, sizeof *c);
}

uint32_t plumb_contract_rule_count(const plumb_contract *c)
{
    return c ? c->n : 0;
}

bool rt_contract_resolve(plumb_contract *c, const rt_key_ctx *kc, uint64_t max_bytes, plumb_diag *d)
{
    char dir[CT_PATH];
    snprintf(dir, sizeof dir, "%s", c->file);
    char *slash = strrchr(dir, '/');
    if (slash)
        slash[1] = 0;
    else
        dir[0] = 0;
    for (uint32_t i = 0; i < c->n; i++) {
        ct_rule *r = &c->r[i];
        uint32_t lineno = r->line;
        for (uint32_t j = 0; j < r->n_v; j++) {
            ct_variant *v = &r->v[j];
            if (v->is_key)
                continue;
            char path[2 * CT_PATH];
            snprintf(path, sizeof path, "%s%s", v->text[0] == '/' ? "" : dir, v->text);
            plumb_diag fd = {.code = PLUMB_OK};
            size_t len = 0;
            char *text = plumb_read_file(path, (size_t)1 << 30, &len, &fd);
            ir_module *m = NULL;
            if (text) {
                ir_parse_options po = {sizeof po, 0, max_bytes};
                m = ir_parse(text, len, path, &po, &fd);
                plumb_free(text, len + 1);
                ir_verify_options vo = {sizeof vo, max_bytes};
                if (m && !ir_verify(m, &vo, &fd)) {
                    ir_module_free(m);
                    m = NULL;
                }
            }
            if (!m) {
                plumb_diag_set(d, PLUMB_ERR_USAGE, (plumb_loc){0, 0}, "%s:%u: variant %s: %s", c->file, lineno,
                               path, fd.msg);
                return false;
            }
            const ir_func *f = ir_module_find_func(m, r->entry);
            bool ok = false;
            if (!f) {
                plumb_diag_set(d, PLUMB_ERR_USAGE, (plumb_loc){0, 0}, "%s:%u: unknown entry: variant %s has no function @%s",
                               c->file, lineno, path, r->entry);
            } else if (strcmp(r->module, "*") != 0 && (!m->name || strcmp(m->name, r->module) != 0)) {
                plumb_diag_set(d, PLUMB_ERR_USAGE, (plumb_loc){0, 0}, "%s:%u: variant %s is module %s%s, not @%s",
                               c->file, lineno, path, m->name ? "@" : "", m->name ? m->name : "(unnamed)", r->module);
            } else {
                rt_canon cn;
                memset(&cn, 0, sizeof cn);
                ok = rt_canon_build(&cn, m, f, kc, d);
                if (ok)
                    rt_canon_key(&cn, v->key);
                rt_canon_free(&cn);
            }
            ir_module_free(m);
            if (!ok)
                return false;
        }
    }
    return true;
}

uint64_t rt_module_signature(const ir_func *f)
{
    /* element type and rank of every parameter and result, in order,
     * hashed in chunks (each chunk's hash seeds the next) */
    uint32_t v[128];
    uint32_t n = 0;
    uint64_t h = 0;
    v[n++] = f->body.n_args;
    v[n++] = f->n_results;
    for (uint32_t i = 0; i < f->body.n_args + f->n_results; i++) {
        const ir_type *t = i < f->body.n_args ? &f->body.args[i]->type : &f->result_types[i - f->body.n_args];
        v[n++] = (uint32_t)t->dtype;
        v[n++] = t->rank;
        if (n + 2 > sizeof v / sizeof v[0]) {
            h = XXH3_64bits_withSeed(v, n * sizeof v[0], h);
            n = 0;
        }
    }
    return XXH3_64bits_withSeed(v, n * sizeof v[0], h);
}

void rt_sig_note(rt_sig_book *b, uint64_t sig, bool built)
{
    uint32_t i = 0;
    while (i < b->n && b->sig[i] != sig)
        i++;
    if (i == b->n) {
        if (b->n == RT_SIG_MAX)
            i = RT_SIG_MAX - 1;   /* the last slot pools the rarest signatures: counts only grow */
        else
            b->n++;
        b->sig[i] = sig;
    }
    if (built)
        b->built[i]++;
}

uint32_t rt_sig_built(const rt_sig_book *b, uint64_t sig)
{
    for (uint32_t i = 0; i < b->n; i++)
        if (b->sig[i] == sig)
            return b->built[i];
    return 0;
}

static bool rule_matches(const ct_rule *r, const char *module, const char *entry, uint64_t sig)
{
    return pat_match(r->module, module) && pat_match(r->entry, entry) && (!r->has_sig || r->sig == sig);
}

/* True when some rule pins module/entry to a signature, and none to sig:
 * the compile is another module under a name the contract pinned. */
static bool foreign_signature(const plumb_contract *c, const char *module, const char *entry, uint64_t sig,
                              const ct_rule **pinned)
{
    *pinned = NULL;
    for (uint32_t i = 0; i < c->n; i++) {
        const ct_rule *r = &c->r[i];
        if (!r->has_sig || !pat_match(r->module, module) || !pat_match(r->entry, entry))
            continue;
        if (r->sig == sig)
            return false;
        if (!*pinned)
            *pinned = r;
    }
    return *pinned != NULL;
}

void rt_contract_touch(plumb_contract *c, const char *module, const char *entry, uint64_t sig)
{
    for (uint32_t i = 0; i < c->n; i++)
        if (rule_matches(&c->r[i], module, entry, sig))
            c->r[i].used = true;
}

void rt_contract_warn_shared(const plumb_contract *c, rt_sig_book *b, const char *module, const char *entry,
                             uint64_t sig, FILE *f)
{
    if (b->warned || b->n == 0 || b->sig[0] == sig || !f)
        return;
    for (uint32_t i = 0; i < c->n; i++) {
        const ct_rule *r = &c->r[i];
        if (r->has_sig || !pat_match(r->module, module) || !pat_match(r->entry, entry) ||
            strcmp(r->module, "*") == 0)
            continue;
        fprintf(f,
                "plumb: warning: contract %s:%u: module %s entry %s now has signature %016llx, its first program "
                "%016llx: if these are two different models sharing the name, they share this rule's budget; "
                "pin each with 'module %s signature HEX entry %s ...' (docs/contracts.md)\n",
                c->file, r->line, module ? module : "(unnamed)", entry, (unsigned long long)sig,
                (unsigned long long)b->sig[0], module ? module : "NAME", entry);
        fflush(f);
        b->warned = true;
        return;
    }
}

bool rt_contract_admit(const plumb_contract *c, const char *module, const char *entry, uint64_t sig,
                       uint32_t built, const rt_sig_book *book, uint64_t runs, const uint64_t key[2],
                       const char *explanation, char *why, size_t cap)
{
    size_t w = 0;
    char k[33];
    fmt_key(key, k);
#define CT_PUT(...)                                                                                     \
    do {                                                                                                \
        if (w < cap) {                                                                                  \
            int n_ = snprintf(why + w, cap - w, __VA_ARGS__);                                           \
            w += n_ > 0 ? (size_t)n_ : 0;                                                               \
        }                                                                                               \
    } while (0)
    why[0] = 0;
    bool ok = true;
    const ct_rule *pinned;
    if (foreign_signature(c, module, entry, sig, &pinned)) {
        CT_PUT("contract %s:%u: %s%s@%s has module signature %016llx, but the contract pins module %s entry %s to "
               "signature %016llx: another module under the same @name",
               c->file, pinned->line, module ? module : "", module ? "/" : "", entry, (unsigned long long)sig,
               pinned->module, pinned->entry, (unsigned long long)pinned->sig);
        ok = false;
    }
    for (uint32_t i = 0; i < c->n; i++) {
        const ct_rule *r = &c->r[i];
        if (!rule_matches(r, module, entry, sig))
            continue;
        const char *sep = ok ? "" : "; ";
        uint32_t count = r->has_sig ? rt_sig_built(book, sig) : built;
        if (r->kind == CT_MAX_PROGRAMS && count >= r->n) {
            CT_PUT("%scontract %s:%u: %s%s@%s would build program %u%s, max-programs %llu", sep, c->file, r->line,
                   module ? module : "", module ? "/" : "", entry, count + 1,
                   r->has_sig ? " of its signature" : "", (unsigned long long)r->n);
            ok = false;
        } else if (r->kind == CT_WARMUP && runs >= r->n) {
            CT_PUT("%scontract %s:%u: %s%s@%s compiles after %llu runs (warmup-runs %llu then no-new-compiles)", sep,
                   c->file, r->line, module ? module : "", module ? "/" : "", entry, (unsigned long long)runs,
                   (unsigned long long)r->n);
            ok = false;
        } else if (r->kind == CT_VARIANTS) {
            bool found = false;
            for (uint32_t j = 0; j < r->n_v && !found; j++)
                found = r->v[j].key[0] == key[0] && r->v[j].key[1] == key[1];
            if (!found) {
                CT_PUT("%scontract %s:%u: %s%s@%s program key %s is not one of its %u variants (", sep, c->file,
                       r->line, module ? module : "", module ? "/" : "", entry, k, r->n_v);
                for (uint32_t j = 0; j < r->n_v; j++) {
                    char vk[33];
                    fmt_key(r->v[j].key, vk);
                    if (r->v[j].is_key)
                        CT_PUT("%s%s", j ? ", " : "", vk);
                    else
                        CT_PUT("%s%s = %s", j ? ", " : "", r->v[j].text, vk);
                }
                CT_PUT(")");
                ok = false;
            }
        }
    }
    if (!ok)
        CT_PUT("; %s", explanation ? explanation : "it is the entry's first program built in this run");
#undef CT_PUT
    return ok;
}

bool rt_contract_unmatched(const plumb_contract *c, char *out, size_t cap)
{
    size_t w = 0;
    bool ok = true;
    out[0] = 0;
    for (uint32_t i = 0; i < c->n && w < cap; i++) {
        if (c->r[i].used)
            continue;
        char sg[40] = "";
        if (c->r[i].has_sig)
            snprintf(sg, sizeof sg, " signature %016llx", (unsigned long long)c->r[i].sig);
        int n = snprintf(out + w, cap - w, "%s%s:%u: module %s%s entry %s matched no compiled entry", ok ? "" : "; ",
                         c->file, c->r[i].line, c->r[i].module, sg, c->r[i].entry);
        w += n > 0 ? (size_t)n : 0;
        ok = false;
    }
    return ok;
}

/* ---- builds made outside a runtime (certify) ------------------------------------ */

#define CT_LEDGER_ENTRIES 32

typedef struct ct_ledger_entry {
    char module[CT_NAME];
    bool named;
    char entry[CT_NAME];
    uint32_t built;
    rt_sig_book sigs;
} ct_ledger_entry;

struct plumb_contract_ledger {
    plumb_contract *c;
    rt_key_ctx kc;
    ct_ledger_entry e[CT_LEDGER_ENTRIES];
    uint32_t n;
};

plumb_contract_ledger *plumb_contract_ledger_new(plumb_contract *c, plumb_diag *d)
{
    plumb_contract_ledger *l = plumb_calloc(1, sizeof *l);
    if (!l) {
        plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory checking contract %s", c->file);
        return NULL;
    }
    l->c = c;
    l->kc.isa = PLUMB_ISA_PORTABLE;
    l->kc.opt_level = 2;
    if (!rt_contract_resolve(c, &l->kc, 0, d)) {
        plumb_free(l, sizeof *l);
        return NULL;
    }
    return l;
}

void plumb_contract_ledger_free(plumb_contract_ledger *l)
{
    if (l)
        plumb_free(l, sizeof *l);
}

bool plumb_contract_ledger_build(plumb_contract_ledger *l, const ir_module *m, const char *entry, uint64_t runs,
                                 const char *explanation, char *why, size_t cap)
{
    const char *name = entry ? entry : "main";
    const ir_func *f = ir_module_find_func(m, name);
    if (!f) {
        snprintf(why, cap, "the program has no function @%s", name);
        return false;
    }
    uint64_t key[2] = {0, 0};
    rt_canon cn;
    memset(&cn, 0, sizeof cn);
    plumb_diag kd = {.code = PLUMB_OK};
    if (!rt_canon_build(&cn, m, f, &l->kc, &kd)) {
        snprintf(why, cap, "cannot key the program: %s", kd.msg);
        return false;
    }
    rt_canon_key(&cn, key);
    rt_canon_free(&cn);
    ct_ledger_entry *e = NULL;
    for (uint32_t i = 0; i < l->n && !e; i++)
        if (strcmp(l->e[i].entry, name) == 0 && l->e[i].named == (m->name != NULL) &&
            (!m->name || strcmp(l->e[i].module, m->name) == 0))
            e = &l->e[i];
    if (!e) {
        if (l->n == CT_LEDGER_ENTRIES || strlen(name) >= CT_NAME || (m->name && strlen(m->name) >= CT_NAME)) {
            snprintf(why, cap, "more than %d module entries (or a name longer than %d bytes) in one run",
                     CT_LEDGER_ENTRIES, CT_NAME - 1);
            return false;
        }
        e = &l->e[l->n++];
        memset(e, 0, sizeof *e);
        snprintf(e->entry, sizeof e->entry, "%s", name);
        e->named = m->name != NULL;
        if (m->name)
            snprintf(e->module, sizeof e->module, "%s", m->name);
    }
    const char *mod = e->named ? e->module : NULL;
    uint64_t sig = rt_module_signature(f);
    rt_contract_touch(l->c, mod, name, sig);
    bool ok = rt_contract_admit(l->c, mod, name, sig, e->built, &e->sigs, runs, key, explanation, why, cap);
    e->built++;
    rt_sig_note(&e->sigs, sig, true);
    return ok;
}
