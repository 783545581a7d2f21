/* cmd_import_hf.c - `llmroof import-hf CONFIG.json --name ID` */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "model/arch.h"
#include "model/ckpt.h"
#include "render/render_json.h"
#include "render/rj_add.h"

enum { OPT_NAME = 1 };

static int on_opt(struct cli *c, void *ctx, int id, const char *arg)
{
    (void)c;
    if (id == OPT_NAME)
        *(const char **)ctx = arg;
    return 0;
}

/* NVIDIA Model Optimizer writes its quantization beside config.json, in hf_quant_config.json
 * ({"producer": {"name": "modelopt"}, "quantization": {"quant_algo": "NVFP4", "group_size": 16,
 * "exclude_modules": [...]}}), which vLLM and SGLang read (a review of session 65 found an NVFP4
 * checkpoint imported as 16-bit weights without a word). Where config.json has no
 * quantization_config and the file lies beside it, *text is replaced by the config with
 * quantization_config {"quant_method": "modelopt", "quantization": ...} (hf_quant.c). 0, or the exit
 * status of a failure (said). */
static int modelopt_sibling(struct cli *c, const char *file, char **text, size_t *len)
{
    char sib[4096];
    const char *slash = strrchr(file, '/');
    const int dirlen = slash ? (int)(slash - file + 1) : 0;
    if (snprintf(sib, sizeof sib, "%.*shf_quant_config.json", dirlen, file) >= (int)sizeof sib)
        return 0;
    struct stat st;
    if (stat(sib, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    cJSON *cfg = cJSON_ParseWithLength(*text, *len);
    if (!cfg || !cJSON_IsObject(cfg) || cJSON_GetObjectItemCaseSensitive(cfg, "quantization_config")) {
        cJSON_Delete(cfg); /* malformed (the importer says so) or quantized in config.json already */
        return 0;
    }
    char *qt = NULL;
    size_t qlen = 0;
    struct llmroof_err err = { 0 };
    if (cli_read_input(c, sib, sib, (size_t)1024 * 1024, &qt, &qlen, &err)) {
        cJSON_Delete(cfg);
        return cli_fail(c, &err);
    }
    cJSON *hq = cJSON_ParseWithLength(qt, qlen);
    free(qt);
    const cJSON *quant = hq ? cJSON_GetObjectItemCaseSensitive(hq, "quantization") : NULL;
    if (!cJSON_IsObject(quant)) {
        cJSON_Delete(hq);
        cJSON_Delete(cfg);
        fprintf(c->errf, "llmroof: error: %s: expected a JSON object with an object 'quantization' (Model Optimizer's "
                         "hf_quant_config.json)\n", sib);
        return 2;
    }
    /* checked adds: rj_print refuses a tree an add failed on (out of memory) */
    cJSON *qc = rj_obj(cfg, "quantization_config");
    rj_str(qc, "quant_method", "modelopt");
    rj_item(qc, "quantization", cJSON_Duplicate(quant, true));
    char *merged = rj_print(cfg, false, false);
    cJSON_Delete(hq);
    cJSON_Delete(cfg);
    if (!merged)
        return 1;
    free(*text);
    *text = merged;
    *len = strlen(merged);
    fprintf(c->errf, "llmroof: note: %s: quantization read from %s\n", file, sib);
    return 0;
}

int cmd_import_hf(struct cli *c, int argc, char **argv)
{
    static const struct cli_opt opts[] = {
        { OPT_NAME, "name", 'n', "ID", "catalog id of the new entry (required)", false },
    };
    const char *name = NULL;
    char *pos[1];
    int npos = 0;
    c->usage = "llmroof import-hf CONFIG.json|ORG/NAME --name ID";
    /* a catalog file is JSON: the help's --format line and the check of a given one say so */
    c->formats = 1u << TABLE_JSON;
    if (!c->format_set)
        c->format = TABLE_JSON;
    c->positionals = "import-hf takes one CONFIG.json or ORG/NAME";
    int rc = cli_parse(c, argc, argv, opts, 1, on_opt, &name, pos, 1, &npos,
                       "Reads a HuggingFace config.json (llama, mistral, mixtral, qwen2, qwen3, qwen3_moe,\n"
                       "deepseek_v2, deepseek_v3, kimi_k2, gemma2, gemma3, gpt_oss, llama4, falcon, gptj, opt,\n"
                       "internlm; by their fields the hybrid and sparse-attention families qwen3_next, qwen3_5,\n"
                       "nemotron_h, granitemoehybrid, kimi_linear, jamba, falcon_h1, minimax, deepseek_v32,\n"
                       "glm_moe_dsa and others docs/catalog.md lists; the text_config of multimodal configs), or\n"
                       "a repository id ORG/NAME from the local HuggingFace cache ($HF_HUB_CACHE, else\n"
                       "$HF_HOME/hub, else ~/.cache/huggingface/hub), and prints a catalog file with one model\n"
                       "entry; pass it back with --models-file. Fields that change the cost but are not modelled\n"
                       "are errors or warnings. Output is always JSON.");
    if (rc)
        return rc;
    if (npos != 1)
        return cli_usage_error(c, "expected one CONFIG.json or ORG/NAME");
    if (!*pos[0]) /* it had read as the file '' ("llmroof: error: : cannot read file") */
        return cli_usage_error(c, "expected one CONFIG.json or ORG/NAME, got an empty argument");
    if ((rc = cli_check_stdin(c, "CONFIG.json", pos[0])))
        return rc;
    if (!name)
        return cli_usage_error(c, "option '--name' is required");
    struct llmroof_err err = { 0 };
    char *text;
    size_t len;
    char path[4096];
    const char *file = pos[0]; /* '-': the config on standard input, never a repository id */
    if (strcmp(file, "-") != 0) {
        /* HUGGINGFACE_HUB_CACHE: huggingface_hub's older name for HF_HUB_CACHE, still read by it */
        const char *hub_cache = getenv("HF_HUB_CACHE");
        if (!hub_cache || !hub_cache[0])
            hub_cache = getenv("HUGGINGFACE_HUB_CACHE");
        if ((rc = catalog_hf_resolve(pos[0], hub_cache, getenv("HF_HOME"), getenv("HOME"), path, sizeof path, &err)))
            return cli_fail(c, &err);
        file = path;
    }
    if ((rc = cli_read_input(c, cli_input_name(file), file, (size_t)16 * 1024 * 1024, &text, &len, &err)))
        return cli_fail(c, &err);
    if (strcmp(file, "-") != 0 && (rc = modelopt_sibling(c, file, &text, &len)))
        return rc;
    struct llmroof_model m;
    char warn[2048];
    rc = catalog_model_from_hf_warn(text, len, cli_input_name(file), name, &m, warn, sizeof warn, &err);
    free(text);
    if (rc)
        return cli_fail(c, &err);
    /* one "llmroof: warning:" line per field the importer could not model */
    for (char *line = warn, *nl; *line; line = nl + 1) {
        nl = strchr(line, '\n');
        if (!nl)
            break;
        fprintf(c->errf, "llmroof: warning: %.*s\n", (int)(nl - line), line);
    }
    char *j = render_json_model_doc(&m);
    if (!j)
        return 1;
    /* The entry must load as --models-file would load it: the loader's every bound applies
     * to what the importer derived, so an imported file never fails later. */
    struct llmroof_catalog check;
    catalog_init(&check);
    char where[4200];
    snprintf(where, sizeof where, "%s (imported entry)", cli_input_name(pos[0]));
    rc = catalog_add_models_text(&check, j, strlen(j), where, false, &err);
    catalog_free(&check);
    if (rc) {
        free(j);
        return cli_fail(c, &err);
    }
    /* what model cards quote, both ways (cards differ on counting the input embedding) */
    const struct llmroof_params p = arch_params(&m);
    /* the state at the dtype the config states for it (Qwen3.5's mamba_ssm_dtype float32), else 16 bits */
    const double sb = m.lin_state_dtype_set ? dtype_bytes(m.lin_state_dtype) : 2.0;
    fprintf(c->errf, "llmroof: note: %s: %.3f B parameters (%.3f B without the input embedding), %.3f B active "
            "(%.3f B); KV %.0f B per token at 16 bits and state %.0f B per sequence at %s\n", name, p.total / 1e9,
            (p.total - p.embedding) / 1e9, p.active / 1e9, (p.active - p.embedding) / 1e9,
            arch_kv_bytes_per_token(&m, 2.0), arch_state_elems_per_seq(&m) * sb,
            m.lin_state_dtype_set ? dtype_name(m.lin_state_dtype) : "16 bits");
    /* a checkpoint whose own dtype the commands take (ckpt_weight_dtype): say which, and how to
     * ask for another */
    enum llmroof_dtype own;
    if (ckpt_weight_dtype(&m, &own)) {
        char what[192];
        if (m.ckpt_expert_bits > 0) /* gpt-oss: MXFP4 experts, the rest 16-bit */
            snprintf(what, sizeof what, "%s experts at %g bits per weight, other weights %s", m.ckpt_format,
                     m.ckpt_expert_bits, dtype_name(own));
        else if ((own == LLMROOF_INT4 || own == LLMROOF_INT8) && m.ckpt_bits > (own == LLMROOF_INT4 ? 4.0 : 8.0))
            /* the group scales counted with the weights (ckpt_dtypes) */
            snprintf(what, sizeof what, "%s at %.4g bits per weight with its group scales", m.ckpt_format,
                     m.ckpt_bits);
        else if (m.ckpt_per_op) { /* the operators the quantizer left 16-bit */
            int o = snprintf(what, sizeof what, "%s at %.3f bits per weight, 16-bit:", m.ckpt_format, m.ckpt_bits);
            for (int i = 0; i < LLMROOF_CKPT_MODULES && o > 0 && (size_t)o < sizeof what; i++)
                if (m.ckpt_excluded >> i & 1u)
                    o += snprintf(what + o, sizeof what - (size_t)o, " %s", catalog_ckpt_module_name(i));
        } else
            snprintf(what, sizeof what, "%s at %.3f bits per weight%s", m.ckpt_format, m.ckpt_bits,
                     m.ckpt_bits > 8 && m.ckpt_bits < 9 ? " with its block scales" : "");
        fprintf(c->errf, "llmroof: note: %s: checkpoint %s: commands estimate it so unless --weight-dtype or "
                         "--weight-bits is given\n", name, what);
    }
    sbuf_append(&c->out, j);
    free(j);
    return 0;
}
