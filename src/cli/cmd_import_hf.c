/* cmd_import_hf.c - `llmroof import-hf CONFIG.json --name ID` */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "llmroof/render_json.h"

enum { OPT_NAME = 1 };

static int on_opt(struct cli *c, void *ctx, int id, const char *arg)
{
    (void)c;
    if (id == OPT_NAME)
        *(const char **)ctx = arg;
    return 0;
}

int cmd_import_hf(struct cli *c, int argc, char **argv)
{
    static const struct cli_opt opts[] = {
        { OPT_NAME, "name", 'n', "ID", "catalog id of the new entry (required)", false },
    };
    const char *name = NULL;
    char *pos[2];
    int npos = 0;
    c->usage = "llmroof import-hf CONFIG.json --name ID";
    int rc = cli_parse(c, argc, argv, opts, 1, on_opt, &name, pos, 2, &npos,
                       "Reads a HuggingFace config.json (llama, mistral, mixtral, qwen2, falcon, gptj, opt,\n"
                       "internlm) and prints a catalog file with one model entry; pass it back with\n"
                       "--models-file. Output is always JSON.");
    if (rc)
        return rc;
    if (npos != 1)
        return cli_usage_error(c, "expected one CONFIG.json");
    if (!name)
        return cli_usage_error(c, "option '--name' is required");
    if (c->format_set && c->format != TABLE_JSON)
        return cli_usage_error(c, "option '--format': import-hf writes a catalog file, which is JSON only");
    struct llmroof_err err = { 0 };
    char *text;
    size_t len;
    if ((rc = catalog_read_file(pos[0], (size_t)16 * 1024 * 1024, &text, &len, &err)))
        return cli_fail(c, &err);
    struct llmroof_model m;
    rc = catalog_model_from_hf(text, len, pos[0], name, &m, &err);
    free(text);
    if (rc)
        return cli_fail(c, &err);
    char *j = render_json_model_doc(&m);
    if (!j)
        return 1;
    /* The entry must load as --models-file would load it: the loader's every bound applies
     * to what the importer derived, so an imported file never fails later. */
    struct llmroof_catalog check;
    catalog_init(&check);
    char where[4200];
    snprintf(where, sizeof where, "%s (imported entry)", pos[0]);
    rc = catalog_add_models_text(&check, j, strlen(j), where, false, &err);
    catalog_free(&check);
    if (rc) {
        free(j);
        return cli_fail(c, &err);
    }
    sbuf_append(&c->out, j);
    free(j);
    return 0;
}
