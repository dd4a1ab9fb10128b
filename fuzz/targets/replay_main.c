/* The replay driver: a main for a fuzz target built without libFuzzer.
 * Runs LLVMFuzzerInitialize once, then every FILE argument, or every
 * regular file of every DIR argument (sorted by name), through
 * LLVMFuzzerTestOneInput, and prints "replay: N inputs" when none aborted.
 * An oracle violation aborts the process like it does under libFuzzer; the
 * file being run is named on stderr first, so a failure says which input.
 * Unreadable arguments are errors (exit 2), never skipped silently: a
 * corpus that vanished must not pass as an empty one. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "target.h"

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
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE|DIR...  (runs each input through the fuzz target)\n", argv[0]);
        return 2;
    }
    LLVMFuzzerInitialize(&argc, &argv);
    long total = 0;
    for (int i = 1; i < argc; i++) {
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
    printf("replay: %ld inputs\n", total);
    return 0;
}
