/* run.c - one llmroof command line: global options, the command table, and the final
 * write of the result to stdout (checked: a failed write is an error, exit 1).
 * Kept apart from main() so the fuzz harness can run millions of command lines in one
 * process (see tests/fuzz/fuzz_cli.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/parse.h"
#include "cli/cli.h"
#include "cli/optscan.h"
#include "render/render_json.h"

struct command {
    const char *name;
    int (*fn)(struct cli *c, int argc, char **argv);
    const char *summary;
};

/* `serve` is the HTTP server, a layer above the command line (src/api/server.c): main() runs it
 * when it is the program's first word. Listed here so that --help shows it; reached through
 * this table (after a global option, or through the library API) it is refused. */
static int cmd_serve_elsewhere(struct cli *c, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_usage_error(c, "'serve' must be the first word of the llmroof program (llmroof serve "
                              "[--host ADDR] [--port N]); it cannot run through the library API or "
                              "after global options");
}

static const struct command commands[] = {
    { "list", cmd_list, "list catalog GPUs, models or engines" },
    { "show", cmd_show, "show one GPU, model or engine with derived figures" },
    { "import-hf", cmd_import_hf, "turn a HuggingFace config.json into a catalog entry" },
    { "estimate", cmd_estimate, "TTFT, TPOT, throughput and operator breakdown of a batch" },
    { "memory", cmd_memory, "weights, KV cache, capacity and max batch per GPU" },
    { "report", cmd_report, "the GPU x TP comparison: latencies, bounds, operator shares, observations" },
    { "roofline", cmd_roofline, "operators of prefill and decode on a GPU's roofline (table, SVG)" },
    { "simulate", cmd_simulate, "continuous batching with chunked prefill: latency percentiles under load" },
    { "plan", cmd_plan, "GPUs, TP and nodes to serve N users under TTFT/TPOT SLOs" },
    { "validate", cmd_validate, "compare llmroof with published measurements (error tables, scatter, bands)" },
    { "calibrate", cmd_calibrate, "fit a GPU's efficiencies to measurements; write a catalog entry" },
    { "sweep", cmd_sweep, "stream estimates for every combination of models, GPUs, TP, batch, lengths, dtypes" },
    { "check", cmd_check, "re-evaluate a sweep baseline and report every drift beyond a tolerance" },
    { "serve", cmd_serve_elsewhere, "a local web page and JSON API over HTTP ('llmroof serve --help')" },
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

/* The command a mistyped name most likely meant: the one within two edits (the first nearest),
 * or the only one it begins ("sim" for simulate); NULL when none or several. */
static const char *nearest_command(const char *name)
{
    const char *best = NULL, *prefix = NULL;
    int bd = 3, nprefix = 0;
    const size_t ln = strlen(name);
    for (size_t i = 0; i < NCOMMANDS; i++) {
        const int dd = parse_osa_distance(name, strlen(name), commands[i].name, strlen(commands[i].name));
        if (dd < bd) {
            bd = dd;
            best = commands[i].name;
        }
        if (ln >= 2 && strncmp(commands[i].name, name, ln) == 0) {
            prefix = commands[i].name;
            nprefix++;
        }
    }
    return best ? best : nprefix == 1 ? prefix : NULL;
}

static void usage(FILE *f)
{
    fputs("usage: llmroof [--gpus-file F] [--models-file F] [--format FMT] COMMAND [ARGS]\n\n"
          "Roofline estimates of LLM inference: how fast, how big, how many GPUs.\n\ncommands:\n", f);
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(f, "  %-12s %s\n", commands[i].name, commands[i].summary);
    fputs("\nglobal options (also accepted after the command):\n"
          "  --format FMT          table, md, csv or json; report adds html, sweep takes csv or\n"
          "                        jsonl, check table or json ('llmroof COMMAND --help' lists them)\n"
          "  --gpus-file FILE      add or replace GPU entries (repeatable)\n"
          "  --models-file FILE    add or replace model entries (repeatable)\n"
          "  -h, --help            show this help\n"
          "  --version             print the version\n\n"
          "environment: LLMROOF_DATA=DIR reads the catalog (gpus.json, models.json, engines.json, ...) from DIR.\n"
          "Run 'llmroof COMMAND --help' (or 'llmroof help COMMAND') for a command's options; see llmroof(1).\n", f);
}

/* --help and --version before the command take no argument: "llmroof --version extra" had
 * printed the version and exited 0, passing over the word it was given. The options after them
 * are not read (they win over any option, as in GNU programs); a positional argument, or one
 * after "--", is a usage error naming it, and where it names a command the message points to
 * that command's --help. Returns 0, or 2 after printing the error. */
static int no_command_after(struct cli *c, struct optscan *scan, const char *opt)
{
    while (optscan_next(scan).kind != OPTSCAN_END)
        ;
    if (scan->ind >= scan->argc)
        return 0;
    const char *arg = scan->argv[scan->ind];
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(commands[i].name, arg) == 0)
            return cli_usage_error(c, "unexpected argument '%s' after '%s' (for a command's help: llmroof %s --help)",
                                   CLI_CLIP(arg), opt, commands[i].name);
    return cli_usage_error(c, "unexpected argument '%s' after '%s'", CLI_CLIP(arg), opt);
}

static int write_out(struct cli *c, const struct sbuf *b)
{
    size_t n = b->len;
    if (c->flags & CLI_NO_STDOUT)
        return 0;
    if ((n && fwrite(b->data, 1, n, c->outf) != n) || fflush(c->outf) != 0 || ferror(c->outf))
        return cli_stdout_failed(c);
    return 0;
}

static void cli_init(struct cli *c, const struct cli_io *io, unsigned flags)
{
    memset(c, 0, sizeof *c);
    c->flags = flags;
    c->outf = io->out;
    c->errf = io->err;
    c->data_dir_arg = io->data_dir;
    c->shared_cat = io->catalog;
    c->stop = io->stop;
    c->inf = io->in;
    sbuf_init(&c->out);
}

int cli_load_catalog(const struct cli_io *io, struct llmroof_catalog *cat, char *dir, size_t n)
{
    struct cli c;
    cli_init(&c, io, CLI_REQUEST); /* a library's context: no "try 'llmroof --help'" after a message */
    c.shared_cat = NULL;
    int rc = cli_catalog(&c);
    sbuf_free(&c.out);
    if (rc) {
        catalog_free(&c.cat);
        return rc;
    }
    *cat = c.cat; /* ownership moves to the caller */
    snprintf(dir, n, "%s", c.data_dir);
    return 0;
}

int cli_main(int argc, char **argv, unsigned flags)
{
    const struct cli_io io = { stdout, stderr, NULL, NULL, { NULL, NULL }, stdin };
    return cli_run(&io, argc, argv, flags);
}

int cli_run(const struct cli_io *io, int argc, char **argv, unsigned flags)
{
    enum { G_FORMAT, G_GPUS_FILE, G_MODELS_FILE, G_HELP, G_VERSION };
    static const struct optscan_def defs[] = {
        [G_FORMAT] = { "format", 0, true },
        [G_GPUS_FILE] = { "gpus-file", 0, true },
        [G_MODELS_FILE] = { "models-file", 0, true },
        [G_HELP] = { "help", 'h', false },
        [G_VERSION] = { "version", 0, false },
    };
    struct cli c;
    cli_init(&c, io, flags);
    int rc = 0;

    /* global options stop at the command name: the command parses the rest */
    struct optscan scan;
    optscan_init(&scan, argc, argv, defs, (int)(sizeof defs / sizeof defs[0]), true);
    for (;;) {
        struct optscan_hit h = optscan_next(&scan);
        if (h.kind == OPTSCAN_END)
            break;
        if (h.kind == OPTSCAN_NO_VALUE) {
            rc = cli_no_value(&c, &h);
            goto done;
        }
        if (h.kind == OPTSCAN_AMBIGUOUS) {
            rc = cli_ambiguous_option(&c, &scan, h.text);
            goto done;
        }
        if (h.kind == OPTSCAN_FLAG_VALUE) {
            rc = cli_usage_error(&c, "option '--%s' takes no value (got '%s')", defs[h.idx].name, CLI_CLIP(h.text));
            goto done;
        }
        if (h.kind != OPTSCAN_OPTION) {
            rc = cli_usage_error(&c, "unknown option '%s'", CLI_CLIP(h.text));
            goto done;
        }
        switch (h.idx) {
        case G_FORMAT:
            if (c.format_set) {
                rc = cli_usage_error(&c, "option '--format' given more than once");
                goto done;
            }
            if (!table_parse_format(h.value, &c.format)) {
                rc = cli_usage_error(&c, "option '--format': unknown format '%s' (expected table, md, csv, json, html or jsonl)", CLI_CLIP(h.value));
                goto done;
            }
            c.format_set = true;
            break;
        case G_GPUS_FILE:
        case G_MODELS_FILE: {
            bool g = h.idx == G_GPUS_FILE;
            int *cnt = g ? &c.n_gpus_files : &c.n_models_files;
            if (*cnt >= CLI_MAX_FILES) {
                rc = cli_usage_error(&c, "too many catalog files");
                goto done;
            }
            if ((rc = cli_check_input(&c, g ? "gpus-file" : "models-file", h.value)))
                goto done;
            (g ? c.gpus_files : c.models_files)[(*cnt)++] = h.value;
            break;
        }
        case G_HELP:
        default: /* G_VERSION */
            if ((rc = no_command_after(&c, &scan, h.idx == G_HELP ? "--help" : "--version")))
                goto done;
            if (!(flags & CLI_NO_STDOUT)) {
                if (h.idx == G_HELP)
                    usage(c.outf);
                else
                    fprintf(c.outf, "llmroof %s\n", LLMROOF_VERSION);
            }
            rc = write_out(&c, &c.out);
            goto done;
        }
    }
    int first = scan.ind; /* the command name */
    if (first >= argc) {
        usage(c.errf);
        rc = 2;
        goto done;
    }
    const char *name = argv[first];
    /* "llmroof help [COMMAND]", as git and go take it: the overview, or that command's --help */
    char help_flag[] = "--help";
    char *help_argv[3] = { NULL, help_flag, NULL };
    if (strcmp(name, "help") == 0) {
        const char *what = argc - first > 1 ? argv[first + 1] : NULL;
        const bool overview = !what || !strcmp(what, "help") || !strcmp(what, "-h") || !strcmp(what, "--help");
        if (overview && argc - first > 2) {
            rc = cli_usage_error(&c, "help takes one command name, not '%s'", CLI_CLIP(argv[first + 2]));
            goto done;
        }
        /* help alone, help help, help -h: the overview */
        if (overview) {
            if (!(flags & CLI_NO_STDOUT))
                usage(c.outf);
            rc = write_out(&c, &c.out);
            goto done;
        }
        if (what[0] == '-') {
            rc = cli_usage_error(&c, "help takes a command name, not the option '%s' (global options go before "
                                     "'help'; 'llmroof COMMAND --help' lists a command's)", CLI_CLIP(what));
            goto done;
        }
        if (argc - first > 2) {
            rc = cli_usage_error(&c, "help takes one command name, not '%s'", CLI_CLIP(argv[first + 2]));
            goto done;
        }
        help_argv[0] = argv[first + 1];
        argv = help_argv;
        argc = 2;
        first = 0;
        name = argv[0];
    }
    const struct command *cmd = NULL;
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0)
            cmd = &commands[i];
    if (!cmd) {
        const char *near = nearest_command(name);
        if (near)
            rc = cli_usage_error(&c, "unknown command '%s' (did you mean '%s'?)", CLI_CLIP(name), near);
        else
            rc = cli_usage_error(&c, "unknown command '%s'", CLI_CLIP(name));
        goto done;
    }
    c.cmd = cmd->name;
    rc = cmd->fn(&c, argc - first, argv + first);
    if (rc == CLI_HELP)
        rc = 0;
    else if (rc == 0 && c.json) {
        char *j = rjdoc_finish(c.json);
        c.json = NULL;
        if (j)
            sbuf_append(&c.out, j);
        else
            c.out.failed = true;
        free(j);
    }
    if (rc == 0 && c.sel.pick && c.format == TABLE_CSV && !c.sel.printed) {
        char list[256] = "";
        for (int i = 0; i < c.sel.offered && i < TABLE_SEL_MAX; i++) {
            size_t used = strlen(list);
            snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "", c.sel.names[i]);
        }
        rc = cli_usage_error(&c, "option '--table': this command line prints no table '%s' (it prints %s)",
                             CLI_CLIP(c.sel.pick), list[0] ? list : "none");
    }
    if (rc == 0 && sbuf_failed(&c.out)) {
        fprintf(c.errf, "llmroof: error: out of memory while rendering output\n");
        rc = 1;
    }
    if (rc == 0 || (rc == 1 && c.out_on_failure)) {
        /* Files written through their name (/dev/full, a FIFO) go first: one that fails then
         * leaves stdout empty. Replaced files change only once the run and its stdout have
         * succeeded. */
        int wrc = cli_files_commit_through(&c);
        if (!wrc)
            wrc = write_out(&c, &c.out);
        if (!wrc)
            wrc = cli_files_commit(&c);
        if (wrc)
            rc = wrc;
    }
done:
    cli_files_discard(&c); /* a failed run leaves no new or replaced file */
    rjdoc_free(c.json);
    free(c.stdin_text);
    sbuf_free(&c.out);
    if (!c.cat_borrowed)
        catalog_free(&c.cat); /* also after a partial load: c is zeroed, so free(NULL) is fine */
    return rc;
}
