/* main.c - llmroof's entry point. Every command is the command line's (cli_main) but `serve`,
 * which runs the HTTP server: a separate executable, llmroof-serve (src/api/serve_main.c), so
 * that this one does not link libmicrohttpd. That library brings GnuTLS and eight more shared
 * libraries, whose loading and relocation cost every process about 1.2 ms at start
 * (docs/performance.md, "One estimate process"), three times what `estimate` itself needs.
 * `llmroof serve ARGS` replaces this process (execv: same pid, so signals reach the server)
 * with llmroof-serve ARGS, looked for beside this binary (/proc/self/exe: the build tree or
 * the installed bindir), then on PATH.
 * Closing stdout is checked here, once: a buffered write that fails only at close (a full disk,
 * /dev/full) is still an error, exit 1. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd_serve.h"

#define SERVE_EXE "llmroof-serve"

/* Runs llmroof-serve with argv ("serve", options...); returns only when it cannot be run, or
 * when the options are read here already: --help (0) or a usage error (2) needs no server, and
 * had failed with "cannot run llmroof-serve", exit 1, where that binary was missing. The server
 * reads them again, with the same code (serve_parse), and checks what needs its files. */
static int run_server(int argc, char **argv)
{
    struct serve_opts o;
    int rc = serve_parse(argc, argv, &o, stdout, stderr);
    if (rc)
        return rc < 0 ? 0 : rc;
    char path[PATH_MAX];
    argv[0] = SERVE_EXE;
    ssize_t len = readlink("/proc/self/exe", path, sizeof path - 1); /* Linux: this binary's path */
    if (len > 0) {
        path[len] = '\0';
        char *slash = strrchr(path, '/');
        if (slash && (size_t)(slash + 1 - path) + sizeof SERVE_EXE <= sizeof path) {
            memcpy(slash + 1, SERVE_EXE, sizeof SERVE_EXE);
            if (access(path, X_OK) == 0)
                execv(path, argv);
        }
    }
    execvp(SERVE_EXE, argv);
    fprintf(stderr, "llmroof: error: serve: cannot run %s (looked beside this binary, then on PATH): %s\n",
            SERVE_EXE, strerror(errno));
    return 1;
}

int main(int argc, char **argv)
{
    /* "llmroof help serve" is the server's own --help, which only its executable prints */
    char serve_word[] = "serve", help_flag[] = "--help";
    char *serve_help[] = { serve_word, help_flag, NULL };
    int rc = argc > 1 && !strcmp(argv[1], "serve") ? run_server(argc - 1, argv + 1)
             : argc == 3 && !strcmp(argv[1], "help") && !strcmp(argv[2], "serve") ? run_server(2, serve_help)
                                                                                 : cli_main(argc, argv, 0);
    if (fclose(stdout) != 0 && rc == 0) {
        if (errno == EPIPE) {
            rc = CLI_EXIT_PIPE; /* the reader went away: end quietly, as SIGPIPE would */
        } else {
            fprintf(stderr, "llmroof: error: cannot write to stdout\n");
            rc = 1;
        }
    }
    return rc;
}
