/* main.c - llmroof's entry point. `serve` runs the HTTP server (src/api/server.c, the layer
 * above the command line); every other command is the command line's (cli_main). Closing
 * stdout is checked here, once: a buffered write that fails only at close (a full disk,
 * /dev/full) is still an error, exit 1. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "api/server.h"
#include "cli/cli.h"

int main(int argc, char **argv)
{
    int rc = argc > 1 && !strcmp(argv[1], "serve") ? server_main(argc - 1, argv + 1) : cli_main(argc, argv, 0);
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
