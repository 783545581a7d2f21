/* replay.c - runs a fuzz target over files and directories of inputs, without libFuzzer.
 * Usage: replay_<target> PATH... (a directory is read non-recursively, in name order so
 * runs are reproducible). Exit 0 when every input ran; a broken invariant aborts. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: %s: cannot open\n", path);
        return 1;
    }
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    for (;;) {
        if (!buf) {
            fclose(f);
            return 1;
        }
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        uint8_t *nb = realloc(buf, cap * 2);
        if (!nb)
            free(buf);
        buf = nb;
        cap *= 2;
    }
    fclose(f);
    /* an exact-size copy, so ASan catches a read one byte past the input */
    uint8_t *exact = malloc(n ? n : 1);
    if (!exact) {
        free(buf);
        return 1;
    }
    memcpy(exact, buf, n);
    free(buf);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    return 0;
}

static int cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
    int bad = 0;
    long count = 0;
    LLVMFuzzerInitialize(&argc, &argv);
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: %s: not found\n", argv[i]);
            return 1;
        }
        if (!S_ISDIR(st.st_mode)) {
            bad |= run_file(argv[i]);
            count++;
            continue;
        }
        DIR *d = opendir(argv[i]);
        if (!d)
            return 1;
        char **names = NULL;
        size_t nn = 0;
        struct dirent *e;
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.')
                continue;
            char **nx = realloc(names, (nn + 1) * sizeof *names);
            if (!nx)
                return 1;
            names = nx;
            size_t len = strlen(argv[i]) + strlen(e->d_name) + 2;
            names[nn] = malloc(len);
            if (!names[nn])
                return 1;
            snprintf(names[nn++], len, "%s/%s", argv[i], e->d_name);
        }
        closedir(d);
        if (nn)
            qsort(names, nn, sizeof *names, cmp);
        for (size_t k = 0; k < nn; k++) {
            bad |= run_file(names[k]);
            count++;
            free(names[k]);
        }
        free(names);
    }
    if (count == 0) {
        fprintf(stderr, "replay: no inputs (a corpus directory is empty?)\n");
        return 1;
    }
    fprintf(stderr, "replay: %ld inputs\n", count);
    return bad;
}
