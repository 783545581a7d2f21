/* golden_inproc.c - every golden CLI case (tests/cli/golden/NAME.cmd, .out, .rc, .err), run
 * one after another inside ONE process through cli_run, the entry point main() and the JSON
 * API call, each with its own in-memory stdout and stderr.
 *
 * Two jobs:
 *   - natively (ctest cli_golden_inproc): a reentrancy check. Each case must print exactly what
 *     it prints in a fresh process (run_golden.sh), after a few hundred other commands ran in the
 *     same address space, so no state carries from one call to the next (the library keeps no
 *     global mutable state, docs/architecture.md).
 *   - under valgrind memcheck (scripts/test.sh stage 4): the same cases for uninitialised reads,
 *     invalid accesses and leaks, paying valgrind's start-up (about 0.5 s, most of a small
 *     case's cost under memcheck) once per shard instead of once per case.
 *
 *   golden_inproc DIR [--shard I/N] [--skip-list FILE] [NAME...]
 * runs the cases of DIR (all, sorted, or the NAMEs given); --shard I/N runs every N-th from the
 * I-th (0-based) so that N processes share them; --skip-list leaves out the first word of each
 * line of FILE (tests/cli/valgrind-skip.txt: the slow cases, covered under valgrind by small
 * ones). Runs from the repository root (DIR/../../..) with LLMROOF_DATA and LC_ALL as the caller
 * sets them. Prints "ok NAME" or the difference for each case; exits 1 when any case differs. */
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"

#define MAX_ARGS 256
#define MAX_CASES 4096

/* The whole of file PATH, NUL-terminated (binary-safe length in *len); NULL when unreadable. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (!buf)
            break;
        n += fread(buf + n, 1, cap - n - 1, f);
        if (n < cap - 1)
            break;
        char *grown = realloc(buf, cap * 2);
        if (!grown) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = grown;
        cap *= 2;
    }
    fclose(f);
    if (buf) {
        buf[n] = '\0';
        if (len)
            *len = n;
    }
    return buf;
}

/* The contents of an in-memory stream written by the command, NUL-terminated. */
static char *stream_text(FILE *f, size_t *len)
{
    fflush(f);
    long end = ftell(f);
    if (end < 0)
        return NULL;
    char *buf = malloc((size_t)end + 1);
    if (!buf)
        return NULL;
    rewind(f);
    size_t n = fread(buf, 1, (size_t)end, f);
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* Splits a .cmd line into words as the shell does for run_golden.sh's `eval set --`: blanks
 * separate words, '...' is literal, "..." keeps blanks and takes \" \\ \$ \` escapes, a
 * backslash outside quotes escapes the next character. The words are written into line itself.
 * Returns the word count, or -1 for an unterminated quote or too many words. */
static int split_words(char *line, char **argv, int max)
{
    int argc = 0;
    char *r = line, *w = line;
    for (;;) {
        while (*r == ' ' || *r == '\t' || *r == '\n' || *r == '\r')
            r++;
        if (!*r)
            return argc;
        if (argc == max)
            return -1;
        argv[argc++] = w;
        while (*r && *r != ' ' && *r != '\t' && *r != '\n' && *r != '\r') {
            if (*r == '\'') {
                char *q = strchr(r + 1, '\'');
                if (!q)
                    return -1;
                memmove(w, r + 1, (size_t)(q - r - 1));
                w += q - r - 1;
                r = q + 1;
            } else if (*r == '"') {
                r++;
                while (*r && *r != '"') {
                    if (*r == '\\' && r[1] && strchr("\"\\$`", r[1]))
                        r++;
                    *w++ = *r++;
                }
                if (*r != '"')
                    return -1;
                r++;
            } else if (*r == '\\' && r[1]) {
                *w++ = r[1];
                r += 2;
            } else {
                *w++ = *r++;
            }
        }
        const bool end = !*r;
        *w++ = '\0';
        if (end)
            return argc;
        r++;
    }
}

/* Whether NAME is the first word of a line of the skip list (not a comment). */
static bool skipped(const char *list, const char *name)
{
    if (!list)
        return false;
    const size_t n = strlen(name);
    for (const char *line = list; *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : line + strlen(line)) {
        if (*line != '#' && !strncmp(line, name, n) && (line[n] == ' ' || line[n] == '\t' || line[n] == '\n'))
            return true;
    }
    return false;
}

/* DIR/NAME.EXT into path[0..n); an empty string when it does not fit (then nothing opens). */
static void case_path(char *path, size_t n, const char *dir, const char *name, const char *ext)
{
    const int len = snprintf(path, n, "%s/%s.%s", dir, name, ext);
    if (len < 0 || (size_t)len >= n)
        path[0] = '\0';
}

/* Runs case NAME of DIR in this process; returns 0 when it matches its golden files. */
static int run_case(const char *dir, const char *name)
{
    char path[4096];
    case_path(path, sizeof path, dir, name, "cmd");
    char *cmd = slurp(path, NULL);
    if (!cmd) {
        printf("FAIL %s: cannot read %s\n", name, path);
        return 1;
    }
    char *argv[MAX_ARGS + 2];
    argv[0] = "llmroof";
    int words = split_words(cmd, argv + 1, MAX_ARGS);
    if (words < 0) {
        printf("FAIL %s: cannot split %s into words\n", name, path);
        free(cmd);
        return 1;
    }
    argv[words + 1] = NULL;
    FILE *out = tmpfile(), *err = tmpfile();
    if (!out || !err) {
        printf("FAIL %s: no temporary file\n", name);
        if (out)
            fclose(out);
        if (err)
            fclose(err);
        free(cmd);
        return 1;
    }
    const struct cli_io io = { out, err, NULL, NULL, { NULL, NULL }, NULL }; /* no case reads '-' */
    const int rc = cli_run(&io, words + 1, argv, 0);
    size_t out_len = 0, err_len = 0, want_len = 0;
    char *got = stream_text(out, &out_len), *msg = stream_text(err, &err_len);
    fclose(out);
    fclose(err);

    int status = 0;
    case_path(path, sizeof path, dir, name, "rc");
    char *want_rc = slurp(path, NULL);
    if (!want_rc || atoi(want_rc) != rc) {
        printf("FAIL %s: exit status %d, expected %s", name, rc, want_rc ? want_rc : "(no .rc file)\n");
        status = 1;
    }
    case_path(path, sizeof path, dir, name, "out");
    char *want = slurp(path, &want_len);
    if (!want || !got || want_len != out_len || memcmp(want, got, out_len) != 0) {
        size_t at = 0;
        while (want && got && at < want_len && at < out_len && want[at] == got[at])
            at++;
        printf("FAIL %s: stdout differs from %s.out at byte %zu (%zu bytes, expected %zu)\n", name, name, at, out_len,
               want_len);
        status = 1;
    }
    case_path(path, sizeof path, dir, name, "err");
    char *want_err = slurp(path, NULL);
    if (want_err) {
        char *nl = strchr(want_err, '\n'); /* run_golden.sh greps the file's text: one line */
        if (nl)
            *nl = '\0';
        if (!msg || !strstr(msg, want_err)) {
            printf("FAIL %s: stderr lacks: %s\nstderr was:\n%s", name, want_err, msg ? msg : "");
            status = 1;
        }
    }
    if (rc == 2 && err_len == 0) {
        printf("FAIL %s: failed without a message on stderr\n", name);
        status = 1;
    }
    if (!status)
        printf("ok %s\n", name);
    fflush(stdout);
    free(want_err);
    free(want);
    free(want_rc);
    free(got);
    free(msg);
    free(cmd);
    return status;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: golden_inproc DIR [--shard I/N] [--skip-list FILE] [NAME...]\n");
        return 2;
    }
    const char *dir = argv[1];
    int shard = 0, shards = 1, first_name = argc;
    char *skip = NULL;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--shard") && i + 1 < argc) {
            if (sscanf(argv[++i], "%d/%d", &shard, &shards) != 2 || shards < 1 || shard < 0 || shard >= shards) {
                fprintf(stderr, "golden_inproc: --shard wants I/N with 0 <= I < N, not '%s'\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(argv[i], "--skip-list") && i + 1 < argc) {
            free(skip);
            if (!(skip = slurp(argv[++i], NULL))) {
                fprintf(stderr, "golden_inproc: cannot read %s\n", argv[i]);
                return 2;
            }
        } else {
            first_name = i;
            break;
        }
    }

    /* the cases, sorted: the named ones or every NAME.cmd of DIR */
    char **names = calloc(MAX_CASES, sizeof *names);
    int n = 0;
    if (!names)
        return 2;
    if (first_name < argc) {
        for (int i = first_name; i < argc && n < MAX_CASES; i++)
            names[n++] = strdup(argv[i]);
    } else {
        DIR *d = opendir(dir);
        if (!d) {
            fprintf(stderr, "golden_inproc: cannot open %s\n", dir);
            free(names);
            free(skip);
            return 2;
        }
        for (struct dirent *e; (e = readdir(d)) && n < MAX_CASES;) {
            const size_t len = strlen(e->d_name);
            if (len > 4 && !strcmp(e->d_name + len - 4, ".cmd"))
                names[n++] = strndup(e->d_name, len - 4);
        }
        closedir(d);
        qsort(names, (size_t)n, sizeof *names, by_name);
    }

    /* cases run from the repository root, as run_golden.sh runs them (DIR = ROOT/tests/cli/golden):
     * enter DIR to learn its absolute name, then go up to the root */
    char abs_dir[4096];
    int failed = 0, ran = 0;
    if (chdir(dir) != 0 || !getcwd(abs_dir, sizeof abs_dir) || chdir("../../..") != 0) {
        fprintf(stderr, "golden_inproc: cannot enter %s or the repository root above it\n", dir);
        failed = 1;
    } else {
        for (int i = 0; i < n; i++) {
            if (i % shards != shard)
                continue;
            if (skipped(skip, names[i])) {
                printf("skip %s (the skip list)\n", names[i]);
                continue;
            }
            failed += run_case(abs_dir, names[i]) != 0;
            ran++;
        }
        printf("%d of %d cases ran in one process, %d failed\n", ran, n, failed);
    }
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
    free(skip);
    return failed ? 1 : 0;
}
