/* The replay driver: a main for a fuzz target built without libFuzzer.
 * Runs LLVMFuzzerInitialize once, then every FILE argument, or every
 * regular file of every DIR argument (sorted by name), through
 * LLVMFuzzerTestOneInput, and prints "replay: N inputs" when none aborted.
 * An oracle violation aborts the process like it does under libFuzzer; the
 * file being run is named on stderr first, so a failure says which input.
 * Unreadable arguments are errors (exit 2), never skipped silently: a
 * corpus that vanished must not pass as an empty one.
 *
 * --mutate N (first argument): a target with a custom mutator
 * (LLVMFuzzerCustomMutator) also has each input mutated N times in a chain,
 * every mutant run through LLVMFuzzerTestOneInput (and counted), so that
 * make check exercises the mutator as well; deterministic (the seeds are
 * 1..N). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "target.h"

/* Defined only by targets that have one. */
__attribute__((weak)) size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

static unsigned long mutate_rounds;
static long mutants;
static uint32_t byte_state = 1;

/* libFuzzer's LLVMFuzzerMutate stand-in: flips a bit, or changes, inserts
 * or removes a byte (xorshift32, seeded by the custom mutator's calls). */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size)
{
    byte_state ^= byte_state << 13;
    byte_state ^= byte_state >> 17;
    byte_state ^= byte_state << 5;
    uint32_t r = byte_state;
    if (size == 0) {
        if (max_size == 0)
            return 0;
        data[0] = (uint8_t)r;
        return 1;
    }
    size_t at = (r >> 8) % size;
    switch (r & 3) {
    case 0: data[at] ^= (uint8_t)(1u << ((r >> 4) & 7)); return size;
    case 1: data[at] = (uint8_t)(r >> 16); return size;
    case 2:
        if (size < max_size) {
            memmove(data + at + 1, data + at, size - at);
            data[at] = (uint8_t)(r >> 16);
            return size + 1;
        }
        return size;
    default:
        memmove(data + at, data + at + 1, size - at - 1);
        return size - 1;
    }
}

static void run_mutants(const unsigned char *in, size_t len)
{
    if (!mutate_rounds || !LLVMFuzzerCustomMutator)
        return;
    size_t max = len * 2 + 4096;
    uint8_t *buf = malloc(max);
    if (!buf)
        return;
    memcpy(buf, in, len);
    size_t n = len;
    for (unsigned long i = 1; i <= mutate_rounds; i++) {
        byte_state = (uint32_t)i * 2654435761u + 1;
        n = LLVMFuzzerCustomMutator(buf, n, max, (unsigned int)i);
        if (n > max) {
            fprintf(stderr, "replay: the custom mutator returned %zu bytes, more than the %zu allowed\n", n, max);
            abort();
        }
        /* An exact-size copy, as for the inputs themselves. */
        uint8_t *exact = malloc(n ? n : 1);
        if (!exact)
            break;
        memcpy(exact, buf, n);
        LLVMFuzzerTestOneInput(exact, n);
        free(exact);
        mutants++;
    }
    free(buf);
}

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open '%s'\n", path);
        return -1;
    }
    size_t cap = 1 << 16, len = 0;
    unsigned char *buf = malloc(cap);
    while (buf) {
        size_t n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (len < cap)
            break;
        unsigned char *nb = realloc(buf, cap * 2);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    int err = ferror(f);
    fclose(f);
    if (!buf || err) {
        fprintf(stderr, "replay: cannot read '%s'\n", path);
        free(buf);
        return -1;
    }
    /* An exact-size copy, so ASan sees a read past the input's end. */
    unsigned char *exact = malloc(len ? len : 1);
    if (!exact) {
        free(buf);
        fprintf(stderr, "replay: out of memory reading '%s'\n", path);
        return -1;
    }
    memcpy(exact, buf, len);
    free(buf);
    fprintf(stderr, "replay: %s\n", path);
    LLVMFuzzerTestOneInput(exact, len);
    run_mutants(exact, len);
    free(exact);
    return 1;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int run_dir(const char *dir)
{
    DIR *dp = opendir(dir);
    if (!dp) {
        fprintf(stderr, "replay: cannot open directory '%s'\n", dir);
        return -1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(dp))) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **nn = realloc(names, cap * sizeof *names);
            if (!nn) {
                rc = -1;
                break;
            }
            names = nn;
        }
        if (!(names[n] = strdup(e->d_name))) {
            rc = -1;
            break;
        }
        n++;
    }
    closedir(dp);
    if (rc == 0 && n)
        qsort(names, n, sizeof *names, by_name);
    int count = 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        char path[8192];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        int r = run_file(path);
        if (r < 0)
            rc = -1;
        else
            count += r;
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    if (rc < 0)
        fprintf(stderr, "replay: cannot list '%s'\n", dir);
    return rc < 0 ? -1 : count;
}

int main(int argc, char **argv)
{
    int first = 1;
    if (argc >= 3 && strcmp(argv[1], "--mutate") == 0) {
        char *end;
        mutate_rounds = strtoul(argv[2], &end, 10);
        if (!*argv[2] || *end) {
            fprintf(stderr, "replay: --mutate takes a count, not '%s'\n", argv[2]);
            return 2;
        }
        first = 3;
    }
    if (argc <= first) {
        fprintf(stderr, "usage: %s [--mutate N] FILE|DIR...  (runs each input through the fuzz target)\n", argv[0]);
        return 2;
    }
    LLVMFuzzerInitialize(&argc, &argv);
    long total = 0;
    for (int i = first; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: '%s' does not exist\n", argv[i]);
            return 2;
        }
        int r = S_ISDIR(st.st_mode) ? run_dir(argv[i]) : run_file(argv[i]);
        if (r < 0)
            return 2;
        total += r;
    }
    if (mutate_rounds)
        printf("replay: %ld inputs, %ld mutants\n", total, mutants);
    else
        printf("replay: %ld inputs\n", total);
    return 0;
}
