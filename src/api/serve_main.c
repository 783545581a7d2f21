/* serve_main.c - llmroof-serve, the executable behind `llmroof serve` (src/api/main.c execs it
 * with the same options): the HTTP server (src/api/server.c) over libmicrohttpd. Kept out of
 * the llmroof binary so that only this process loads libmicrohttpd and its TLS libraries.
 * Run directly, `llmroof-serve [options]` is `llmroof serve [options]`. */
#include <errno.h>
#include <stdio.h>

#include "api/server.h"
#include "cli/cli.h"

int main(int argc, char **argv)
{
    int rc = server_main(argc, argv); /* argv[0] stands for "serve": options start at argv[1] */
    if (fclose(stdout) != 0 && rc == 0) {
        if (errno == EPIPE) {
            rc = CLI_EXIT_PIPE;
        } else {
            fprintf(stderr, "llmroof: error: cannot write to stdout\n");
            rc = 1;
        }
    }
    return rc;
}
