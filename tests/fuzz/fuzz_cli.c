/* fuzz_cli.c - the whole command line, every command. The input is split at newlines
 * into argv (at most 24 arguments) and run as cli_main runs it (no stdin) with CLI_PARSE_ONLY |
 * CLI_NO_STDOUT | CLI_NO_FILES: option parsing, value parsing, catalog lookups, the
 * checks of every command and the fast commands (list, show, estimate, memory,
 * roofline, import-hf) run in full; slow ones (report, simulate, plan, sweep, validate,
 * calibrate) stop after validating their inputs. The catalog is tests/fuzz/data, a
 * small copy of data/, so a run costs microseconds. */
#include "cli/cli.h"
#include "fuzz.h"

#define MAX_ARGS 24

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    setenv("LLMROOF_DATA", LLMROOF_FUZZ_DATA, 1);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    char *buf = fuzz_cstr(data, size);
    char *argv[MAX_ARGS + 2];
    int argc = 0;
    argv[argc++] = "llmroof";
    char *p = buf;
    while (argc < MAX_ARGS + 1) {
        argv[argc++] = p;
        char *nl = memchr(p, '\n', (size_t)(buf + size - p));
        if (!nl)
            break;
        *nl = '\0';
        p = nl + 1;
    }
    argv[argc] = NULL;
    /* cli_main's streams with no standard input: an input named '-' is refused (cli_read_input),
     * where reading the fuzzer's own stdin would wait on it */
    const struct cli_io io = { stdout, stderr, NULL, NULL, { NULL, NULL }, NULL };
    int rc = cli_run(&io, argc, argv, CLI_PARSE_ONLY | CLI_NO_STDOUT | CLI_NO_FILES);
    /* every exit status is documented: 0 success, 1 internal failure or drift, 2 bad input */
    FUZZ_CHECK(rc == 0 || rc == 1 || rc == 2);
    free(buf);
    return 0;
}
