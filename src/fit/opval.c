/* opval.c - per-operator comparison with kernel measurements (see opval.h). */
#include "fit/opval.h"

#include "model/kernel.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/parse.h"

static bool op_parse(const char *s, enum llmroof_opkind *out)
{
    for (int k = 0; k < LLMROOF_OP_COUNT; k++)
        if (!op_is_collective((enum llmroof_opkind)k) && strcmp(s, op_name((enum llmroof_opkind)k)) == 0) {
            *out = (enum llmroof_opkind)k;
            return true;
        }
    return false;
}

enum { C_OP, C_TOKENS, C_BATCH, C_CONTEXT, C_DTYPE, C_MEASURED, C_MODEL, C_TP, NCOLS };
static const char *const colname[NCOLS] = { "op", "tokens", "batch", "context", "dtype", "measured_s", "model", "tp" };
#define NREQUIRED C_MODEL

static int parse_row(char f[][VAL_TEXT], const int *col, const char *fname, long line, struct opval_row *r,
                     struct llmroof_err *err)
{
    int64_t v;
    memset(r, 0, sizeof *r);
    r->line = line;
    if (!op_parse(f[col[C_OP]], &r->op))
        return llmroof_err_set(err, LLMROOF_EINPUT,
                               "%s:%ld: column 'op': '%s' is not a local operator (norm, qkv_proj, kv_write, "
                               "attention, o_proj, router, ffn, final_norm, lm_head)", fname, line, f[col[C_OP]]);
    if (!parse_int64(f[col[C_TOKENS]], 1, 100000000, &v))
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: column 'tokens': '%s' is not a whole number in [1, 1e8]",
                               fname, line, f[col[C_TOKENS]]);
    r->tokens = (long)v;
    if (!parse_int64(f[col[C_BATCH]], 1, 1000000, &v))
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: column 'batch': '%s' is not a whole number in [1, 1e6]",
                               fname, line, f[col[C_BATCH]]);
    r->batch = (long)v;
    if (!parse_int64(f[col[C_CONTEXT]], 0, 100000000, &v))
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: column 'context': '%s' is not a whole number in [0, 1e8]",
                               fname, line, f[col[C_CONTEXT]]);
    r->context = (long)v;
    if (!dtype_parse(f[col[C_DTYPE]], &r->dtype))
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: column 'dtype': unknown dtype '%s'", fname, line,
                               f[col[C_DTYPE]]);
    double s;
    if (!parse_double(f[col[C_MEASURED]], &s) || !(s > 0) || s > 1e3)
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: column 'measured_s': '%s' is not a time in (0, 1000] s",
                               fname, line, f[col[C_MEASURED]]);
    r->measured_s = s;
    if (col[C_MODEL] >= 0)
        snprintf(r->model, sizeof r->model, "%s", f[col[C_MODEL]]);
    if (col[C_TP] >= 0 && f[col[C_TP]][0]) {
        if (!parse_int64(f[col[C_TP]], 1, 1024, &v))
            return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: column 'tp': '%s' is not a whole number in [1, 1024]",
                                   fname, line, f[col[C_TP]]);
        r->tp = (int)v;
    }
    if (r->tokens % r->batch != 0)
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: tokens %ld is not a multiple of batch %ld", fname, line,
                               r->tokens, r->batch);
    return LLMROOF_OK;
}

struct rows_ctx {
    const char *fname;
    struct opval_row *v;
    size_t n, cap;
};

static int kernel_row(void *vctx, char f[][VAL_TEXT], const int *col, long line, struct llmroof_err *err)
{
    struct rows_ctx *x = vctx;
    int rc = val_csv_reserve((void **)&x->v, &x->cap, x->n, sizeof *x->v, x->fname, err);
    if (rc || (rc = parse_row(f, col, x->fname, line, &x->v[x->n], err)))
        return rc;
    x->n++;
    return LLMROOF_OK;
}

int opval_parse_csv(const char *text, size_t len, const char *fname, struct opval_row **rows, size_t *nrows,
                    struct llmroof_err *err)
{
    struct rows_ctx x = { fname, NULL, 0, 0 };
    *rows = NULL;
    *nrows = 0;
    int rc = val_csv_read(text, len, fname, colname, NCOLS, NREQUIRED, kernel_row, &x, err);
    if (rc == 0 && x.n == 0)
        rc = llmroof_err_set(err, LLMROOF_EINPUT, "%s: no rows", fname);
    if (rc) {
        free(x.v);
        return rc;
    }
    *rows = x.v;
    *nrows = x.n;
    return LLMROOF_OK;
}

int opval_predict(const struct opval_row *r, const struct llmroof_model *m, int tp, const struct llmroof_gpu *g,
                  const struct llmroof_effs *eff, const char *fname, struct opval_pred *out,
                  struct llmroof_err *err)
{
    memset(out, 0, sizeof *out);
    struct llmroof_shard sh;
    if (ops_shard(m, tp, &sh, err)) {
        /* the row's place first, as every other row error (a review: "TP 3 does not divide" alone
         * left the reader to find the row) */
        char why[sizeof err->msg];
        snprintf(why, sizeof why, "%s", err->msg);
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: %s", fname, r->line, why);
    }
    /* the kit times weight-only int8/int4 kernels with fp16 activations; fp8 runs fp8 math */
    enum llmroof_dtype act = (r->dtype == LLMROOF_INT8 || r->dtype == LLMROOF_INT4) ? LLMROOF_FP16 : r->dtype;
    if (roofline_check(g, act, err))
        return LLMROOF_EINPUT;
    /* the kit times every kernel at the row's dtype, its LM head too (head_quantized): a serving
     * engine's LM head stays 16-bit beside 8-bit layers (ops_unquantized_bytes), so without it the
     * fp8 lm_head rows were priced at twice their bytes, read 141-165% of peak bandwidth and set
     * the fitted memory share at its cap (a review of session 64: 1.00 where the kit's own
     * measurements had given 0.83) */
    struct llmroof_dtypes dt = { r->dtype, dtype_is_storage(r->dtype) ? r->dtype : LLMROOF_FP16, act, 0, false, LLMROOF_FP16, true, LLMROOF_ACT_QUANT_SEPARATE, false };
    if (dt.kv == LLMROOF_INT4 || dt.kv == LLMROOF_INT8)
        dt.kv = LLMROOF_FP16;
    /* the step a kernel belongs to: decode when each sequence adds one token to a cache of
     * `context` keys; otherwise a prefill of tokens/batch per sequence. The LM head gets one
     * logits row per token measured (the kit times it as a GEMM of `tokens` rows). */
    struct llmroof_batch b;
    if (r->op == LLMROOF_OP_LM_HEAD)
        b = batch_decode((double)r->tokens, 1);
    else if (r->context > 0 && r->tokens == r->batch)
        b = batch_decode((double)r->batch, (double)r->context);
    else
        b = batch_prefill((double)r->batch, (double)r->tokens / (double)r->batch, &sh.few); /* exact: parse checks divisibility */
    struct llmroof_oplist ops;
    ops_build(m, &sh, &dt, &b, &ops);
    const struct llmroof_op *o = &ops.op[r->op];
    if (!(o->count > 0))
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: model '%s' has no %s operator", fname, r->line, m->id,
                               op_name(r->op));
    struct llmroof_phase ph;
    roofline_eval(g, act, eff, tp, &ops, &ph);
    const struct llmroof_optime *t = &ph.op[r->op];
    out->compute_s = t->compute_s / o->count;
    out->memory_s = t->memory_s / o->count;
    /* the kit's norm is F.rms_norm alone, where an engine's norm carries the residual add fused into
     * it: that add's bytes are not in the kernel measured */
    double bytes = o->bytes;
    if (r->op == LLMROOF_OP_NORM) {
        const double res = ops_norm_residual_bytes(m, b.tokens, ops_stream_bytes(&dt));
        out->memory_s *= (o->bytes - res) / o->bytes;
        bytes -= res;
    }
    /* the kernels as the kit times them (CUDA events around them, bench/gpu/measure.py): their
     * roofline time plus each kernel's fixed GPU cost (llmroof/kernel.h), no CPU launch wait, which
     * events do not see. The kit's MLP is ops.c's three kernels (gate_up, activation, down); its
     * QKV projection is the GEMM alone (no RoPE) and its LM head the GEMM alone (no sampling). */
    const double kn = r->op == LLMROOF_OP_FFN ? o->kernels : 1.0;
    const bool attn = r->op == LLMROOF_OP_ATTENTION || r->op == LLMROOF_OP_ATTN_LOCAL;
    out->predicted_s = attn ? kernel_instance_s(out->compute_s, out->memory_s, eff->overlap, kn, eff->kernel_s, 0.0)
                            : kernel_gemm_instance_s(out->compute_s, out->memory_s, kn, eff->kernel_s, 0.0);
    out->bound = t->bound;
    out->flops = o->flops;
    out->bytes = bytes;
    out->achieved_flops_frac = o->flops / (r->measured_s * g->peak_flops[act]);
    out->achieved_bw_frac = bytes / (r->measured_s * g->mem_bw_Bps);
    out->attention = r->op == LLMROOF_OP_ATTENTION || r->op == LLMROOF_OP_ATTN_LOCAL;
    return LLMROOF_OK;
}
