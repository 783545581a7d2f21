/* hf_generic.c - the field-table HuggingFace importer (llmroof import-hf for every model type
 * outside hf.c's original families).
 *
 * A config.json is a bag of fields; what a field means does not depend on the model type that
 * carries it (`num_key_value_heads` is the KV heads of Llama, GLM-4.5 and Seed-OSS alike). So
 * the importer holds one table of the fields it knows, each with its meaning, and reads a model
 * type it has never seen from those fields: a new type that reuses known fields imports without
 * new code. A field outside the table is judged by its name: one that names a shape or a count
 * (layers, heads, sizes, experts, windows, patterns...) would change the cost and is an error
 * naming it; any other (a token id, an epsilon, a training knob) is a warning. The few things a
 * config does not say (Qwen's hard-coded q/k norms, Nemotron-H's one norm per block) sit in a
 * second table, per model type. */
#include "data/hf_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Python-JSON                                                               */
/* ------------------------------------------------------------------------ */

char *hf_python_json(const char *text, size_t len, size_t *out_len)
{
    /* each replaced token grows by at most 2 bytes ("NaN" -> "null": +1; "Infinity" -> "1e999": -3) */
    char *o = malloc(len + len / 2 + 16);
    if (!o)
        return NULL;
    size_t j = 0;
    bool in_str = false;
    for (size_t i = 0; i < len; i++) {
        const char ch = text[i];
        if (in_str) {
            o[j++] = ch;
            if (ch == '\\' && i + 1 < len)
                o[j++] = text[++i];
            else if (ch == '"')
                in_str = false;
            continue;
        }
        if (ch == '"') {
            in_str = true;
            o[j++] = ch;
        } else if (len - i >= 8 && !memcmp(text + i, "Infinity", 8)) {
            memcpy(o + j, "1e999", 5);
            j += 5;
            i += 7;
        } else if (len - i >= 3 && !memcmp(text + i, "NaN", 3)) {
            memcpy(o + j, "null", 4);
            j += 4;
            i += 2;
        } else {
            o[j++] = ch;
        }
    }
    o[j] = '\0';
    *out_len = j;
    return o;
}

/* ------------------------------------------------------------------------ */
/* The field table                                                           */
/* ------------------------------------------------------------------------ */

enum hf_use {
    HF_READ,    /* read below: changes the cost */
    HF_FREE,    /* known and without effect on the cost (ids, epsilons, RoPE, training knobs) */
    HF_NOTE     /* known, not modelled, said once as a warning (vision tower, MTP modules) */
};

struct hf_field {
    const char *key;     /* config.json member */
    enum hf_use use;
    const char *meaning; /* what it says (docs/catalog.md "import-hf") */
};

static const struct hf_field fields[] = {
    /* shapes */
    { "hidden_size", HF_READ, "residual width" },
    { "num_hidden_layers", HF_READ, "decoder layers (blocks for Nemotron-H)" },
    { "num_attention_heads", HF_READ, "query heads" },
    { "num_key_value_heads", HF_READ, "KV heads (GQA)" },
    { "head_dim", HF_READ, "width of one head" },
    { "attention_head_dim", HF_READ, "width of one head" },
    { "intermediate_size", HF_READ, "dense MLP width" },
    { "vocab_size", HF_READ, "vocabulary rows (embedding, LM head)" },
    { "max_position_embeddings", HF_READ, "context limit" },
    { "tie_word_embeddings", HF_READ, "LM head shares the embedding" },
    { "attention_bias", HF_READ, "q/k/v (and o) projections carry biases" },
    { "attention_out_bias", HF_READ, "o projection carries a bias" },
    { "use_qkv_bias", HF_READ, "q/k/v projections carry biases" },
    { "use_bias", HF_READ, "projections carry biases" },
    { "qkv_bias", HF_READ, "q/k/v projections carry biases" },
    { "mlp_bias", HF_READ, "MLP matrices carry biases" },
    { "lm_head_bias", HF_READ, "LM head carries a bias (vocab elements)" },
    { "use_qk_norm", HF_READ, "per-head q/k RMSNorm" },
    { "qk_layernorm", HF_READ, "per-head q/k norm" },
    { "hidden_act", HF_READ, "MLP activation: relu2 = 2-matrix MLP, else gated" },
    { "mlp_hidden_act", HF_READ, "MLP activation (Nemotron-H)" },
    { "partial_rotary_factor", HF_FREE, "share of the head under RoPE" },
    /* mixture of experts */
    { "num_experts", HF_READ, "routed experts" },
    { "num_local_experts", HF_READ, "routed experts" },
    { "n_routed_experts", HF_READ, "routed experts" },
    { "moe_num_experts", HF_READ, "routed experts" },
    { "num_experts_per_tok", HF_READ, "experts per token" },
    { "moe_k", HF_READ, "experts per token" },
    { "moe_topk", HF_READ, "experts per token" },
    { "moe_intermediate_size", HF_READ, "one expert's width" },
    { "n_shared_experts", HF_READ, "shared experts" },
    { "num_shared_experts", HF_READ, "shared experts" },
    { "num_shared_expert", HF_READ, "shared experts" },
    { "moe_num_shared_experts", HF_READ, "shared experts" },
    { "shared_expert_intermediate_size", HF_READ, "shared expert width (a multiple of the expert width)" },
    { "shared_intermediate_size", HF_READ, "shared expert width (0 = none)" },
    { "moe_shared_expert_intermediate_size", HF_READ, "shared expert width" },
    { "first_k_dense_replace", HF_READ, "leading dense layers" },
    { "moe_layer_start_index", HF_READ, "first MoE layer" },
    { "moe_layer_end_index", HF_READ, "last MoE layer" },
    { "moe_layer_freq", HF_READ, "MoE layer step" },
    { "mlp_layer_types", HF_READ, "dense or sparse (MoE) MLP per layer: dense ones first (GLM-5)" },
    { "moe_layer_interval", HF_READ, "MoE layer step" },
    { "decoder_sparse_step", HF_READ, "MoE layer step" },
    { "mlp_only_layers", HF_READ, "layers with a dense MLP" },
    { "num_nextn_predict_layers", HF_READ, "multi-token-prediction modules (speculative decoding)" },
    { "mtp_num_hidden_layers", HF_READ, "multi-token-prediction modules (Qwen3.5)" },
    { "mtp_use_dedicated_embeddings", HF_FREE, "Qwen3.5: the MTP module's own embedding (its weights are not counted)" },
    { "attn_output_gate", HF_READ, "attention output gate (Qwen3.5; its type's default where absent)" },
    { "mtp_num_hidden_layers", HF_READ, "multi-token-prediction modules (speculative decoding)" },
    /* MLA and sparse attention */
    { "q_lora_rank", HF_READ, "MLA query rank" },
    { "kv_lora_rank", HF_READ, "MLA latent width (cached)" },
    { "qk_nope_head_dim", HF_READ, "MLA non-rotary q/k head width" },
    { "qk_rope_head_dim", HF_READ, "MLA rotary key width (cached)" },
    { "v_head_dim", HF_READ, "MLA value head width" },
    { "qk_head_dim", HF_READ, "MLA q/k head width: must be qk_nope_head_dim + qk_rope_head_dim" },
    { "index_topk", HF_READ, "DSA: keys each query attends to" },
    { "index_n_heads", HF_READ, "DSA indexer heads" },
    { "index_head_dim", HF_READ, "DSA indexer head width (cached per token)" },
    /* windows and layer patterns */
    { "sliding_window", HF_READ, "window of the sliding layers (null or Infinity = none)" },
    { "use_sliding_window", HF_READ, "sliding window on" },
    { "sliding_window_pattern", HF_READ, "every n-th layer global" },
    { "layer_types", HF_READ, "kind of each layer" },
    { "layers_block_type", HF_READ, "kind of each layer (older hybrid spelling: attention, mamba)" },
    { "hybrid_override_pattern", HF_READ, "Nemotron-H blocks: M Mamba-2, * attention, - MLP, E MoE" },
    { "full_attention_interval", HF_READ, "every n-th layer full attention, the others linear" },
    { "attn_type_list", HF_READ, "MiniMax-01: 1 softmax, 0 lightning per layer" },
    { "linear_attn_config", HF_READ, "Kimi-Linear: KDA and full-attention layers" },
    { "attn_layer_period", HF_READ, "Jamba: layer i attention iff i mod period = offset" },
    { "attn_layer_offset", HF_READ, "Jamba: see attn_layer_period" },
    { "expert_layer_period", HF_READ, "Jamba: layer i MoE iff i mod period = offset" },
    { "expert_layer_offset", HF_READ, "Jamba: see expert_layer_period" },
    { "mamba_dt_rank", HF_READ, "Mamba-1 dt rank" },
    /* recurrent mixers */
    { "linear_num_value_heads", HF_READ, "gated DeltaNet value heads" },
    { "linear_num_key_heads", HF_READ, "gated DeltaNet key heads" },
    { "linear_key_head_dim", HF_READ, "gated DeltaNet key width" },
    { "linear_value_head_dim", HF_READ, "gated DeltaNet value width" },
    { "linear_conv_kernel_dim", HF_READ, "short convolution kernel" },
    { "mamba_num_heads", HF_READ, "Mamba-2 heads" },
    { "mamba_n_heads", HF_READ, "Mamba-2 heads" },
    { "mamba_head_dim", HF_READ, "Mamba-2 head width" },
    { "mamba_d_head", HF_READ, "Mamba-2 head width" },
    { "ssm_state_size", HF_READ, "Mamba-2 state width" },
    { "mamba_d_state", HF_READ, "Mamba-2 state width" },
    { "n_groups", HF_READ, "Mamba-2 B/C groups" },
    { "mamba_n_groups", HF_READ, "Mamba-2 B/C groups" },
    { "conv_kernel", HF_READ, "Mamba-2 convolution kernel" },
    { "mamba_d_conv", HF_READ, "Mamba-2 convolution kernel" },
    { "mamba_expand", HF_READ, "Mamba expansion (Mamba-1: d_inner = expand x hidden)" },
    { "mamba_d_ssm", HF_READ, "Falcon-H1: Mamba-2 inner width (= heads x head width, checked)" },
    { "mamba_use_mlp", HF_READ, "Falcon-H1: layers carry an MLP" },
    { "attn_layer_indices", HF_READ, "Falcon-H1: layers with attention (null = every layer)" },
    { "mamba_rms_norm", HF_FREE, "Falcon-H1: gated norm in the mixer (d_ssm weights, counted)" },
    { "mamba_norm_before_gate", HF_FREE, "" }, { "mlp_expansion_factor", HF_FREE, "unused (intermediate_size says)" },
    { "projectors_bias", HF_FREE, "" }, { "attention_in_multiplier", HF_FREE, "" },
    { "attention_out_multiplier", HF_FREE, "" }, { "key_multiplier", HF_FREE, "" },
    { "lm_head_multiplier", HF_FREE, "" }, { "mlp_multipliers", HF_FREE, "" }, { "ssm_in_multiplier", HF_FREE, "" },
    { "ssm_multipliers", HF_FREE, "" }, { "ssm_out_multiplier", HF_FREE, "" },
    { "block_configs", HF_READ, "NAS (nemotron-nas): per-layer attention and FFN" },
    { "expand", HF_FREE, "Mamba-2 expansion (heads x head width says it)" },
    { "chunk_size", HF_FREE, "scan chunk (kernel choice)" },
    { "mamba_chunk_size", HF_FREE, "scan chunk (kernel choice)" },
    { "use_conv_bias", HF_FREE, "convolution bias (channels, negligible)" },
    { "mamba_conv_bias", HF_FREE, "convolution bias (channels, negligible)" },
    { "use_bias_mamba", HF_FREE, "Mamba projection bias (negligible)" },
    { "mamba_proj_bias", HF_FREE, "Mamba projection bias (negligible)" },
    { "mamba_hidden_act", HF_FREE, "activation" },
    { "time_step_limit", HF_FREE, "dt clamp (Python-JSON Infinity on the Hub)" },
    { "time_step_min", HF_FREE, "dt init" }, { "time_step_max", HF_FREE, "dt init" },
    { "time_step_floor", HF_FREE, "dt init" }, { "time_step_rank", HF_FREE, "dt rank (Mamba-1)" },
    { "ssm_state_dtype", HF_FREE, "dtype" },
    { "mamba_ssm_dtype", HF_READ, "the recurrent state's dtype (the default of --state-dtype)" },
    { "residual_in_fp32", HF_FREE, "numerics" }, { "rescale_prenorm_residual", HF_FREE, "init" },
    /* multimodal and nesting */
    { "text_config", HF_FREE, "the language model (read)" },
    { "vision_config", HF_NOTE, "the image encoder" },
    { "audio_config", HF_NOTE, "the audio encoder (not modelled)" },
    { "quantization_config", HF_FREE, "checkpoint format (read by hf.c's rules)" },
    /* no effect on the cost */
    { "model_type", HF_FREE, "" }, { "architectures", HF_FREE, "" }, { "_name_or_path", HF_FREE, "" },
    { "auto_map", HF_FREE, "" }, { "torch_dtype", HF_FREE, "" }, { "dtype", HF_FREE, "" },
    { "transformers_version", HF_FREE, "" }, { "use_cache", HF_FREE, "" }, { "bos_token_id", HF_FREE, "" },
    { "eos_token_id", HF_FREE, "" }, { "pad_token_id", HF_FREE, "" }, { "initializer_range", HF_FREE, "" },
    { "rms_norm_eps", HF_FREE, "" }, { "layer_norm_eps", HF_FREE, "" }, { "layer_norm_epsilon", HF_FREE, "" },
    { "norm_eps", HF_FREE, "" }, { "rope_theta", HF_FREE, "" }, { "rope_scaling", HF_FREE, "" },
    { "rope_parameters", HF_FREE, "" }, { "rope_interleave", HF_FREE, "" },
    { "indexer_rope_interleave", HF_FREE, "" }, { "rope_type", HF_FREE, "" },
    { "attention_dropout", HF_FREE, "" }, { "hidden_dropout", HF_FREE, "" }, { "embd_pdrop", HF_FREE, "" },
    { "resid_pdrop", HF_FREE, "" }, { "attention_probs_dropout_prob", HF_FREE, "" },
    { "router_aux_loss_coef", HF_FREE, "" }, { "aux_loss_alpha", HF_FREE, "" }, { "output_router_logits", HF_FREE, "" },
    { "norm_topk_prob", HF_FREE, "" }, { "routed_scaling_factor", HF_FREE, "" }, { "scoring_func", HF_FREE, "" },
    { "topk_method", HF_FREE, "" }, { "n_group", HF_READ, "expert groups (group-limited routing)" },
    { "topk_group", HF_READ, "groups a token's experts come from" },
    { "seq_aux", HF_FREE, "" }, { "ep_size", HF_FREE, "" }, { "pretraining_tp", HF_FREE, "" },
    { "router_jitter_noise", HF_FREE, "" }, { "input_jitter_noise", HF_FREE, "" },
    { "moe_router_enable_expert_bias", HF_FREE, "" }, { "router_dtype", HF_FREE, "" },
    { "moe_capacity", HF_FREE, "" }, { "moe_gate", HF_FREE, "" }, { "moe_use_aux_free", HF_FREE, "" },
    { "moe_norm_min", HF_FREE, "" }, { "use_moe", HF_FREE, "" }, { "num_experts_per_topk", HF_FREE, "" },
    { "moe_router_topk_scaling_factor", HF_FREE, "" }, { "score_function", HF_FREE, "" },
    { "use_expert_bias", HF_FREE, "" }, { "moe_router_dtype", HF_FREE, "" },
    { "logit_scale", HF_FREE, "" }, { "final_logit_softcapping", HF_FREE, "" },
    { "attn_logit_softcapping", HF_FREE, "" }, { "embedding_multiplier", HF_FREE, "" },
    { "residual_multiplier", HF_FREE, "" }, { "attention_multiplier", HF_FREE, "" },
    { "logits_scaling", HF_FREE, "" }, { "position_embedding_type", HF_FREE, "" },
    { "max_window_layers", HF_FREE, "" }, { "original_max_position_embeddings", HF_FREE, "" },
    { "use_return_dict", HF_FREE, "" }, { "use_flash_attention", HF_FREE, "" }, { "head_dim_original", HF_FREE, "" },
    { "num_logits_to_keep", HF_FREE, "" }, { "rope_theta_global", HF_FREE, "" }, { "use_mamba_kernels", HF_FREE, "" },
    { "image_token_id", HF_FREE, "" }, { "video_token_id", HF_FREE, "" }, { "vision_start_token_id", HF_FREE, "" },
    { "vision_end_token_id", HF_FREE, "" }, { "vision_token_id", HF_FREE, "" }, { "image_token_index", HF_FREE, "" },
    /* token ids and cache settings whose names speak of an index or a cache (cost_like) but of no shape */
    { "video_token_index", HF_FREE, "" }, { "boi_token_index", HF_FREE, "" }, { "eoi_token_index", HF_FREE, "" },
    { "cache_implementation", HF_FREE, "" },
    { "projector_hidden_act", HF_FREE, "" }, { "multimodal_projector_bias", HF_FREE, "" },
    { "spatial_merge_size", HF_FREE, "" }, { "vision_feature_layer", HF_FREE, "" }, { "attn_implementation", HF_FREE, "" },
    { "_attn_implementation", HF_FREE, "" }, { "sep_token_id", HF_FREE, "" }, { "cls_token_id", HF_FREE, "" },
    { "mask_token_id", HF_FREE, "" }, { "num_key_value_groups", HF_FREE, "" }, { "enable_lm_head_fp32", HF_FREE, "" },
    { "use_rmsnorm", HF_FREE, "" }, { "rope_3d", HF_FREE, "" }, { "freq_allocation", HF_FREE, "" },
    { "use_flash_attn", HF_FREE, "" }, { "qk_rope_head_dim_original", HF_FREE, "" },
    { "postnorm", HF_FREE, "" }, { "layernorm_full_attention", HF_FREE, "" }, { "layernorm_linear_attention", HF_FREE, "" },
    { "layernorm_mlp", HF_FREE, "" }, { "layernorm_full_attention_alpha", HF_FREE, "" },
    { "layernorm_full_attention_beta", HF_FREE, "" }, { "layernorm_linear_attention_alpha", HF_FREE, "" },
    { "layernorm_linear_attention_beta", HF_FREE, "" }, { "layernorm_mlp_alpha", HF_FREE, "" },
    { "layernorm_mlp_beta", HF_FREE, "" }, { "shared_moe_mode", HF_FREE, "" },
    { "mtp_transformer_layers", HF_NOTE, "multi-token-prediction modules" },
    { "mtp_hybrid_override_pattern", HF_NOTE, "multi-token-prediction modules" },
    { "num_mtp_modules", HF_NOTE, "multi-token-prediction modules" },
    { "rotary_dim", HF_FREE, "" }, { "qk_norm_type", HF_FREE, "" }, { "use_routing_bias", HF_FREE, "" },
    { "use_mtp", HF_NOTE, "multi-token-prediction modules" }, { "swa_rope_theta", HF_FREE, "" },
    { "attn_window_size", HF_FREE, "" }, { "attention_type", HF_FREE, "" }, { "rope_scaling_type", HF_FREE, "" },
    { "use_mla", HF_FREE, "" }, { "moe_renormalize", HF_FREE, "" }, { "output_attentions", HF_FREE, "" },
    { "output_hidden_states", HF_FREE, "" }, { "moe_router_use_sigmoid", HF_FREE, "" },
    { "tie_embeddings_and_encoder_decoder", HF_FREE, "" }, { "is_decoder", HF_FREE, "" },
    { "add_cross_attention", HF_FREE, "" }, { "return_dict", HF_FREE, "" },
    { "use_cla", HF_READ, "cross-layer attention (shared KV): true is refused" },
    { "num_kv_shared_layers", HF_READ, "the last n layers reuse earlier layers' KV (Gemma-3n): nonzero is refused" }, { "cla_share_factor", HF_FREE, "" }, { "use_mixed_mlp_moe", HF_FREE, "" },
    { "use_rotary_pos_emb", HF_FREE, "" }, { "norm_type", HF_FREE, "" }, { "org_vocab_size", HF_FREE, "" },
    { "moe_random_routing_dropped_token", HF_FREE, "" }, { "moe_drop_tokens", HF_FREE, "" },
    { "group_limited_greedy", HF_FREE, "" }, { "add_classification_head", HF_FREE, "" },
    { "class_token_index", HF_FREE, "" }, { "anyres_pooling_size", HF_FREE, "" }, { "num_media_embeds", HF_FREE, "" },
    { "first_dense_layers_use_bias", HF_FREE, "" }, { "rope_partial_factor", HF_FREE, "" },
    { "output_dropout", HF_FREE, "" }, { "embedding_dropout", HF_FREE, "" }, { "use_qk_layernorm", HF_READ, "q/k norm" },
    { "num_attention_layers", HF_FREE, "" }, { "torch_compile", HF_FREE, "" },
    { "order_of_interleaved_layers", HF_FREE, "" }, { "use_parallel_block", HF_FREE, "one norm, parallel block (type rule)" },
    { "use_parallel_embedding", HF_FREE, "" }, { "use_embedding_sharing", HF_FREE, "" },
    { "use_gated_activation", HF_FREE, "" }, { "rotary_pct", HF_FREE, "" }, { "residual_dropout", HF_FREE, "" },
    { "moe_router_activation_func", HF_FREE, "" }, { "num_expert_group", HF_FREE, "" },
    { "num_experts_per_token", HF_READ, "experts per token" }, { "init_method", HF_FREE, "" },
    { "normalization_function", HF_FREE, "" }, { "norm_head", HF_FREE, "Bailing: LM head rows normalised (no cost)" },
    { "norm_softmax", HF_FREE, "" },
};

static const struct hf_field *field_find(const char *key)
{
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        if (!strcmp(fields[i].key, key))
            return &fields[i];
    return NULL;
}

/* An unknown field names a shape or a count when its name holds one of these. */
static bool cost_like(const char *key)
{
    static const char *const parts[] = { "layer", "head", "hidden", "intermediate", "expert", "num_", "n_",
                                         "_dim", "rank", "window", "pattern", "interval", "topk", "top_k",
                                         "kernel", "state", "vocab", "size", "period", "ffn", "mlp", "attn",
                                         "attention", "block", "group", "conv", "moe", "index", "cache", NULL };
    for (const char *const *p = parts; *p; p++)
        if (strstr(key, *p))
            return true;
    return false;
}

/* ------------------------------------------------------------------------ */
/* Per-type traits: what a config does not say                               */
/* ------------------------------------------------------------------------ */

enum {
    T_QK_NORM = 1 << 0,      /* per-head q/k norms hard-coded (Qwen3, OLMo-2, dots.llm1) */
    T_QKV_BIAS = 1 << 1,     /* q/k/v biases hard-coded (Qwen2-VL) */
    T_GATE = 1 << 2,         /* attention output gate (Qwen3-Next) */
    T_ONE_NORM = 1 << 3,     /* one norm per layer (Nemotron-H blocks, Cohere's parallel block) */
    T_LAYERNORM = 1 << 4,    /* LayerNorm with bias (Phi-3.5-MoE) */
    T_PARALLEL = 1 << 5,     /* attention and MLP in parallel off one norm (Cohere) */
    T_TIED = 1 << 6,         /* tie_word_embeddings defaults to true */
    T_O_BIAS = 1 << 7,       /* attention_bias covers the o projection too (Llama convention) */
    T_GDN = 1 << 8,          /* linear layers are gated DeltaNet */
    T_MAMBA2 = 1 << 9,       /* linear layers are Mamba-2 */
    T_LIGHTNING = 1 << 10,   /* linear layers are lightning attention */
    T_POST_NORMS = 1 << 11,  /* OLMo-2: norms after attention and MLP, q/k norms over all heads */
    T_MAMBA1 = 1 << 12,      /* linear layers are Mamba-1 (Jamba) */
    T_PAR_MIX = 1 << 13,     /* attention and the SSM side by side in every layer (Falcon-H1) */
    T_QKV_BIAS_ON = 1 << 15, /* the config's qkv_bias defaults to true (Qwen2-MoE: Qwen2MoeConfig's
                                qkv_bias=True feeds bias=config.qkv_bias in modeling_qwen2_moe.py;
                                vLLM's qwen2_moe.py builds the biases): absent, the biases are there */
    T_MTP1 = 1 << 14         /* one MTP layer ships in the checkpoint though config.json names no count:
                                Qwen3-Next's mtp.* tensors, which vLLM's Qwen3NextMTP builds as
                                num_nextn_predict_layers layers, default 1 (qwen3_next_mtp.py) */
};

struct hf_traits {
    const char *type;
    unsigned flags;
};

static const struct hf_traits traits[] = {
    { "qwen3_next", T_QK_NORM | T_GATE | T_GDN | T_MTP1 },
    /* Qwen3.5: Qwen3-Next's hybrid (gated DeltaNet 3 : 1 gated attention) in a multimodal config's
     * text_config, with layer_types, attn_output_gate and mtp_num_hidden_layers stated */
    { "qwen3_5_moe", T_QK_NORM | T_GATE | T_GDN }, { "qwen3_5_moe_text", T_QK_NORM | T_GATE | T_GDN },
    { "qwen3_5", T_QK_NORM | T_GATE | T_GDN }, { "qwen3_5_text", T_QK_NORM | T_GATE | T_GDN },
    { "qwen3_vl", T_QK_NORM }, { "qwen3_vl_text", T_QK_NORM },
    { "qwen3_vl_moe", T_QK_NORM }, { "qwen3_vl_moe_text", T_QK_NORM },
    { "qwen2_5_vl", T_QKV_BIAS }, { "qwen2_5_vl_text", T_QKV_BIAS }, { "qwen2_vl", T_QKV_BIAS },
    { "qwen2_moe", T_QKV_BIAS_ON },
    { "olmo2", T_QK_NORM | T_POST_NORMS }, { "olmo3", T_QK_NORM | T_POST_NORMS },
    { "dots1", T_QK_NORM },
    { "glm4_moe", 0 }, { "glm4", 0 },
    { "minimax_m2", 0 }, { "minimax", T_LIGHTNING | T_O_BIAS },
    /* the same lightning-attention hybrid under the model_types its own Hub repositories write:
     * MiniMax-Text-01's original config says "minimax_text_01" (transformers' port renamed it
     * "minimax"), MiniMax-M1's "minimax_m1" (https://huggingface.co/MiniMaxAI/MiniMax-M1-80k
     * config.json: MiniMaxM1ForCausalLM, 80 layers, attn_type_list with every 8th layer softmax);
     * SGLang's MiniMaxText01Config takes both (model_type, model_type_m1) for one model class.
     * Read without the trait, attn_type_list's 0 layers had fallen to the gated-DeltaNet reader */
    { "minimax_text_01", T_LIGHTNING | T_O_BIAS }, { "minimax_m1", T_LIGHTNING | T_O_BIAS },
    { "hunyuan_v1_moe", 0 }, { "hunyuan_v1_dense", 0 },
    { "ernie4_5_moe", 0 }, { "ernie4_5", 0 },
    { "seed_oss", 0 },
    { "bailing_moe", 0 }, { "bailing_moe_v2", 0 },
    { "phi3", T_O_BIAS }, { "phimoe", T_LAYERNORM | T_O_BIAS },
    { "cohere2", T_ONE_NORM | T_PARALLEL | T_TIED }, { "cohere", T_ONE_NORM | T_PARALLEL | T_TIED },
    { "nemotron_h", T_ONE_NORM | T_MAMBA2 },
    { "granitemoehybrid", T_MAMBA2 },
    { "kimi_linear", T_GDN }, { "jamba", T_MAMBA1 }, { "falcon_h1", T_MAMBA2 | T_PAR_MIX },
    { "nemotron-nas", 0 },
    { "deepseek_v32", 0 },
    { "glm_moe_dsa", 0 }, /* GLM-5: DeepSeek-V3.2's MLA + DSA with GLM's widths */
    { "mistral3", 0 }, { "ministral", 0 },
    { "exaone4", T_QK_NORM }, { "smollm3", 0 }, { "apertus", T_QK_NORM },
    /* Gemma 1: its configs carry no tie_word_embeddings key and GemmaConfig defaults it to true
     * (the report's 8.54 B for Gemma-7B counts the 786.8 M embedding once); read untied, the
     * head added a second 256,000 x 3,072 matrix, 9.32 B */
    { "gemma", T_TIED },
    /* Nemotron-4 (Minitron, Nemotron-4-340B's HF conversion): NemotronLayerNorm1P is an
     * nn.LayerNorm with its bias (the NeMo checkpoint's layer_norm_bias and final_layernorm.bias),
     * where the field table's default read RMSNorm, 0.003 B short for the 340B */
    { "nemotron", T_LAYERNORM },
};

static unsigned traits_of(const char *type)
{
    for (size_t i = 0; i < sizeof traits / sizeof traits[0]; i++)
        if (!strcmp(traits[i].type, type))
            return traits[i].flags;
    return 0;
}

bool hf_generic_knows(const char *type)
{
    for (size_t i = 0; i < sizeof traits / sizeof traits[0]; i++)
        if (!strcmp(traits[i].type, type))
            return true;
    return false;
}

/* ------------------------------------------------------------------------ */
/* Readers                                                                   */
/* ------------------------------------------------------------------------ */

static const cJSON *get(const cJSON *doc, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, key);
    return v && !cJSON_IsNull(v) ? v : NULL;
}

/* The dtype the config keeps the recurrent state in: Qwen3.5's mamba_ssm_dtype "float32"
 * (its Hub configs; vLLM takes it for the SSM cache when --mamba-ssm-cache-dtype is auto,
 * vllm/model_executor/models/config.py). Read only for a model with recurrent layers; torch
 * names as transformers writes them. */
static int state_dtype(const char *fname, const cJSON *doc, struct llmroof_model *m, struct llmroof_err *err)
{
    static const struct {
        const char *torch;
        enum llmroof_dtype dt;
    } names[] = { { "float32", LLMROOF_FP32 }, { "float16", LLMROOF_FP16 }, { "bfloat16", LLMROOF_BF16 } };
    const cJSON *v = get(doc, "mamba_ssm_dtype");
    if (!v || cJSON_IsNull(v) || m->linear_kind == LLMROOF_LINEAR_NONE)
        return LLMROOF_OK;
    const char *s = cJSON_GetStringValue(v);
    for (size_t i = 0; s && i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(s, names[i].torch)) {
            m->lin_state_dtype_set = true;
            m->lin_state_dtype = names[i].dt;
            return LLMROOF_OK;
        }
    return llmroof_err_set(err, LLMROOF_EINPUT, "%s: field 'mamba_ssm_dtype' must be \"float32\", \"float16\" or "
                           "\"bfloat16\"", fname);
}

static bool flag(const cJSON *doc, const char *key, bool dflt)
{
    const cJSON *v = get(doc, key);
    return v && cJSON_IsBool(v) ? cJSON_IsTrue(v) : dflt;
}

static int one(const char *fname, const cJSON *doc, const char *key, bool required, long dflt, long lo, long hi,
               long *out, struct llmroof_err *err)
{
    const char *keys[2] = { key, NULL };
    return hf_int(fname, doc, keys, required, dflt, lo, hi, out, err);
}

static bool present(const cJSON *doc, const char *const *keys)
{
    for (const char *const *k = keys; *k; k++)
        if (get(doc, *k))
            return true;
    return false;
}

#define ERR(...) (rc = llmroof_err_set(err, LLMROOF_EINPUT, __VA_ARGS__))

/* Llama-3.x-Nemotron NAS (model_type nemotron-nas, DeciLMForCausalLM): block_configs lists each
 * layer's attention (no_op: none; replace_with_linear: one h x h matrix; else GQA with
 * num_attention_heads / n_heads_in_group KV heads) and FFN (no_op; replace_with_linear; else a
 * SwiGLU MLP of ffn_mult). Width of an ffn_mult: 2/3 * ffn_mult * h rounded up to a multiple of
 * 256 (HF nvidia/Llama-3_3-Nemotron-Super-49B-v1 modeling_decilm.py,
 * _ffn_mult_to_intermediate_size). A linear replacement's h x h matrix is counted as an MLP of
 * width h/3 (the same weights and FLOPs as one gated MLP of that width), added to the layer's
 * MLP. Fills mix/ffn (L letters), w (per-layer widths) and kv (KV heads, one value for every
 * attention layer). */
static int hf_nas_blocks(const char *fname, const cJSON *bc, const struct llmroof_model *m, char *mix, char *ffn,
                         long *w, long *kv, struct llmroof_err *err)
{
    int rc = LLMROOF_OK;
    const long L = m->layers, h = m->hidden;
    if (L > LLMROOF_PATTERN_MAX)
        return ERR("%s: %ld layers with per-layer kinds: llmroof lists at most %d", fname, L, LLMROOF_PATTERN_MAX);
    if (!cJSON_IsArray(bc) || cJSON_GetArraySize(bc) != L)
        return ERR("%s: field 'block_configs' must list num_hidden_layers (%ld) blocks", fname, L);
    *kv = 0;
    long i = 0;
    for (const cJSON *b = bc->child; b; b = b->next, i++) {
        const cJSON *at = cJSON_GetObjectItemCaseSensitive(b, "attention");
        const cJSON *ff = cJSON_GetObjectItemCaseSensitive(b, "ffn");
        if (!cJSON_IsObject(at) || !cJSON_IsObject(ff))
            return ERR("%s: field 'block_configs' entry %ld must hold 'attention' and 'ffn' objects", fname, i);
        static const char *const unmodelled[] = { "sparsify", "window_length", "num_sink_tokens", NULL };
        for (const char *const *u = unmodelled; *u; u++)
            if (get(at, *u) || (get(ff, *u) && !strcmp(*u, "sparsify")))
                return ERR("%s: field 'block_configs[%ld]' sets '%s', which llmroof does not model", fname, i, *u);
        long extra = 0; /* a linear replacement's h x h matrix, as MLP width */
        if (flag(at, "no_op", false)) {
            mix[i] = 'N';
        } else if (flag(at, "replace_with_linear", false)) {
            mix[i] = 'N';
            extra = (h + 1) / 3;
        } else {
            const cJSON *g = get(at, "n_heads_in_group");
            if (!g || !cJSON_IsNumber(g) || g->valuedouble < 1 || g->valuedouble != (double)(long)g->valuedouble ||
                m->heads % (long)g->valuedouble != 0)
                return ERR("%s: field 'block_configs[%ld].attention.n_heads_in_group' must divide num_attention_heads "
                           "(%ld)", fname, i, m->heads);
            const long k = m->heads / (long)g->valuedouble;
            if (*kv && k != *kv)
                return ERR("%s: field 'block_configs[%ld].attention.n_heads_in_group' gives %ld KV heads where earlier "
                           "layers have %ld; llmroof models one KV head count", fname, i, k, *kv);
            *kv = k;
            mix[i] = 'A';
        }
        long width = 0;
        if (flag(ff, "no_op", false)) {
            width = 0;
        } else if (flag(ff, "replace_with_linear", false)) {
            width = (h + 1) / 3;
        } else {
            const cJSON *fm = get(ff, "ffn_mult");
            if (!fm || !cJSON_IsNumber(fm) || !(fm->valuedouble > 0) || fm->valuedouble > 1000)
                return ERR("%s: field 'block_configs[%ld].ffn.ffn_mult' must be a positive number", fname, i);
            const long raw = (long)(2.0 * fm->valuedouble * (double)h / 3.0);
            width = (raw + 255) / 256 * 256;
        }
        width += extra;
        ffn[i] = width > 0 ? 'D' : 'N';
        w[i] = width;
    }
    mix[L] = ffn[L] = '\0';
    if (*kv == 0)
        return ERR("%s: field 'block_configs' has no attention layer; llmroof needs at least one", fname);
    return rc;
}

static int generic_import(const char *fname, const cJSON *root, const cJSON *doc, const char *type,
                          struct llmroof_model *m, char *warn, size_t warn_cap, struct llmroof_err *err);

/* Some configs give a per-layer list where others give one number (Hunyuan-A13B:
 * "moe_topk": [8, 8, ...], "moe_intermediate_size" and "num_shared_expert" alike). A list whose
 * entries are all one number reads as that number; a list that varies is an error naming it.
 * Works on a copy of the document, so the caller's tree is untouched. */
static int uniform_lists(const char *fname, cJSON *doc, struct llmroof_err *err)
{
    static const char *const keys[] = { "moe_intermediate_size", "moe_topk", "num_shared_expert", "moe_k",
                                        "num_experts_per_tok", "num_experts", NULL };
    int rc = LLMROOF_OK;
    for (const char *const *k = keys; *k; k++) {
        cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, *k);
        if (!cJSON_IsArray(v))
            continue;
        const cJSON *first = v->child;
        if (!first || !cJSON_IsNumber(first))
            return ERR("%s: field '%s' must be a number or a list of numbers", fname, *k);
        for (const cJSON *t = first->next; t; t = t->next)
            if (!cJSON_IsNumber(t) || t->valuedouble != first->valuedouble)
                return ERR("%s: field '%s' varies from layer to layer, which llmroof cannot represent", fname, *k);
        cJSON *num = cJSON_CreateNumber(first->valuedouble);
        if (!num || !cJSON_ReplaceItemInObjectCaseSensitive(doc, *k, num)) {
            cJSON_Delete(num);
            return ERR("%s: out of memory", fname);
        }
    }
    return rc;
}

int hf_generic_import(const char *fname, const cJSON *root, const cJSON *doc, const char *type, struct llmroof_model *m,
                      char *warn, size_t warn_cap, struct llmroof_err *err)
{
    cJSON *flat = cJSON_Duplicate(doc, true);
    if (!flat)
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s: out of memory", fname);
    int rc = uniform_lists(fname, flat, err);
    if (rc == LLMROOF_OK)
        rc = generic_import(fname, root, flat, type, m, warn, warn_cap, err);
    cJSON_Delete(flat);
    return rc;
}

/* Edit distance between a and b (insertions, deletions, substitutions), capped at cap + 1: names
 * of up to 63 bytes. */
static size_t edit_distance(const char *a, const char *b, size_t cap)
{
    const size_t n = strlen(a), k = strlen(b);
    if (n > 63 || k > 63)
        return cap + 1;
    size_t row[64];
    for (size_t j = 0; j <= k; j++)
        row[j] = j;
    for (size_t i = 1; i <= n; i++) {
        size_t diag = row[0], best = row[0] = i;
        for (size_t j = 1; j <= k; j++) {
            const size_t up = row[j];
            size_t v = diag + (a[i - 1] != b[j - 1]);
            if (row[j - 1] + 1 < v)
                v = row[j - 1] + 1;
            if (up + 1 < v)
                v = up + 1;
            row[j] = v;
            diag = up;
            best = v < best ? v : best;
        }
        if (best > cap)
            return cap + 1;
    }
    return row[k];
}

void hf_warn_unknown_cost_fields(const char *fname, const cJSON *doc, char *warn, size_t warn_cap)
{
    for (const cJSON *f = doc->child; f; f = f->next) {
        if (!f->string || field_find(f->string) || !cost_like(f->string) || cJSON_IsNull(f))
            continue;
        /* within two edits of a field the table knows: a family's own fields (Falcon's num_kv_heads,
         * GPT-J's n_embd) are further from every known name than a typo is */
        for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
            if (edit_distance(f->string, fields[i].key, 2) <= 2) {
                hf_warn(warn, warn_cap, "%s: field '%s' is not known to llmroof and is ignored: '%s' misspelt? "
                                        "(docs/catalog.md lists the fields import-hf reads)",
                        fname, f->string, fields[i].key);
                break;
            }
    }
}

static int generic_import(const char *fname, const cJSON *root, const cJSON *doc, const char *type,
                          struct llmroof_model *m, char *warn, size_t warn_cap, struct llmroof_err *err)
{
    static const char *const k_hidden[] = { "hidden_size", NULL };
    static const char *const k_layers[] = { "num_hidden_layers", NULL };
    static const char *const k_heads[] = { "num_attention_heads", NULL };
    static const char *const k_kv[] = { "num_key_value_heads", NULL };
    static const char *const k_hd[] = { "head_dim", "attention_head_dim", NULL };
    static const char *const k_inter[] = { "intermediate_size", NULL };
    static const char *const k_vocab[] = { "vocab_size", NULL };
    static const char *const k_ctx[] = { "max_position_embeddings", NULL };
    static const char *const k_experts[] = { "num_experts", "num_local_experts", "n_routed_experts", "moe_num_experts", NULL };
    static const char *const k_topk[] = { "num_experts_per_tok", "num_experts_per_token", "moe_k", "moe_topk",
                                          NULL };
    static const char *const k_shared[] = { "n_shared_experts", "num_shared_experts", "num_shared_expert",
                                            "moe_num_shared_experts", NULL };
    static const char *const k_shared_w[] = { "shared_expert_intermediate_size", "shared_intermediate_size",
                                              "moe_shared_expert_intermediate_size", NULL };
    static const char *const k_first[] = { "first_k_dense_replace", "moe_layer_start_index", NULL };
    static const char *const k_step[] = { "decoder_sparse_step", "moe_layer_interval", "moe_layer_freq", NULL };
    static const char *const k_mtp[] = { "num_nextn_predict_layers", "mtp_num_hidden_layers", NULL };
    int rc = LLMROOF_OK;
    const unsigned tr = traits_of(type);

    /* ---- every field: known, or judged by its name ---- */
    /* every unknown field that would change the cost is named in one message, at most
     * UNKNOWN_NAMED of them: naming only the first (Gemma-3n's harmless hidden_activation) hid
     * the ones that matter (altup_num_inputs, laurel_rank) behind one fix-and-retry per field */
    enum { UNKNOWN_NAMED = 6 };
    char unknown[UNKNOWN_NAMED * 48] = "", *u_end = unknown;
    const char *first_unknown = NULL;
    long n_unknown = 0;
    for (const cJSON *f = doc->child; f; f = f->next) {
        const struct hf_field *k = field_find(f->string);
        if (!k) {
            if (cost_like(f->string) && !cJSON_IsNull(f) && !(cJSON_IsBool(f) && cJSON_IsFalse(f))) {
                if (n_unknown == 0)
                    first_unknown = f->string;
                if (n_unknown < UNKNOWN_NAMED)
                    u_end += snprintf(u_end, sizeof unknown - (size_t)(u_end - unknown), "%s'%.40s'",
                                      n_unknown ? ", " : "", f->string);
                n_unknown++;
                continue;
            }
            hf_warn(warn, warn_cap, "%s: field '%s' is not known to llmroof and is ignored (it names no shape)", fname,
                    f->string);
        } else if (k->use == HF_NOTE && !cJSON_IsNull(f) && !(cJSON_IsNumber(f) && f->valuedouble == 0)) {
            hf_warn(warn, warn_cap, "%s: '%s' (%s) is not modelled", fname, f->string, k->meaning);
        }
    }
    if (n_unknown == 1)
        return ERR("%s: field '%s' (model_type %s) is not known to llmroof and would change the cost; "
                   "docs/catalog.md lists the fields import-hf reads", fname, first_unknown, type);
    if (n_unknown > 1) {
        char more[32] = "";
        if (n_unknown > UNKNOWN_NAMED)
            snprintf(more, sizeof more, " and %ld more", n_unknown - UNKNOWN_NAMED);
        return ERR("%s: %ld fields (model_type %s) are not known to llmroof and would change the cost: %s%s; "
                   "docs/catalog.md lists the fields import-hf reads", fname, n_unknown, type, unknown, more);
    }

    /* ---- shapes ---- */
    if ((rc = hf_int(fname, doc, k_hidden, true, 0, 1, 1048576, &m->hidden, err)) ||
        (rc = hf_int(fname, doc, k_layers, true, 0, 1, 10000, &m->layers, err)) ||
        (rc = hf_int(fname, doc, k_heads, true, 0, 1, 65536, &m->heads, err)) ||
        (rc = hf_int(fname, doc, k_vocab, true, 0, 1, 100000000, &m->vocab, err)) ||
        (rc = hf_int(fname, doc, k_kv, false, m->heads, 1, 65536, &m->kv_heads, err)) ||
        (rc = hf_int(fname, doc, k_ctx, true, 0, 1, 1000000000, &m->max_context, err)))
        return rc;
    /* multi-head latent attention takes its head widths from its own fields (below): GLM-4.7-Flash's
     * 2048 / 20 heads gives no whole head_dim, and needs none */
    const bool mla_fields = get(doc, "kv_lora_rank") != NULL;
    if (!present(doc, k_hd) && m->hidden % m->heads != 0 && !mla_fields)
        return ERR("%s: hidden size %ld is not divisible by %ld heads and no head_dim is given", fname, m->hidden,
                   m->heads);
    if ((rc = hf_int(fname, doc, k_hd, false, m->hidden % m->heads == 0 ? m->hidden / m->heads : 1, 1, 65536,
                     &m->head_dim, err)))
        return rc;
    const cJSON *act = get(doc, "mlp_hidden_act");
    if (!act)
        act = get(doc, "hidden_act");
    m->mlp = act && cJSON_IsString(act) && act->valuestring && !strcmp(act->valuestring, "relu2") ? LLMROOF_MLP_PLAIN
                                                                                                  : LLMROOF_MLP_GATED;
    m->norm = tr & T_LAYERNORM ? LLMROOF_NORM_LAYER : LLMROOF_NORM_RMS;
    if (!hf_generic_knows(type)) {
        /* a type with no rules of its own: a GELU or ReLU activation is a 2-matrix MLP (GPT-2, GPT-NeoX,
         * Phi-2, StarCoder2, BLOOM, MPT; GeGLU's Gemma has its rules), SiLU a gated one (SwiGLU); a
         * norm_type naming layer norm a LayerNorm. A review: Phi-2, Pythia and StarCoder2 had read as
         * SwiGLU models, 30-42% too many parameters, and nothing said what was assumed */
        const char *a = act && cJSON_IsString(act) && act->valuestring ? act->valuestring : "";
        if (!strncmp(a, "gelu", 4) || !strcmp(a, "relu") || !strcmp(a, "quick_gelu") || !strcmp(a, "relu2"))
            m->mlp = LLMROOF_MLP_PLAIN;
        const cJSON *nt = get(doc, "norm_type");
        if (nt && cJSON_IsString(nt) && nt->valuestring && strstr(nt->valuestring, "layer"))
            m->norm = LLMROOF_NORM_LAYER;
        hf_warn(warn, warn_cap, "%s: model_type \"%s\" has no rules of its own: assumed a %s MLP (hidden_act '%s'), "
                                "%s, biases only where the config says, embeddings %s",
                fname, type, m->mlp == LLMROOF_MLP_PLAIN ? "2-matrix" : "gated (3-matrix)", a[0] ? a : "not given",
                m->norm == LLMROOF_NORM_LAYER ? "LayerNorm" : "RMSNorm", "as tie_word_embeddings says (untied unless true)");
    }
    m->tied_embeddings = flag(doc, "tie_word_embeddings", flag(root, "tie_word_embeddings", (tr & T_TIED) != 0));
    bool ab = flag(doc, "attention_bias", false) || flag(doc, "use_bias", false);
    m->qkv_bias = (tr & T_QKV_BIAS) || ab || flag(doc, "qkv_bias", (tr & T_QKV_BIAS_ON) != 0) ||
                  flag(doc, "use_qkv_bias", false);
    m->o_bias = get(doc, "attention_out_bias") ? flag(doc, "attention_out_bias", false)
                                               : (ab && ((tr & T_O_BIAS) || flag(doc, "use_bias", false)));
    m->mlp_bias = flag(doc, "mlp_bias", false) || flag(doc, "use_bias", false);
    m->qk_norm = (tr & T_QK_NORM) || flag(doc, "use_qk_norm", false) || flag(doc, "qk_layernorm", false) ||
                 flag(doc, "use_qk_layernorm", false);
    m->attn_gate = flag(doc, "attn_output_gate", (tr & T_GATE) != 0);
    m->parallel_attn = (tr & T_PARALLEL) != 0;
    if (tr & T_ONE_NORM)
        m->norms_per_layer = 1;
    if ((rc = hf_kv_shared(fname, doc, m->layers, err)))
        return rc;
    if (flag(doc, "use_cla", false))
        return ERR("%s: field 'use_cla' (cross-layer attention: layers share one KV cache) is true, which llmroof "
                   "does not model", fname);
    if (flag(doc, "lm_head_bias", false))
        hf_warn(warn, warn_cap, "%s: the LM head's bias (%ld elements) is not counted", fname, m->vocab);

    /* ---- NAS block_configs (Llama-3.x-Nemotron Super/Ultra): per-layer attention and FFN ---- */
    const cJSON *bc = get(doc, "block_configs");
    long nas_kv = 0;
    char nas_mix[LLMROOF_PATTERN_MAX + 1], nas_ffn[LLMROOF_PATTERN_MAX + 1];
    long nas_w[LLMROOF_PATTERN_MAX] = { 0 };
    if (bc && (rc = hf_nas_blocks(fname, bc, m, nas_mix, nas_ffn, nas_w, &nas_kv, err)))
        return rc;

    /* ---- mixture of experts ---- */
    long experts = 0, inter = 0;
    if ((rc = hf_int(fname, doc, k_experts, false, 0, 0, 65536, &experts, err)) ||
        (rc = hf_int(fname, doc, k_inter, false, 0, 0, 16777216, &inter, err)))
        return rc;
    if (experts > 0) {
        m->moe_experts = experts;
        long shared_w = 0;
        if ((rc = hf_int(fname, doc, k_topk, true, 0, 1, experts, &m->moe_top_k, err)) ||
            /* without moe_intermediate_size, intermediate_size is the experts' width (Mixtral's rule) */
            (rc = one(fname, doc, "moe_intermediate_size", inter == 0, inter, 1, 16777216, &m->moe_intermediate, err)) ||
            (rc = hf_int(fname, doc, k_shared, false, 0, 0, 65536, &m->moe_shared, err)) ||
            (rc = hf_int(fname, doc, k_shared_w, false, 0, 0, 16777216, &shared_w, err)) ||
            (rc = hf_int(fname, doc, k_first, false, 0, 0, 10000, &m->moe_first_dense, err)) ||
            (rc = hf_int(fname, doc, k_step, false, 1, 1, 10000, &m->moe_layer_step, err)))
            return rc;
        if (shared_w > 0 && m->moe_shared == 0) {
            long w = m->moe_intermediate > 0 ? m->moe_intermediate : 1;
            if (shared_w % w != 0)
                return ERR("%s: field '%s' (%ld) is not a multiple of the expert width %ld, which llmroof cannot "
                           "represent", fname, "shared_expert_intermediate_size", shared_w, w);
            m->moe_shared = shared_w / w;
        }
        if ((rc = hf_moe_groups(fname, doc, m, err)))
            return rc;
    }
    if (bc) {
        m->intermediate = 0;
        for (long i = 0; i < m->layers; i++)
            if (nas_w[i] > m->intermediate)
                m->intermediate = nas_w[i];
        if (m->intermediate == 0)
            m->intermediate = 1; /* no layer has an MLP: the width is never used */
        m->kv_heads = nas_kv;
    } else if ((rc = hf_int(fname, doc, k_inter, m->moe_experts == 0, m->moe_intermediate, 1, 16777216,
                            &m->intermediate, err))) {
        return rc;
    }
    if (m->moe_experts > 0 && m->moe_intermediate == 0)
        m->moe_intermediate = m->intermediate;
    /* DeepSeek's convention (a layer from first_k_dense_replace on is MoE where i % moe_layer_freq
     * == 0, vLLM's deepseek_v2.py) is not Qwen's (i + 1) % decoder_sparse_step == 0 that the step
     * above counts: refused other than 1, as the deepseek_v3 importer refuses it */
    if ((!strcmp(type, "deepseek_v32") || !strcmp(type, "glm_moe_dsa")) && m->moe_layer_step > 1)
        return ERR("%s: field 'moe_layer_freq' %ld is not modelled (only 1)", fname, m->moe_layer_step);
    /* transformers' GlmMoeDsaConfig writes mlp_layer_types; read where it is k dense layers then
     * MoE layers, the pattern first_k_dense_replace states */
    const cJSON *mlt = get(doc, "mlp_layer_types");
    if (mlt) {
        const int n = cJSON_IsArray(mlt) ? cJSON_GetArraySize(mlt) : -1;
        long k = 0;
        bool ok = n == (int)m->layers && m->moe_experts > 0;
        for (int i = 0; ok && i < n; i++) {
            const cJSON *e = cJSON_GetArrayItem(mlt, i);
            const bool dense = cJSON_IsString(e) && !strcmp(e->valuestring, "dense");
            const bool sparse = cJSON_IsString(e) && !strcmp(e->valuestring, "sparse");
            if (dense && k == i)
                k++;
            else if (!sparse)
                ok = false;
        }
        if (!ok || (get(doc, "first_k_dense_replace") && k != m->moe_first_dense))
            return ERR("%s: field 'mlp_layer_types' must be %ld entries, \"dense\" layers first and \"sparse\" "
                       "the rest%s", fname, m->layers,
                       get(doc, "first_k_dense_replace") ? ", as many dense as first_k_dense_replace" : "");
        m->moe_first_dense = k;
    }
    if ((rc = hf_int(fname, doc, k_mtp, false, (tr & T_MTP1) ? 1 : 0, 0, 1000, &m->mtp_layers, err)))
        return rc;

    /* ---- MLA and DeepSeek Sparse Attention ---- */
    /* a config of an MLA family without its latent, or with MLA's widths but no latent, would read
     * as plain multi-head attention with those widths dropped: refused (review of session 33) */
    if (!get(doc, "kv_lora_rank")) {
        static const char *const mla_keys[] = { "q_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim",
                                                "qk_head_dim", NULL };
        if (!strcmp(type, "deepseek_v32") || !strcmp(type, "glm_moe_dsa"))
            return ERR("%s: field 'kv_lora_rank' is missing: model_type %s is multi-head latent attention", fname,
                       type);
        for (const char *const *k = mla_keys; *k; k++)
            if (get(doc, *k) && !cJSON_IsNull(get(doc, *k)))
                return ERR("%s: field '%s' (multi-head latent attention) needs 'kv_lora_rank', which is missing",
                           fname, *k);
    }
    if (get(doc, "kv_lora_rank")) {
        m->kv_heads = m->heads;
        if ((rc = one(fname, doc, "q_lora_rank", false, 0, 0, 1048576, &m->q_lora_rank, err)) ||
            (rc = one(fname, doc, "kv_lora_rank", true, 0, 1, 1048576, &m->kv_lora_rank, err)) ||
            (rc = one(fname, doc, "qk_nope_head_dim", true, 0, 0, 65536, &m->qk_nope_dim, err)) ||
            (rc = one(fname, doc, "qk_rope_head_dim", true, 0, 1, 65536, &m->qk_rope_dim, err)) ||
            (rc = one(fname, doc, "v_head_dim", true, 0, 1, 65536, &m->v_head_dim, err)))
            return rc;
        m->head_dim = m->qk_nope_dim + m->qk_rope_dim;
        long qk = 0; /* GLM-5 states the sum; a config whose sum disagrees is not one llmroof can read */
        if ((rc = one(fname, doc, "qk_head_dim", false, m->head_dim, 1, 131072, &qk, err)))
            return rc;
        if (qk != m->head_dim)
            return ERR("%s: field 'qk_head_dim' (%ld) is not qk_nope_head_dim + qk_rope_head_dim (%ld)", fname, qk,
                       m->head_dim);
    }
    if (!get(doc, "index_topk") && (!strcmp(type, "deepseek_v32") || !strcmp(type, "glm_moe_dsa")))
        return ERR("%s: field 'index_topk' is missing: model_type %s is DeepSeek Sparse Attention (index_topk, "
                   "index_n_heads, index_head_dim); without them it would read as dense MLA",
                   fname, type);
    if (get(doc, "index_topk")) {
        if (m->kv_lora_rank <= 0)
            return ERR("%s: field 'index_topk' (DeepSeek Sparse Attention) needs MLA (kv_lora_rank)", fname);
        if ((rc = one(fname, doc, "index_topk", true, 0, 1, 1000000000, &m->dsa_top_k, err)) ||
            (rc = one(fname, doc, "index_n_heads", true, 0, 1, 65536, &m->dsa_heads, err)) ||
            (rc = one(fname, doc, "index_head_dim", true, 0, 1, 65536, &m->dsa_head_dim, err)))
            return rc;
    }

    /* ---- sliding window: null, false use_sliding_window or Infinity mean none ---- */
    const cJSON *sw = get(doc, "sliding_window");
    if (sw && cJSON_IsNumber(sw) && isinf(sw->valuedouble) && sw->valuedouble > 0)
        sw = NULL; /* Python-JSON Infinity: an unbounded window is full attention */
    if (get(doc, "use_sliding_window") && !flag(doc, "use_sliding_window", false))
        sw = NULL;
    if (sw && (rc = one(fname, doc, "sliding_window", false, 0, 1, 1000000000, &m->window, err)))
        return rc;

    /* ---- layer kinds ---- */
    const long L = m->layers;
    char mix[LLMROOF_PATTERN_MAX + 1], ffn[LLMROOF_PATTERN_MAX + 1];
    bool patterned = false;
    /* layers_block_type: the older spelling of layer_types in hybrid configs ("attention", "mamba") */
    const cJSON *lt = get(doc, "layer_types"), *hop = get(doc, "hybrid_override_pattern");
    const char *lt_name = "layer_types";
    if (!lt && (lt = get(doc, "layers_block_type")))
        lt_name = "layers_block_type";
    const cJSON *fai = get(doc, "full_attention_interval"), *atl = get(doc, "attn_type_list");
    const cJSON *lac = get(doc, "linear_attn_config"), *mlo = get(doc, "mlp_only_layers");
    const cJSON *alp = get(doc, "attn_layer_period");
    const bool want = lt || hop || fai || atl || lac || alp || bc || (tr & T_PAR_MIX) ||
                      (mlo && cJSON_GetArraySize(mlo) > 0);
    /* a hybrid family whose layer pattern is missing would read as a plain transformer, every
     * layer attention (review of session 35): refused, naming the field its config class writes */
    if (!(lt || hop || fai || atl || lac || alp || bc || (tr & T_PAR_MIX))) {
        const char *need = !strcmp(type, "qwen3_next") || !strncmp(type, "qwen3_5", 7) ? "full_attention_interval"
                           : !strcmp(type, "nemotron_h")              ? "hybrid_override_pattern"
                           : tr & T_LIGHTNING                         ? "attn_type_list"
                           : tr & T_MAMBA1                            ? "attn_layer_period"
                           : !strcmp(type, "kimi_linear")             ? "linear_attn_config"
                           : !strcmp(type, "granitemoehybrid")        ? "layer_types"
                                                                      : NULL;
        if (need)
            return ERR("%s: field '%s' is missing: model_type %s is a hybrid whose attention and linear / "
                       "state-space layers it places (without it every layer would read as attention)",
                       fname, need, type);
    }
    if (want && L > LLMROOF_PATTERN_MAX)
        return ERR("%s: %ld layers with per-layer kinds: llmroof lists at most %d", fname, L, LLMROOF_PATTERN_MAX);
    long wnd_every = 0;
    if (m->window > 0 && !lt) {
        if ((rc = one(fname, doc, "sliding_window_pattern", false, 0, 0, 10000, &wnd_every, err)))
            return rc;
        m->window_global_every = wnd_every; /* 0: every layer windowed */
    }
    if (want) {
        patterned = true;
        for (long i = 0; i < L; i++) {
            mix[i] = 'A';
            ffn[i] = 'D';
            if (m->moe_experts > 0 && i >= m->moe_first_dense && (i + 1) % m->moe_layer_step == 0)
                ffn[i] = 'E';
        }
        mix[L] = ffn[L] = '\0';
        if (bc) {
            memcpy(mix, nas_mix, (size_t)L + 1);
            memcpy(ffn, nas_ffn, (size_t)L + 1);
            memcpy(m->ffn_widths, nas_w, (size_t)L * sizeof nas_w[0]);
        } else if (tr & T_PAR_MIX) {
            /* Falcon-H1: every decoder layer runs attention and the Mamba-2 mixer on the same
             * normed input and adds both outputs (HF modeling_falcon_h1.py FalconH1DecoderLayer) */
            if (get(doc, "attn_layer_indices"))
                return ERR("%s: field 'attn_layer_indices' (attention on some layers only) is not modelled; "
                           "llmroof reads Falcon-H1 with attention in every layer (null)", fname);
            const bool mlp = flag(doc, "mamba_use_mlp", true);
            for (long i = 0; i < L; i++) {
                mix[i] = 'P';
                ffn[i] = mlp ? 'D' : 'N';
            }
        } else if (lt) {
            if (!cJSON_IsArray(lt) || cJSON_GetArraySize(lt) != L)
                return ERR("%s: field '%s' must list num_hidden_layers (%ld) entries", fname, lt_name, L);
            long i = 0;
            for (const cJSON *t = lt->child; t; t = t->next, i++) {
                const char *v = cJSON_IsString(t) && t->valuestring ? t->valuestring : "";
                if (!strcmp(v, "full_attention") || !strcmp(v, "attention"))
                    mix[i] = 'A';
                else if (!strcmp(v, "sliding_attention"))
                    mix[i] = 'W';
                else if (!strcmp(v, "linear_attention") || !strcmp(v, "mamba") || !strcmp(v, "mamba2"))
                    mix[i] = 'L';
                else
                    return ERR("%s: field '%s' entry %ld is \"%s\"; known: full_attention, attention, "
                               "sliding_attention, linear_attention, mamba", fname, lt_name, i, v);
            }
            if (strchr(mix, 'W') && m->window <= 0)
                return ERR("%s: field '%s' lists sliding layers but 'sliding_window' gives no window", fname, lt_name);
        } else if (hop) {
            const char *p = cJSON_IsString(hop) && hop->valuestring ? hop->valuestring : "";
            if ((long)strlen(p) != L)
                return ERR("%s: field 'hybrid_override_pattern' must hold num_hidden_layers (%ld) letters", fname, L);
            for (long i = 0; i < L; i++) {
                switch (p[i]) {
                case 'M': mix[i] = 'L'; ffn[i] = 'N'; break;
                case '*': mix[i] = 'A'; ffn[i] = 'N'; break;
                case '-': mix[i] = 'N'; ffn[i] = 'D'; break;
                case 'E': mix[i] = 'N'; ffn[i] = 'E'; break;
                default:
                    return ERR("%s: field 'hybrid_override_pattern' letter %ld is '%c'; known: M (Mamba-2), "
                               "* (attention), - (MLP), E (MoE)", fname, i, p[i]);
                }
            }
        } else if (fai) {
            long n = 0;
            if ((rc = one(fname, doc, "full_attention_interval", true, 0, 1, 10000, &n, err)))
                return rc;
            for (long i = 0; i < L; i++)
                mix[i] = (i + 1) % n == 0 ? 'A' : 'L';
        } else if (atl) {
            if (!cJSON_IsArray(atl) || cJSON_GetArraySize(atl) != L)
                return ERR("%s: field 'attn_type_list' must list num_hidden_layers (%ld) entries", fname, L);
            long i = 0;
            for (const cJSON *t = atl->child; t; t = t->next, i++)
                mix[i] = cJSON_IsNumber(t) && t->valuedouble == 1 ? 'A' : 'L';
            /* attn_type_list says which layers are softmax, not what the others are: lightning
             * attention for the MiniMax-01 types above; under another type the kind of its linear
             * layers is unknown, and read as the gated DeltaNet below it would be mis-modelled.
             * MiniMax-M2 (minimax_m2) writes the list with every layer softmax: nothing to know */
            if (strchr(mix, 'L') && !(tr & T_LIGHTNING))
                return ERR("%s: field 'attn_type_list' (MiniMax-01's softmax / lightning layer list) places linear "
                           "layers but model_type %s is not one llmroof knows as lightning attention (minimax, "
                           "minimax_text_01, minimax_m1): the kind of those layers is not known", fname, type);
        } else if (alp) {
            /* Jamba: attention on i mod period = offset, Mamba-1 elsewhere; MoE on i mod
             * expert_period = expert_offset, dense MLP elsewhere */
            long ap = 0, ao = 0;
            if ((rc = one(fname, doc, "attn_layer_period", true, 0, 1, 10000, &ap, err)) ||
                (rc = one(fname, doc, "attn_layer_offset", false, 4, 0, 10000, &ao, err))) /* JambaConfig's 4 */
                return rc;
            for (long i = 0; i < L; i++)
                mix[i] = i % ap == ao ? 'A' : 'L';
        }
        if (tr & T_MAMBA1) {
            /* Jamba's experts follow their own period whichever field placed the mixers (its
             * attn_layer_period or the older layers_block_type list); JambaConfig's defaults 2, 1 */
            long ep = 2, eo = 1;
            if ((rc = one(fname, doc, "expert_layer_period", false, 2, 1, 10000, &ep, err)) ||
                (rc = one(fname, doc, "expert_layer_offset", false, 1, 0, 10000, &eo, err)))
                return rc;
            for (long i = 0; i < L; i++)
                ffn[i] = m->moe_experts > 0 && i % ep == eo ? 'E' : 'D';
        } else if (lac) {
            const cJSON *fl = cJSON_GetObjectItemCaseSensitive(lac, "full_attn_layers");
            if (!cJSON_IsArray(fl))
                return ERR("%s: field 'linear_attn_config.full_attn_layers' must be a list of layer numbers", fname);
            for (long i = 0; i < L; i++)
                mix[i] = 'L';
            for (const cJSON *t = fl->child; t; t = t->next) {
                /* Kimi-Linear numbers layers from 1 */
                if (!cJSON_IsNumber(t) || t->valuedouble < 1 || t->valuedouble > (double)L)
                    return ERR("%s: field 'linear_attn_config.full_attn_layers' holds a layer outside 1..%ld", fname, L);
                mix[(long)t->valuedouble - 1] = 'A';
            }
        }
        if (mlo && cJSON_IsArray(mlo))
            for (const cJSON *t = mlo->child; t; t = t->next) {
                if (!cJSON_IsNumber(t) || t->valuedouble < 0 || t->valuedouble >= (double)L)
                    return ERR("%s: field 'mlp_only_layers' holds a layer outside 0..%ld", fname, L - 1);
                ffn[(long)t->valuedouble] = 'D';
            }
    }
    if (patterned) {
        if (!strpbrk(mix, "AWP"))
            return ERR("%s: no layer holds attention: llmroof needs at least one (pure state-space models are not "
                       "modelled)", fname);
        memcpy(m->mixers, mix, (size_t)L + 1);
        memcpy(m->ffns, ffn, (size_t)L + 1);
        /* a window the layer pattern places nowhere: Jamba's applies to its attention layers (HF
         * JambaAttention passes it to every one); elsewhere it is not modelled, and said so */
        if (m->window > 0 && !strchr(mix, 'W')) {
            if (!(tr & T_MAMBA1))
                return ERR("%s: field 'sliding_window' (%ld) is set but model_type %s places no sliding layer in "
                           "its layer pattern: not modelled (give layer_types with sliding_attention, or no window)",
                           fname, m->window, type);
            for (long i = 0; i < L; i++)
                if (mix[i] == 'A')
                    mix[i] = 'W';
            memcpy(m->mixers, mix, (size_t)L + 1);
        }
        if (strpbrk(mix, "LP")) {
            if (tr & T_MAMBA2 || get(doc, "mamba_num_heads") || get(doc, "mamba_n_heads")) {
                static const char *const k_mh[] = { "mamba_num_heads", "mamba_n_heads", NULL };
                static const char *const k_md[] = { "mamba_head_dim", "mamba_d_head", NULL };
                static const char *const k_ms[] = { "ssm_state_size", "mamba_d_state", NULL };
                static const char *const k_mg[] = { "n_groups", "mamba_n_groups", NULL };
                static const char *const k_mc[] = { "conv_kernel", "mamba_d_conv", NULL };
                m->linear_kind = LLMROOF_LINEAR_MAMBA2;
                if ((rc = hf_int(fname, doc, k_mh, true, 0, 1, 65536, &m->lin_heads, err)) ||
                    (rc = hf_int(fname, doc, k_md, true, 0, 1, 65536, &m->lin_v_dim, err)) ||
                    (rc = hf_int(fname, doc, k_ms, true, 0, 1, 65536, &m->lin_k_dim, err)) ||
                    (rc = hf_int(fname, doc, k_mg, false, 1, 1, 65536, &m->lin_k_heads, err)) ||
                    (rc = hf_int(fname, doc, k_mc, false, 4, 0, 1024, &m->lin_conv, err)))
                    return rc;
                long dssm = 0;
                if ((rc = one(fname, doc, "mamba_d_ssm", false, m->lin_heads * m->lin_v_dim, 1, 16777216, &dssm, err)))
                    return rc;
                if (dssm != m->lin_heads * m->lin_v_dim)
                    return ERR("%s: field 'mamba_d_ssm' (%ld) is not mamba_n_heads x mamba_d_head (%ld x %ld), which "
                               "llmroof cannot represent", fname, dssm, m->lin_heads, m->lin_v_dim);
            } else if (tr & T_MAMBA1) {
                long st = 0, cv = 0, ex = 0, rk = 0;
                if ((rc = one(fname, doc, "mamba_d_state", true, 0, 1, 65536, &st, err)) ||
                    (rc = one(fname, doc, "mamba_d_conv", false, 4, 0, 1024, &cv, err)) ||
                    (rc = one(fname, doc, "mamba_expand", false, 2, 1, 64, &ex, err)))
                    return rc;
                /* dt_rank "auto" = ceil(hidden / 16), as Mamba's reference code */
                const cJSON *dr = get(doc, "mamba_dt_rank");
                long rk_dflt = (m->hidden + 15) / 16;
                if (dr && cJSON_IsString(dr))
                    rk = rk_dflt;
                else if ((rc = one(fname, doc, "mamba_dt_rank", false, rk_dflt, 1, 1048576, &rk, err)))
                    return rc;
                m->linear_kind = LLMROOF_LINEAR_MAMBA1;
                m->lin_heads = ex * m->hidden; /* d_inner channels */
                m->lin_k_heads = rk;
                m->lin_k_dim = st;
                m->lin_v_dim = 1;
                m->lin_conv = cv;
            } else if (tr & T_LIGHTNING) {
                m->linear_kind = LLMROOF_LINEAR_LIGHTNING;
                m->lin_heads = m->lin_k_heads = m->heads;
                m->lin_k_dim = m->lin_v_dim = m->head_dim;
            } else if (lac) {
                /* Kimi Delta Attention (modeling_kimi.py KimiDeltaAttention): the delta rule with a
                 * decay per channel, num_heads heads of head_dim keys and values, its gates low-rank
                 * through head_dim (layers.c lin_shape) */
                long nh = 0, hd = 0, ck = 0;
                if ((rc = one(fname, lac, "num_heads", true, 0, 1, 65536, &nh, err)) ||
                    (rc = one(fname, lac, "head_dim", true, 0, 1, 65536, &hd, err)) ||
                    (rc = one(fname, lac, "short_conv_kernel_size", false, 4, 0, 1024, &ck, err)))
                    return rc;
                m->linear_kind = LLMROOF_LINEAR_KDA;
                m->lin_heads = m->lin_k_heads = nh;
                m->lin_k_dim = m->lin_v_dim = hd;
                m->lin_conv = ck;
            } else {
                m->linear_kind = LLMROOF_LINEAR_GDN;
                if ((rc = one(fname, doc, "linear_num_value_heads", true, 0, 1, 65536, &m->lin_heads, err)) ||
                    (rc = one(fname, doc, "linear_num_key_heads", true, 0, 1, 65536, &m->lin_k_heads, err)) ||
                    (rc = one(fname, doc, "linear_key_head_dim", true, 0, 1, 65536, &m->lin_k_dim, err)) ||
                    (rc = one(fname, doc, "linear_value_head_dim", true, 0, 1, 65536, &m->lin_v_dim, err)) ||
                    (rc = one(fname, doc, "linear_conv_kernel_dim", false, 4, 0, 1024, &m->lin_conv, err)))
                    return rc;
            }
        }
    }
    if (tr & T_POST_NORMS)
        m->norms_per_layer = 2; /* post-attention and post-MLP norms in place of the pre-norms */
    if ((rc = state_dtype(fname, doc, m, err)))
        return rc;
    /* Kimi-Linear's KDA keeps its recurrent state in fp32 whatever the cache dtype (vLLM's
     * MambaStateDtypeCalculator.kda_state_dtype: the conv states at the model dtype, the recurrent
     * one torch.float32): taken as the model's state dtype, its conv tail (6.6% of the elements)
     * at fp32 too */
    if (!strcmp(type, "kimi_linear") && !m->lin_state_dtype_set && m->linear_kind != LLMROOF_LINEAR_NONE) {
        m->lin_state_dtype_set = true;
        m->lin_state_dtype = LLMROOF_FP32;
    }
    hf_warn_mtp(warn, warn_cap, fname, m);
    return rc;
}

void hf_warn_mtp(char *warn, size_t cap, const char *fname, const struct llmroof_model *m)
{
    if (m->mtp_layers > 0)
        hf_warn(warn, cap, "%s: %ld multi-token-prediction module(s) ship with the model (for --spec mtp); "
                "their weights are not counted", fname, m->mtp_layers);
}
