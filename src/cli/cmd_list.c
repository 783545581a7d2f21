/* cmd_list.c - `llmroof list gpus|models` */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "model/arch.h"

static void peak_cell(struct table *t, const struct llmroof_gpu *g, enum llmroof_dtype d)
{
    if (g->has_peak[d])
        table_num(t, g->peak_flops[d] / 1e12);
    else
        table_empty(t); /* no such compute path: absent, never 0 */
}

/* An entry's aliases, space-separated into buf; false when it has none */
static bool join_aliases(char *buf, size_t size, const char (*aliases)[LLMROOF_ID_MAX], int n)
{
    buf[0] = '\0';
    for (int a = 0; a < n; a++) {
        size_t used = strlen(buf);
        snprintf(buf + used, size - used, "%s%s", a ? " " : "", aliases[a]);
    }
    return n > 0;
}

/* The attention a model runs, in a few words: a user reading "kv_heads 128, head_dim 192" of an MLA
 * model would take its cache for 128 heads of 192; "MLA 512+64" says what it caches (the latent and
 * the shared rope key). Then what departs from every layer attending its whole context: sparse
 * attention, windows (on k of n layers), recurrent/linear mixers, layers without a mixer. */
static void attention_cell(const struct llmroof_model *m, char *buf, size_t size)
{
    size_t n = 0;
#define PUT(...) (n += (size_t)snprintf(buf + n, n < size ? size - n : 0, __VA_ARGS__), n = n < size ? n : size - 1)
    buf[0] = '\0';
    if (m->kv_lora_rank > 0)
        PUT("MLA %ld+%ld", m->kv_lora_rank, m->qk_rope_dim);
    else
        PUT("%s", m->kv_heads == m->heads ? "MHA" : m->kv_heads == 1 ? "MQA" : "GQA");
    if (m->dsa_top_k > 0)
        PUT(", DSA top-%ld", m->dsa_top_k);
    long local = 0, linear = 0, none = 0, both = 0;
    for (long i = 0; i < m->layers && i < LLMROOF_PATTERN_MAX; i++) {
        char k = m->mixers[0] ? m->mixers[i] : (m->window > 0 && (m->window_global_every == 0 ||
                                                                 (i + 1) % m->window_global_every != 0)) ? 'W' : 'A';
        local += k == 'W';
        linear += k == 'L';
        both += k == 'P';
        none += k == 'N';
    }
    if (local)
        PUT(", %s %ld on %ld/%ld", m->window_chunked ? "chunks of" : "window", m->window, local, m->layers);
    if (linear)
        PUT(", %s on %ld/%ld", linear_kind_name(m->linear_kind), linear, m->layers);
    if (both)
        PUT(", %s beside it on %ld/%ld", linear_kind_name(m->linear_kind), both, m->layers);
    if (none)
        PUT(", no mixer on %ld/%ld", none, m->layers);
    if (m->attention_sinks)
        PUT(", sinks");
#undef PUT
}

int cmd_list(struct cli *c, int argc, char **argv)
{
    char *pos[1];
    int npos = 0;
    c->usage = "llmroof list gpus|models|engines [--format FMT]";
    c->positionals = "list takes one: gpus, models or engines";
    int rc = cli_parse(c, argc, argv, NULL, 0, NULL, NULL, pos, 1, &npos,
                       "Lists the catalog. Peaks are dense TFLOP/s (TOP/s for int); an empty cell means the GPU\n"
                       "has no such compute path. Engines are serving-framework profiles for --engine.");
    if (rc)
        return rc;
    if (npos != 1)
        return cli_usage_error(c, "expected 'gpus', 'models' or 'engines'");
    bool gpus = strcmp(pos[0], "gpus") == 0, engines = strcmp(pos[0], "engines") == 0;
    if (!gpus && !engines && strcmp(pos[0], "models") != 0)
        return cli_usage_error(c, "unknown list '%s' (expected 'gpus', 'models' or 'engines')", CLI_CLIP(pos[0]));
    if ((rc = cli_catalog(c)) || (engines && (rc = cli_engine_catalog(c))))
        return rc;

    struct table t;
    if (engines) {
        table_init(&t, "");
        table_col(&t, "id", 0);
        table_col(&t, "name", 0);
        table_col(&t, "step_overhead_us", 0);
        table_col(&t, "first_token_ms", 1);
        table_col(&t, "compute_scale", 2);
        table_col(&t, "collective_latency_us", 1);
        table_col(&t, "launch_us", 1);
        table_col(&t, "launch_mla_us", 1);
        table_col(&t, "graphs", 0);
        table_col(&t, "kernel_factor", 1);
        table_col(&t, "attention_kernel", 0);
        table_col(&t, "act_quant", 0); /* docs/json.md had listed it and the list lacked it */
        table_col(&t, "dequant_min_tokens", 0);
        table_col(&t, "mmq_share", 3);
        table_col(&t, "wo_issue_per_flop", 2);
        table_col(&t, "prompt_ubatch_tokens", 0);
        table_col(&t, "flags", 0);
        table_col(&t, "aliases", 0);
        for (size_t i = 0; i < c->cat.n_engines; i++) {
            const struct llmroof_engine *e = &c->cat.engines[i];
            table_row(&t);
            table_str(&t, e->id);
            table_str(&t, e->name);
            table_num(&t, e->step_overhead_s * 1e6);
            table_num(&t, e->first_token_s * 1e3);
            table_num(&t, e->compute_scale);
            table_num(&t, e->collective_latency_s * 1e6);
            /* what roofline_effs_engine uses in the steps no graph replays (0 when graphs replay
             * every step), 4 us when the profile gives none; then which steps graphs replay
             * (docs/catalog.md "Engines") */
            table_num(&t, e->cuda_graphs && e->graph_max_batch == 0 ? 0.0
                                                                     : (e->launch_s > 0 ? e->launch_s : 4e-6) * 1e6);
            /* an MLA model's eager launch where the profile states one (docs/model.md: SGLang's
             * DeepSeek code) */
            if (e->launch_mla_s > 0 && !(e->cuda_graphs && e->graph_max_batch == 0))
                table_num(&t, e->launch_mla_s * 1e6);
            else
                table_empty(&t);
            char gr[64] = "";
            if (e->graph_piecewise)
                snprintf(gr, sizeof gr, "piecewise<=%ld", e->graph_max_batch);
            else if (e->graph_max_batch > 0 && e->graph_every_batch_to > 0)
                snprintf(gr, sizeof gr, "decode<=%ld,2^k<=%ld", e->graph_every_batch_to, e->graph_max_batch);
            else if (e->graph_max_batch > 0)
                snprintf(gr, sizeof gr, "decode<=%ld", e->graph_max_batch);
            else if (e->cuda_graphs)
                snprintf(gr, sizeof gr, "all");
            if (gr[0])
                table_str(&t, gr);
            else
                table_empty(&t);
            table_num(&t, e->kernel_factor > 0 ? e->kernel_factor : 1.0);
            table_str(&t, attn_kernel_name(e->attention));
            table_str(&t, act_quant_name(e->act_quant));
            if (e->dequant_min_tokens > 0)
                table_num(&t, e->dequant_min_tokens);
            else
                table_empty(&t); /* fused: dequantized inside the GEMM */
            if (e->mmq_share > 0)
                table_num(&t, e->mmq_share);
            else
                table_empty(&t); /* no int8 MMQ path: quantized GEMMs as dequant_min_tokens says */
            if (e->wo_issue_per_flop > 0)
                table_num(&t, e->wo_issue_per_flop);
            else
                table_empty(&t); /* the fused kernel unpacks at no cost beside its math */
            if (e->prompt_ubatch_tokens > 0)
                table_num(&t, e->prompt_ubatch_tokens);
            else
                table_empty(&t); /* the whole prompt in one pass */
            /* the profile's true booleans, by their engines.json names */
            char tr[400] = ""; /* every flag below, a space apart, fits */
            const struct {
                bool on;
                const char *name;
            } fl[] = { { e->cuda_graphs, "cuda_graphs" },           { e->custom_allreduce, "custom_allreduce" },
                       { e->first_token_decode, "first_token_decode" }, { e->kv_per_query_head, "kv_per_query_head" },
                       { e->fp8_attention, "fp8_attention" },       { e->fp16_accumulate, "fp16_accumulate" },
                       { e->prefill_first, "prefill_first" },       { e->budget_min_context, "budget_min_context" },
                       { e->dp_rank_scheduler, "dp_rank_scheduler" }, { e->static_batching, "static_batching" },
                       { e->cuda_core_decode, "cuda_core_decode" }, { e->ray_workers, "ray_workers" },
                       { e->logits_all_tokens, "logits_all_tokens" }, { e->quantized_head, "quantized_head" },
                       { e->kv_copy, "kv_copy" },                 { e->moe_tp_shared_local, "moe_tp_shared_local" },
                       { e->dp_lm_head_split, "dp_lm_head_split" }, { e->spec_state_per_token, "spec_state_per_token" },
                       { e->ssm_state_fp32, "ssm_state_fp32" } };
            for (size_t f = 0; f < sizeof fl / sizeof fl[0]; f++)
                if (fl[f].on) {
                    size_t n = strlen(tr);
                    snprintf(tr + n, sizeof tr - n, "%s%s", n ? " " : "", fl[f].name);
                }
            if (tr[0])
                table_str(&t, tr);
            else
                table_empty(&t);
            char al[LLMROOF_ALIASES_MAX * LLMROOF_ID_MAX];
            if (join_aliases(al, sizeof al, (const char (*)[LLMROOF_ID_MAX])e->aliases, e->n_aliases))
                table_str(&t, al);
            else
                table_empty(&t);
        }
    } else if (gpus) {
        table_init(&t, "");
        table_col(&t, "id", 0);
        table_col(&t, "name", 0);
        table_col(&t, "memory_GiB", 0);
        table_col(&t, "bandwidth_GBps", 0);
        table_col(&t, "fp16_TFLOPS", 1);
        table_col(&t, "bf16_TFLOPS", 1);
        table_col(&t, "fp8_TFLOPS", 1);
        table_col(&t, "int8_TOPS", 1);
        table_col(&t, "fp4_TFLOPS", 1);
        table_col(&t, "link", 0);
        table_col(&t, "link_GBps", 1);
        table_col(&t, "aliases", 0);
        for (size_t i = 0; i < c->cat.n_gpus; i++) {
            const struct llmroof_gpu *g = &c->cat.gpus[i];
            char al[LLMROOF_ALIASES_MAX * LLMROOF_ID_MAX];
            join_aliases(al, sizeof al, (const char (*)[LLMROOF_ID_MAX])g->aliases, g->n_aliases);
            table_row(&t);
            table_str(&t, g->id);
            table_str(&t, g->name);
            table_num(&t, g->memory_bytes / 1073741824.0);
            table_num(&t, g->mem_bw_Bps / 1e9);
            peak_cell(&t, g, LLMROOF_FP16);
            peak_cell(&t, g, LLMROOF_BF16);
            peak_cell(&t, g, LLMROOF_FP8);
            peak_cell(&t, g, LLMROOF_INT8);
            peak_cell(&t, g, LLMROOF_FP4);
            table_str(&t, link_name(g->link));
            table_num(&t, g->link_bw_Bps / 1e9);
            table_str(&t, al);
        }
    } else {
        table_init(&t, "");
        table_col(&t, "id", 0);
        table_col(&t, "name", 0);
        table_col(&t, "params_B", 2);
        table_col(&t, "layers", 0);
        table_col(&t, "hidden", 0);
        table_col(&t, "heads", 0);
        table_col(&t, "kv_heads", 0);
        table_col(&t, "head_dim", 0);
        table_col(&t, "intermediate", 0);
        table_col(&t, "vocab", 0);
        table_col(&t, "max_context", 0);
        table_col(&t, "moe", 0);
        table_col(&t, "attention", 0);
        for (size_t i = 0; i < c->cat.n_models; i++) {
            const struct llmroof_model *m = &c->cat.models[i];
            char moe[32] = "";
            if (m->moe_experts)
                snprintf(moe, sizeof moe, "%ldx top-%ld", m->moe_experts, m->moe_top_k);
            table_row(&t);
            table_str(&t, m->id);
            table_str(&t, m->name);
            table_num(&t, arch_params(m).total / 1e9);
            table_num(&t, (double)m->layers);
            table_num(&t, (double)m->hidden);
            table_num(&t, (double)m->heads);
            table_num(&t, (double)m->kv_heads);
            table_num(&t, (double)m->head_dim);
            table_num(&t, (double)m->intermediate);
            table_num(&t, (double)m->vocab);
            table_num(&t, (double)m->max_context);
            table_str(&t, moe);
            char attn[96];
            attention_cell(m, attn, sizeof attn);
            table_str(&t, attn);
        }
    }
    cli_table(c, gpus ? "gpus" : engines ? "engines" : "models", &t);
    table_free(&t);
    return 0;
}
