/* main.c - llmroof's entry point. Closing stdout is checked here, once: a buffered
 * write that fails only at close (a full disk, /dev/full) is still an error, exit 1. */
#include <errno.h>
#include <stdio.h>

#include "cli/cli.h"

int main(int argc, char **argv)
{
    int rc = cli_main(argc, argv, 0);
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
