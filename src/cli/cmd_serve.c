/* cmd_serve.c - see cli/cmd_serve.h. Hand-read options rather than getopt_long,
 * whose optind/optarg are process-wide: the server's threads run commands while this runs. */
#include "cli/cmd_serve.h"

#include <arpa/inet.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/parse.h"

static const char serve_help[] =
    "usage: llmroof serve [--host ADDR] [--port N] [--web DIR] [--data DIR] [--timeout T]\n"
    "                     [--max-sim-tokens N] [--max-plan-layouts N] [--max-compute T]\n"
    "\n"
    "An HTTP server with the page (GET /) and the JSON API (POST /api/v1/<command> with the\n"
    "C API's options object; docs/api.md). Stops cleanly on SIGINT or SIGTERM.\n"
    "\n"
    "  --host ADDR             address to bind (default 127.0.0.1: this machine only)\n"
    "  --port N                TCP port (default 8080; 0: any free port, printed)\n"
    "  --web DIR               the page's files (default: installed share/llmroof/web, or the source web/)\n"
    "  --data DIR              catalog directory (default: $LLMROOF_DATA, then the usual search)\n"
    "  --timeout T             close a connection idle for T (10, 10s or 2min: whole seconds), or whose\n"
    "                          request takes longer to arrive; a request waits at most T for a free CPU (default 10s)\n"
    "  --max-sim-tokens N      simulate: most requests x (prompt + output) tokens per request, a workload's\n"
    "                          mean lengths (default 20000000)\n"
    "  --max-plan-layouts N    plan: most GPUs x TP values searched per request (default 32)\n"
    "  --max-compute T         simulate, plan: stop a request's computation after T, 503 (default 120s);\n"
    "                          one whose client has gone is stopped at once\n";

/* One usage error, worded as every other command's (cli_parse.c: "option '--batch': 'abc' is not a
 * whole number in [1, 1000000]"), with the line that points to the help. */
static int usage(FILE *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int usage(FILE *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("llmroof: error: ", err);
    vfprintf(err, fmt, ap);
    va_end(ap);
    fputs("\ntry 'llmroof serve --help'\n", err);
    return 2;
}

int serve_parse(int argc, char **argv, struct serve_opts *o, FILE *out, FILE *err)
{
    *o = (struct serve_opts){ "127.0.0.1", 8080, NULL, NULL, 10, 2e7, 32, 120 };
    static const char *const names[] = { "--host", "--port", "--web", "--data", "--timeout", "--max-sim-tokens",
                                         "--max-plan-layouts", "--max-compute" };
    bool seen[sizeof names / sizeof names[0]] = { false }; /* given: once at most, as every command's options */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            /* help wins over the options after it (not read), not over an argument serve does
             * not take: "serve --help 8080" had printed the help and exited 0 */
            for (int j = i + 1; j < argc; j++) {
                bool takes_value = false;
                for (int q = 0; q < (int)(sizeof names / sizeof names[0]); q++)
                    takes_value |= !strcmp(argv[j], names[q]); /* "--port 8080": 8080 is its value */
                if (takes_value)
                    j++;
                else if (argv[j][0] != '-' || !argv[j][1]) /* '-' alone is an argument, as cli_parse reads it */
                    return usage(err, "unexpected argument '%s' (serve takes options only)", argv[j]);
            }
            fputs(serve_help, out);
            return -1;
        }
        int k = -1;
        const char *val = NULL;
        for (int j = 0; j < (int)(sizeof names / sizeof names[0]); j++) {
            size_t n = strlen(names[j]);
            if (!strncmp(a, names[j], n) && (a[n] == '\0' || a[n] == '=')) {
                k = j;
                val = a[n] == '=' ? a + n + 1 : NULL;
                break;
            }
        }
        if (k < 0)
            return a[0] == '-' && a[1] ? usage(err, "unknown option '%s'", a)
                                       : usage(err, "unexpected argument '%s' (serve takes options only)", a);
        /* a second value had silently replaced the first (--port 8080 --port 8081 served on 8081) */
        if (seen[k])
            return usage(err, "option '%s' given more than once", names[k]);
        seen[k] = true;
        if (!val) {
            if (i + 1 >= argc)
                return usage(err, "option '%s' needs a value", names[k]);
            val = argv[++i];
        }
        int64_t v = 0;
        double d = 0;
        switch (k) {
        case 0: {
            /* checked here, with the other options: it had been refused only once the catalog and
             * page were found, in the server, without the line that points to --help */
            struct in_addr addr;
            if (inet_pton(AF_INET, val, &addr) != 1)
                return usage(err, "option '--host': '%s' is not an IPv4 address (e.g. 127.0.0.1, 0.0.0.0)", val);
            o->host = val;
            break;
        }
        case 1:
            if (!parse_int64(val, 0, 65535, &v))
                return usage(err, "option '--port': '%s' is not a port number in [0, 65535]", val);
            o->port = (int)v;
            break;
        case 2:
        case 3: *(k == 2 ? &o->web_dir : &o->data_dir) = val; break;
        case 4:
            /* a duration as every other option reads one ("30s", "2min"); bare, seconds as before */
            if (!parse_duration(val, &d) || !(d >= 1 && d <= 3600) || d != floor(d))
                return usage(err, "option '--timeout': '%s' is not a whole number of seconds from 1s to 3600s "
                             "(e.g. 10, 10s, 2min)", val);
            o->timeout_s = (unsigned)d;
            break;
        case 5:
            if (!parse_double(val, &d) || !(d >= 1 && d <= 1e12))
                return usage(err, "option '--max-sim-tokens': '%s' is not a number in [1, 1e12]", val);
            o->max_sim_tokens = d;
            break;
        case 7:
            if (!parse_duration(val, &d) || !(d >= 1 && d <= 86400) || d != floor(d))
                return usage(err, "option '--max-compute': '%s' is not a whole number of seconds from 1s to 86400s "
                             "(e.g. 120, 120s, 2min)", val);
            o->max_compute_s = d;
            break;
        default:
            if (!parse_int64(val, 1, 100000, &v))
                return usage(err, "option '--max-plan-layouts': '%s' is not a whole number in [1, 100000]", val);
            o->max_plan_layouts = (int)v;
            break;
        }
    }
    return 0;
}

static bool has_index(const char *dir)
{
    char p[PATH_MAX + 16];
    struct stat st;
    snprintf(p, sizeof p, "%s/index.html", dir);
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

int serve_check_data_dir(const struct serve_opts *o, FILE *err)
{
    if (!o->data_dir)
        return 0;
    static const char *const files[] = { "gpus.json", "models.json" };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char p[PATH_MAX + 16];
        struct stat st;
        snprintf(p, sizeof p, "%s/%s", o->data_dir, files[i]);
        if (stat(p, &st) != 0 || !S_ISREG(st.st_mode)) {
            fprintf(err, "llmroof: error: option '--data': '%s' holds no %s (a catalog directory holds "
                         "gpus.json and models.json)\ntry 'llmroof serve --help'\n", o->data_dir, files[i]);
            return 2;
        }
    }
    return 0;
}

const char *serve_web_dir(const struct serve_opts *o, char *buf, size_t n, FILE *err)
{
    if (o->web_dir) {
        if (!has_index(o->web_dir)) {
            fprintf(err, "llmroof: error: option '--web': '%s' holds no index.html\ntry 'llmroof serve --help'\n",
                    o->web_dir);
            return NULL;
        }
        snprintf(buf, n, "%s", o->web_dir);
        return buf;
    }
    const char *env = getenv("LLMROOF_WEB");
    if (env && *env) {
        if (!has_index(env)) {
            fprintf(err, "llmroof: error: LLMROOF_WEB='%s' holds no index.html\n", env);
            return NULL;
        }
        snprintf(buf, n, "%s", env);
        return buf;
    }
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1); /* Linux: the binary's own path */
    if (len > 0) {
        exe[len] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            snprintf(buf, n, "%s/../share/llmroof/web", exe);
            if (has_index(buf))
                return buf;
            /* a copy of the binary with its page beside it (a review: a relocated tree served
             * the build's source page, another version, without a word) */
            snprintf(buf, n, "%s/web", exe);
            if (has_index(buf))
                return buf;
        }
    }
    static const char *const dirs[] = { LLMROOF_SOURCE_WEB_DIR, LLMROOF_INSTALL_WEB_DIR };
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
        if (has_index(dirs[i])) {
            snprintf(buf, n, "%s", dirs[i]);
            return buf;
        }
    fprintf(err, "llmroof: error: cannot find the page (index.html); use --web DIR or LLMROOF_WEB\n");
    return NULL;
}
