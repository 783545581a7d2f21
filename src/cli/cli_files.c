/* cli_files.c - output files (--svg, --requests-out, -o, ...): staged during the run and
 * committed only when it succeeds, so a failed run leaves no new or replaced file. */
#define _XOPEN_SOURCE 700 /* NOLINT(bugprone-reserved-identifier): realpath is POSIX XSI */
#include "cli/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int stage(struct cli *c, char *target, char *tmp, const struct sbuf *b)
{
    char *data = NULL;
    if (!tmp && !(data = malloc(b->len ? b->len : 1)))
        goto oom;
    if (data && b->len)
        memcpy(data, sbuf_str(b), b->len);
    if (c->n_files == c->cap_files) {
        size_t cap = c->cap_files ? 2 * c->cap_files : 8;
        struct cli_file *f = realloc(c->files, cap * sizeof *f);
        if (!f)
            goto oom;
        c->files = f;
        c->cap_files = cap;
    }
    c->files[c->n_files++] = (struct cli_file){ target, tmp, data, b->len, false };
    return 0;
oom:
    fprintf(c->errf, "llmroof: error: out of memory\n");
    free(data);
    if (tmp)
        unlink(tmp);
    free(tmp);
    free(target);
    return 1;
}

/* The file `path` names once its symlinks are followed (at most 40, as Linux's ELOOP limit):
 * a relative link is taken from the link's directory. Caller frees; NULL on failure. */
static char *resolve_links(const char *path)
{
    char *cur = strdup(path);
    for (int hop = 0; cur && hop < 40; hop++) {
        struct stat st;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode))
            return cur;
        char link[PATH_MAX];
        ssize_t n = readlink(cur, link, sizeof link - 1);
        if (n < 0) {
            free(cur);
            return NULL;
        }
        link[n] = '\0';
        const char *slash = strrchr(cur, '/');
        size_t dirlen = link[0] == '/' || !slash ? 0 : (size_t)(slash - cur) + 1;
        char *next = malloc(dirlen + (size_t)n + 1);
        if (next) {
            memcpy(next, cur, dirlen);
            memcpy(next + dirlen, link, (size_t)n + 1);
        }
        free(cur);
        cur = next;
    }
    free(cur);
    errno = ELOOP;
    return NULL;
}

/* Creates "<target>.tmp.<pid>.<n>" exclusively, mode 0666 less the umask (as fopen would
 * create target itself). mkstemp would create 0600 and need the umask read back, which only
 * umask(), a process-wide setter, can do. Returns the name (caller frees) and the open
 * descriptor in *fd; NULL with the errno in *err. */
static char *create_temp(const char *target, int *fd, int *err)
{
    size_t n = strlen(target) + 64;
    char *tmp = malloc(n);
    if (!tmp) {
        *err = ENOMEM;
        return NULL;
    }
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    unsigned long salt = (unsigned long)ts.tv_nsec ^ ((unsigned long)(uintptr_t)&ts >> 4);
    for (int attempt = 0; attempt < 100; attempt++) {
        snprintf(tmp, n, "%s.tmp.%ld.%lx", target, (long)getpid(), salt + (unsigned long)attempt * 7919u);
        *fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (*fd >= 0)
            return tmp;
        if (errno != EEXIST)
            break;
    }
    *err = errno;
    free(tmp);
    return NULL;
}

int cli_write_file(struct cli *c, const char *path, const struct sbuf *b)
{
    if (c->flags & CLI_NO_FILES)
        return 0;
    struct stat st, lst;
    bool exists = stat(path, &st) == 0; /* follows symlinks: st describes the target */
    if (exists && S_ISDIR(st.st_mode)) {
        fprintf(c->errf, "llmroof: error: %s: cannot write file: %s\n", path, strerror(EISDIR));
        return 2;
    }
    /* Written through the name at commit: a device or FIFO (/dev/full, /dev/stdout) cannot be
     * renamed over, a file with other hard links would lose them, and a dangling symlink
     * names the file that open() will create. */
    if ((exists && (!S_ISREG(st.st_mode) || st.st_nlink > 1)) ||
        (!exists && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode))) {
        char *target = strdup(path);
        if (!target) {
            fprintf(c->errf, "llmroof: error: out of memory\n");
            return 1;
        }
        return stage(c, target, NULL, b);
    }
    /* a symlink's target is replaced, never the link itself */
    char *target = exists ? resolve_links(path) : strdup(path);
    if (!target) {
        fprintf(c->errf, "llmroof: error: %s: cannot write file: %s\n", path, strerror(errno));
        return 1;
    }
    int fd = -1, e = 0;
    char *tmp = create_temp(target, &fd, &e);
    if (!tmp) {
        fprintf(c->errf, "llmroof: error: %s: cannot create file: %s\n", path, strerror(e));
        free(target);
        return e == ENOENT || e == ENOTDIR || e == ENAMETOOLONG ? 2 : 1; /* a path naming no place is bad input */
    }
    /* a replaced file keeps its mode; a new one has the mode open() gave it (0666 less the
     * umask, applied by the kernel: reading the umask would change process-wide state) */
    if (exists)
        (void)fchmod(fd, st.st_mode & 07777);
    FILE *f = fdopen(fd, "wb");
    bool ok = f && fwrite(sbuf_str(b), 1, b->len, f) == b->len;
    e = errno;
    ok = (f && fclose(f) == 0) && ok;
    if (!f)
        close(fd);
    if (!ok) {
        fprintf(c->errf, "llmroof: error: %s: cannot write file: %s\n", path, strerror(e ? e : EIO));
        unlink(tmp);
        free(tmp);
        free(target);
        return 1;
    }
    return stage(c, target, tmp, b);
}

static bool write_through(const struct cli_file *f)
{
    int fd = open(f->target, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd < 0)
        return false;
    size_t off = 0;
    while (off < f->len) {
        ssize_t w = write(fd, f->data + off, f->len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int e = w < 0 ? errno : EIO;
            close(fd);
            errno = e;
            return false;
        }
        off += (size_t)w;
    }
    return close(fd) == 0;
}

int cli_files_commit_through(struct cli *c)
{
    for (size_t i = 0; i < c->n_files; i++) {
        struct cli_file *f = &c->files[i];
        if (f->tmp || f->done)
            continue;
        if (!write_through(f)) {
            fprintf(c->errf, "llmroof: error: %s: cannot write file: %s\n", f->target, strerror(errno));
            return 1;
        }
        f->done = true;
    }
    return 0;
}

int cli_made_dir(struct cli *c, const char *path)
{
    char *d = strdup(path);
    char **v = d ? realloc(c->made_dirs, sizeof *v * (size_t)(c->n_made_dirs + 1)) : NULL;
    if (!v) {
        free(d);
        fprintf(c->errf, "llmroof: error: out of memory\n");
        return 1;
    }
    c->made_dirs = v;
    c->made_dirs[c->n_made_dirs++] = d;
    return 0;
}

/* Forgets the directories made (remove: rmdir them first, innermost first; one that is not
 * empty stays). */
static void made_dirs_free(struct cli *c, bool remove)
{
    for (int i = c->n_made_dirs - 1; i >= 0; i--) {
        if (remove)
            (void)rmdir(c->made_dirs[i]);
        free(c->made_dirs[i]);
    }
    free(c->made_dirs);
    c->made_dirs = NULL;
    c->n_made_dirs = 0;
}

int cli_files_commit(struct cli *c)
{
    int rc = 0;
    for (size_t i = 0; i < c->n_files; i++) {
        struct cli_file *f = &c->files[i];
        if (f->done) {
            /* written through already (cli_files_commit_through) */
        } else if (rc) {
            if (f->tmp)
                unlink(f->tmp); /* an earlier file failed: the rest are not replaced */
        } else if (f->tmp ? rename(f->tmp, f->target) != 0 : !write_through(f)) {
            fprintf(c->errf, "llmroof: error: %s: cannot write file: %s\n", f->target, strerror(errno));
            if (f->tmp)
                unlink(f->tmp);
            rc = 1;
        }
        free(f->target);
        free(f->tmp);
        free(f->data);
    }
    free(c->files);
    c->files = NULL;
    c->n_files = c->cap_files = 0;
    if (!rc)
        made_dirs_free(c, false); /* the run succeeded: its directories stay */
    return rc;
}

void cli_files_discard(struct cli *c)
{
    for (int i = 0; i < c->n_out_paths; i++)
        free(c->out_paths[i].key);
    c->n_out_paths = 0;
    for (size_t i = 0; i < c->n_files; i++) {
        if (c->files[i].tmp)
            unlink(c->files[i].tmp);
        free(c->files[i].target);
        free(c->files[i].tmp);
        free(c->files[i].data);
    }
    free(c->files);
    c->files = NULL;
    c->n_files = c->cap_files = 0;
    /* after the staged files: a directory this failed run created is empty again, and goes
     * (report --svg-dir new/dir > /dev/full had left new/dir behind) */
    made_dirs_free(c, true);
}

/* ------------------------------------------------------------------------ */
/* Output paths: checked before the work                                    */
/* ------------------------------------------------------------------------ */

/* The directory part of path ("." for a bare name) into buf. */
static void dir_of(const char *path, char *buf, size_t n)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(buf, n, ".");
    else if (slash == path)
        snprintf(buf, n, "/");
    else
        snprintf(buf, n, "%.*s", (int)(slash - path), path);
}

/* --svg-dir DIR is created with its missing parents (mkdir -p): the nearest existing
 * ancestor must be a directory we may write into. */
static int check_output_dir(struct cli *c, const char *opt, const char *path)
{
    char p[PATH_MAX];
    if (snprintf(p, sizeof p, "%s", path) >= (int)sizeof p)
        return cli_usage_error(c, "option '--%s': %s: cannot create directory: %s", opt, CLI_CLIP(path),
                               strerror(ENAMETOOLONG));
    for (;;) {
        struct stat st;
        if (stat(p, &st) == 0) {
            if (!S_ISDIR(st.st_mode))
                return cli_usage_error(c, "option '--%s': %s: cannot create directory: '%s' is not a directory", opt,
                                       CLI_CLIP(path), CLI_CLIP(p));
            if (access(p, W_OK | X_OK) != 0)
                return cli_usage_error(c, "option '--%s': %s: cannot %s: %s", opt, CLI_CLIP(path),
                                       strcmp(p, path) ? "create directory" : "write into directory", strerror(errno));
            return 0;
        }
        if (errno != ENOENT && errno != ENOTDIR) /* ENOTDIR: an ancestor is a file, found going up */
            return cli_usage_error(c, "option '--%s': %s: cannot create directory: %s", opt, CLI_CLIP(path),
                                   strerror(errno));
        char up[PATH_MAX];
        dir_of(p, up, sizeof up);
        if (!strcmp(up, p))
            return 0; /* "." or "/" missing: let mkdir report it */
        memcpy(p, up, strlen(up) + 1);
    }
}

/* Whether paths a and b are one existing file (one device and inode: hard links and symlinks
 * included); false when either does not exist. */
static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int cli_check_output(struct cli *c, const char *opt, const char *path, int kind)
{
    if (!*path)
        return cli_usage_error(c, "option '--%s': an empty file name", opt);
    /* '-' is standard input where a command reads (cli_read_input); as an output it would be
     * standard output, which every command fills with its result: refused, where it had
     * written a file named '-' */
    if (!strcmp(path, "-"))
        return cli_usage_error(c, "option '--%s': '-' would be standard output, which holds the command's result: name "
                                  "a %s (./- for one named '-')", opt, kind == CLI_OUT_DIR ? "directory" : "file");
    if (kind == CLI_OUT_DIR)
        return check_output_dir(c, opt, path);
    struct stat st;
    bool exists = stat(path, &st) == 0; /* follows symlinks: the file that will be written */
    if (exists && S_ISDIR(st.st_mode))
        return cli_usage_error(c, "option '--%s': %s: cannot write file: %s", opt, CLI_CLIP(path), strerror(EISDIR));
    if (exists && access(path, W_OK) != 0)
        return cli_usage_error(c, "option '--%s': %s: cannot write file: %s", opt, CLI_CLIP(path), strerror(errno));
    if (exists && !S_ISREG(st.st_mode))
        return 0; /* a device or FIFO is written through its name; /dev/null twice is fine */
    /* a regular file, or a new one: a temporary beside it is renamed over it */
    char dir[PATH_MAX];
    dir_of(path, dir, sizeof dir);
    struct stat dst;
    if (stat(dir, &dst) != 0 || !S_ISDIR(dst.st_mode)) {
        bool missing = stat(dir, &dst) != 0;
        return cli_usage_error(c, "option '--%s': %s: cannot create file: '%s' %s", opt, CLI_CLIP(path), CLI_CLIP(dir),
                               missing ? "does not exist" : "is not a directory");
    }
    char real_dir[PATH_MAX];
    if (!realpath(dir, real_dir) || access(real_dir, W_OK | X_OK) != 0)
        return cli_usage_error(c, "option '--%s': %s: cannot create file: %s", opt, CLI_CLIP(path), strerror(errno));
    /* the same file under two options would be written twice, the last silently winning */
    char real[PATH_MAX];
    char *key = NULL;
    struct stat lst;
    char target[PATH_MAX];
    ssize_t tl;
    if (exists && realpath(path, real))
        key = strdup(real);
    else if (!exists && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode) &&
             (tl = readlink(path, target, sizeof target - 1)) > 0) {
        /* a dangling symlink is written through: its target is the file (a review: b.svg -> a.svg,
         * a.svg not yet made, had passed as two files) */
        target[tl] = '\0';
        char tdir[PATH_MAX], treal[PATH_MAX];
        if (target[0] == '/')
            dir_of(target, tdir, sizeof tdir);
        else {
            char joined[2 * PATH_MAX + 2];
            snprintf(joined, sizeof joined, "%s/%s", real_dir, target);
            dir_of(joined, tdir, sizeof tdir);
        }
        const char *tb = strrchr(target, '/');
        tb = tb ? tb + 1 : target;
        if (realpath(tdir, treal)) {
            size_t n = strlen(treal) + strlen(tb) + 2;
            if ((key = malloc(n)))
                snprintf(key, n, "%s/%s", treal, tb);
        }
    }
    if (!key && !(exists && realpath(path, real))) {
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        size_t n = strlen(real_dir) + strlen(base) + 2;
        if ((key = malloc(n)))
            snprintf(key, n, "%s/%s", real_dir, base);
    }
    if (!key) {
        fprintf(c->errf, "llmroof: error: out of memory\n");
        return 1;
    }
    for (int i = 0; i < c->n_out_paths; i++)
        if (strcmp(c->out_paths[i].key, key) == 0 || same_file(c->out_paths[i].key, key)) {
            free(key);
            return cli_usage_error(c, "options '--%s' and '--%s' name the same file '%s': give each its own", c->out_paths[i].opt,
                                   opt, CLI_CLIP(path));
        }
    if (c->n_out_paths >= CLI_MAX_OUTPUTS) {
        free(key);
        return cli_usage_error(c, "option '--%s': more than %d output files", opt, CLI_MAX_OUTPUTS);
    }
    c->out_paths[c->n_out_paths++] = (struct cli_out_path){ opt, key, path };
    return 0;
}

int cli_check_outputs_apart(struct cli *c, const char *const *inputs, const char *const *input_opts, int n)
{
    for (int i = 0; i < c->n_out_paths; i++)
        for (int k = 0; k < n; k++) {
            if (!inputs[k] || inputs[k] == c->out_paths[i].arg)
                continue;
            struct stat st;
            if (stat(inputs[k], &st) != 0 || !S_ISREG(st.st_mode) || !same_file(c->out_paths[i].key, inputs[k]))
                continue;
            /* an output over a file the command reads (a review: validate M.csv --svg M.csv replaced
             * the measurements with a chart, exit 0) */
            if (input_opts[k])
                return cli_usage_error(c, "options '--%s' and '--%s' name the same file '%s': the output would "
                                          "replace the input it reads",
                                       c->out_paths[i].opt, input_opts[k], CLI_CLIP(inputs[k]));
            return cli_usage_error(c, "option '--%s' names the input file '%s': the output would replace the input it "
                                      "reads", c->out_paths[i].opt, CLI_CLIP(inputs[k]));
        }
    return 0;
}

int cli_check_input(struct cli *c, const char *opt, const char *path)
{
    if (!*path)
        return cli_usage_error(c, "option '--%s': an empty file name", opt);
    if (!strcmp(path, "-")) {
        char what[80];
        snprintf(what, sizeof what, "option '--%s'", opt);
        return cli_check_stdin(c, what, path);
    }
    /* worded as cli_check_output's: "option '--gpus-file': PATH: cannot read file: WHY" */
    struct stat st;
    if (stat(path, &st) != 0)
        return cli_usage_error(c, "option '--%s': %s: cannot read file: %s", opt, CLI_CLIP(path), strerror(errno));
    if (!S_ISREG(st.st_mode)) /* a directory or FIFO: the loader reads regular files only (its words) */
        return cli_usage_error(c, "option '--%s': %s: not a regular file", opt, CLI_CLIP(path));
    if (access(path, R_OK) != 0)
        return cli_usage_error(c, "option '--%s': %s: cannot read file: %s", opt, CLI_CLIP(path), strerror(errno));
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Inputs: '-' is standard input, read once                                  */
/* ------------------------------------------------------------------------ */

const char *cli_input_name(const char *path)
{
    return strcmp(path, "-") ? path : "<stdin>";
}

int cli_stdin_claim(struct cli *c, const char *what, const char *arg, struct llmroof_err *err)
{
    if (!c->inf)
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s: '-' reads standard input, which a library request does not "
                               "have: name a file (./- for one named '-')", what);
    if (c->stdin_arg && c->stdin_arg != arg) /* two arguments '-': the second would read nothing */
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s: '-' reads standard input, which %s reads already: one input "
                               "at most can be '-' (./- for a file named '-')", what, c->stdin_what);
    if (!c->stdin_arg) {
        c->stdin_arg = arg;
        snprintf(c->stdin_what, sizeof c->stdin_what, "%s", what); /* what may be the caller's buffer */
    }
    return LLMROOF_OK;
}

int cli_check_stdin(struct cli *c, const char *what, const char *arg)
{
    struct llmroof_err err = { 0 };
    if (strcmp(arg, "-") != 0 || !cli_stdin_claim(c, what, arg, &err))
        return 0;
    return cli_usage_error(c, "%s", err.msg);
}

/* Standard input whole into c->stdin_text (once), at most max_bytes. */
static int read_stdin(struct cli *c, const char *what, size_t max_bytes, struct llmroof_err *err)
{
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap);
    if (!buf)
        return llmroof_err_set(err, LLMROOF_EINTERNAL, "%s: standard input: out of memory", what);
    for (;;) {
        if (n == cap - 1) {
            if (n > max_bytes)
                break;
            size_t ncap = cap * 2;
            char *nb = realloc(buf, ncap);
            if (!nb) {
                free(buf);
                return llmroof_err_set(err, LLMROOF_EINTERNAL, "%s: standard input: out of memory", what);
            }
            buf = nb;
            cap = ncap;
        }
        size_t got = fread(buf + n, 1, cap - 1 - n, c->inf);
        n += got;
        if (got == 0)
            break;
    }
    if (n > max_bytes) {
        free(buf);
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s: standard input is larger than the %zu-byte limit", what,
                               max_bytes);
    }
    if (ferror(c->inf)) {
        int e = errno;
        free(buf);
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s: standard input: read error: %s", what, strerror(e ? e : EIO));
    }
    buf[n] = '\0';
    c->stdin_text = buf;
    c->stdin_len = n;
    return LLMROOF_OK;
}

int cli_read_input(struct cli *c, const char *what, const char *path, size_t max_bytes, char **out, size_t *len,
                   struct llmroof_err *err)
{
    if (strcmp(path, "-") != 0)
        return catalog_read_file(path, max_bytes, out, len, err);
    *out = NULL;
    *len = 0;
    int rc = cli_stdin_claim(c, what, path, err);
    if (rc)
        return rc;
    if (!c->stdin_text && (rc = read_stdin(c, what, max_bytes, err)))
        return rc;
    if (!c->stdin_text) /* read_stdin sets it on success; said for the analyser */
        return llmroof_err_set(err, LLMROOF_EINTERNAL, "%s: standard input was not read", what);
    if (c->stdin_len > max_bytes)
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s: standard input is larger than the %zu-byte limit", what,
                               max_bytes);
    /* a copy: the caller frees its text, and the same argument may be read again */
    if (!(*out = malloc(c->stdin_len + 1)))
        return llmroof_err_set(err, LLMROOF_EINTERNAL, "%s: standard input: out of memory", what);
    memcpy(*out, c->stdin_text, c->stdin_len + 1);
    *len = c->stdin_len;
    return LLMROOF_OK;
}
