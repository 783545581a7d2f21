/* cli_output.c - the result on stdout: tables in the chosen format, the JSON document they
 * assemble, streaming a long result (sweep), and a failed write to stdout. */
#include "cli/cli.h"

#include <errno.h>
#include <stdio.h>

#include "render/render_json.h"

int cli_stdout_failed(struct cli *c)
{
    if (errno == EPIPE)
        return CLI_EXIT_PIPE; /* the reader has all it wanted: end quietly */
    fprintf(c->errf, "llmroof: error: cannot write to stdout\n");
    return 1;
}

int cli_flush(struct cli *c, size_t threshold)
{
    if (c->out.len < threshold)
        return 0;
    if (sbuf_failed(&c->out)) {
        fprintf(c->errf, "llmroof: error: out of memory while rendering output\n");
        return 1;
    }
    if (!(c->flags & CLI_NO_STDOUT) &&
        (fwrite(c->out.data, 1, c->out.len, c->outf) != c->out.len || fflush(c->outf) != 0))
        return cli_stdout_failed(c);
    c->out.len = 0;
    c->out.data[0] = '\0';
    return 0;
}

struct rjdoc *cli_json(struct cli *c)
{
    if (!c->json) {
        char schema[64];
        snprintf(schema, sizeof schema, "llmroof.%s/1", c->cmd ? c->cmd : "?");
        c->json = rjdoc_new(c->json_schema ? c->json_schema : schema);
        if (!c->json)
            c->out.failed = true;
    }
    return c->json;
}

void cli_table(struct cli *c, const char *name, const struct table *t)
{
    if (c->format == TABLE_JSON) {
        rjdoc_table(cli_json(c), name, t);
        return;
    }
    /* text and Markdown fit a 100-column terminal: a wider table prints in parts that repeat
     * its first column (the row's name) */
    if (table_sel_wants(&c->sel, c->format, name))
        table_render_fit(t, c->format, CLI_TEXT_WIDTH, 1, &c->out);
}

void cli_table_whole(struct cli *c, const char *name, const struct table *t)
{
    if (c->format == TABLE_MD) {
        if (table_sel_wants(&c->sel, c->format, name))
            table_render(t, c->format, &c->out);
        return;
    }
    cli_table(c, name, t);
}

bool cli_prose(const struct cli *c)
{
    return c->format == TABLE_TEXT || c->format == TABLE_MD;
}

const char *cli_fmt_bytes(double b, char *buf, size_t n)
{
    if (b >= 1073741824.0 || b <= -1073741824.0)
        snprintf(buf, n, "%.2f GiB", b / 1073741824.0);
    else if (b >= 1048576.0 || b <= -1048576.0)
        snprintf(buf, n, "%.2f MiB", b / 1048576.0);
    else if (b >= 1024.0 || b <= -1024.0)
        snprintf(buf, n, "%.2f KiB", b / 1024.0);
    else
        snprintf(buf, n, "%.0f B", b);
    return buf;
}
