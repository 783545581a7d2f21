/* catalog.c - GPU, model and engine entries: parsed field by field with their physical ranges,
 * added to a catalog, looked up by id or alias, and suggested on a typo (see llmroof/catalog.h).
 * Unknown fields are errors so that a typo ("memory_bandwith_Bps") never passes silently.
 * Schema and units: docs/catalog.md. */
#include "data/json_read.h"


#include "base/parse.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* ------------------------------------------------------------------------ */
/* Small helpers                                                            */
/* ------------------------------------------------------------------------ */

/* In enum order; NULL-terminated for json_get_choice. */
static const char *const link_names[] = { "nvlink", "pcie", "xgmi", NULL };
static const char *const attn_kernel_names[] = { "flash2", "flash3", "eager", "eager-prefill", NULL };
static const char *const act_quant_names[] = { "separate", "norm-act", "fused", NULL };

const char *link_name(enum llmroof_link k)
{
    return k >= LLMROOF_LINK_NVLINK && k <= LLMROOF_LINK_XGMI ? link_names[k] : "?";
}

const char *linear_kind_name(enum llmroof_linear k)
{
    switch (k) {
    case LLMROOF_LINEAR_GDN: return "gdn";
    case LLMROOF_LINEAR_MAMBA2: return "mamba2";
    case LLMROOF_LINEAR_LIGHTNING: return "lightning";
    case LLMROOF_LINEAR_MAMBA1: return "mamba1";
    case LLMROOF_LINEAR_NONE: break;
    }
    return "none";
}

const char *attn_kernel_name(enum llmroof_attn_kernel k)
{
    return k >= LLMROOF_ATTN_FLASH2 && k <= LLMROOF_ATTN_EAGER_PREFILL ? attn_kernel_names[k] : "?";
}

const char *act_quant_name(enum llmroof_act_quant q)
{
    return q >= LLMROOF_ACT_QUANT_SEPARATE && q <= LLMROOF_ACT_QUANT_FUSED ? act_quant_names[q] : "?";
}

void catalog_init(struct llmroof_catalog *cat)
{
    memset(cat, 0, sizeof *cat);
}

void catalog_free(struct llmroof_catalog *cat)
{
    free(cat->gpus);
    free(cat->models);
    free(cat->engines);
    catalog_init(cat);
}


/* ------------------------------------------------------------------------ */
/* GPUs                                                                     */
/* ------------------------------------------------------------------------ */

/* An architecture name as the vendors spell their compilation targets: NVIDIA's "sm" and the
 * compute capability's 2-3 digits with an optional family suffix ("sm80", "sm120", "sm90a",
 * "sm100f"), AMD's "gfx" and 3-4 digits or hex letters, the first a digit ("gfx942", "gfx90a",
 * "gfx1100"). The engine rules keyed by architecture name these two vendors' targets only, so a
 * typo ("sm8o") is refused rather than matching nothing in silence. */
static bool arch_name_ok(const char *s)
{
    size_t n = strlen(s), i;
    if (n >= 2 && s[0] == 's' && s[1] == 'm') {
        for (i = 2; i < n && s[i] >= '0' && s[i] <= '9'; i++)
            ;
        const size_t digits = i - 2;
        if (digits < 2 || digits > 3 || s[2] == '0') /* compute capability 1.0 and up: no leading zero */
            return false;
        return i == n || (i + 1 == n && (s[i] == 'a' || s[i] == 'f'));
    }
    if (n >= 3 && !strncmp(s, "gfx", 3)) {
        if (n < 6 || n > 7 || !(s[3] >= '1' && s[3] <= '9'))
            return false;
        for (i = 4; i < n; i++)
            if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
                return false;
        return true;
    }
    return false;
}

static int arch_err(struct json_ectx *c, const char *field, const char *got)
{
    return json_ferr(c, field,
                     "must be an architecture name like \"sm80\" or \"gfx942\" (\"sm\" and 2-3 digits, optionally "
                     "then a or f; or \"gfx\" and 3-4 digits or hex letters; got \"%s\")",
                     got);
}

/* An engine's list of GPU architectures (varlen_fa2_archs, fa2_archs): strings of arch_name_ok's
 * form, each once, at most LLMROOF_ARCHS_MAX. Absent: none. */
static int parse_arch_list(struct json_ectx *c, const cJSON *e, const char *field,
                           char out[LLMROOF_ARCHS_MAX][LLMROOF_ARCH_MAX], int *n)
{
    *n = 0;
    const cJSON *va = json_item(e, field);
    if (!va)
        return LLMROOF_OK;
    if (!cJSON_IsArray(va))
        return json_ferr(c, field, "must be an array of architecture names such as \"sm80\"");
    for (const cJSON *a = va->child; a; a = a->next) {
        if (!cJSON_IsString(a) || !a->valuestring)
            return json_ferr(c, field, "entries must be strings (architecture names such as \"sm80\")");
        if (strlen(a->valuestring) >= LLMROOF_ARCH_MAX)
            return json_ferr(c, field, "entry \"%.32s\" is longer than %d characters", a->valuestring,
                             LLMROOF_ARCH_MAX - 1);
        if (!arch_name_ok(a->valuestring))
            return arch_err(c, field, a->valuestring);
        for (int i = 0; i < *n; i++)
            if (!strcmp(out[i], a->valuestring))
                return json_ferr(c, field, "names \"%s\" twice", a->valuestring);
        if (*n == LLMROOF_ARCHS_MAX)
            return json_ferr(c, field, "has more than %d entries", LLMROOF_ARCHS_MAX);
        memcpy(out[(*n)++], a->valuestring, strlen(a->valuestring) + 1);
    }
    return LLMROOF_OK;
}

/* An entry's "aliases": extra names a user may type for it, each a typed name (no controls,
 * blanks or list commas) shorter than an id; GPUs and engines alike. */
static int parse_aliases(struct json_ectx *c, const cJSON *e, char (*out)[LLMROOF_ID_MAX], int *n)
{
    const cJSON *al = json_item(e, "aliases");
    if (!al)
        return LLMROOF_OK;
    if (!cJSON_IsArray(al))
        return json_ferr(c, "aliases", "must be an array of strings");
    for (const cJSON *a = al->child; a; a = a->next) {
        if (!cJSON_IsString(a) || !a->valuestring || !a->valuestring[0])
            return json_ferr(c, "aliases", "must be an array of non-empty strings");
        for (const unsigned char *p = (const unsigned char *)a->valuestring; *p; p++)
            if (*p < 0x21 || *p == 0x7f || *p == ',') /* names are typed: no controls, blanks, list commas */
                return json_ferr(c, "aliases", "entries must not contain control characters, spaces or commas");
        if (*n == LLMROOF_ALIASES_MAX)
            return json_ferr(c, "aliases", "has more than %d entries", LLMROOF_ALIASES_MAX);
        if (strlen(a->valuestring) >= LLMROOF_ID_MAX)
            return json_ferr(c, "aliases", "entry '%s' is too long", a->valuestring);
        memcpy(out[(*n)++], a->valuestring, strlen(a->valuestring) + 1);
    }
    return LLMROOF_OK;
}

static int parse_gpu(struct json_ectx *c, const cJSON *e, struct llmroof_gpu *g)
{
    static const char *const fields[] = {
        "id", "name", "aliases", "memory_bytes", "memory_visible_bytes", "memory_bandwidth_Bps", "peak_flops",
        "interconnect", "efficiency", "step_overhead_s", "gpus_per_node", "domain_gpus", "network", "host", "arch",
        "source", NULL
    };
    static const char *const host_fields[] = { "cpu", "cpu_speed", NULL };
    static const char *const net_fields[] = { "kind", "bandwidth_Bps", "latency_s", NULL };
    static const char *const ic_fields[] = { "kind", "bandwidth_Bps", "latency_s", "hop_latency_s",
                                             "nvls_bandwidth_Bps", "mesh_links",
                                             "custom_allreduce_latency_s", "simple_step_latency_s",
                                             "ll128_bandwidth_share", NULL };
    static const char *const eff_fields[] = { "compute", "memory", "comm", "kernel_s", "gemm_8bit", "fp16_accumulate_ratio",
                                              "gemm_fp16_accumulate",
                                              "overlap", "attention", "attention_fa3", "attention_memory",
                                              "attention_memory_fa2", NULL };
    int rc;

    memset(g, 0, sizeof *g);
    if ((rc = json_entry_head(c, e, fields, g->id, sizeof g->id)))
        return rc;
    if ((rc = json_get_string(c, e, "name", true, g->name, sizeof g->name)) ||
        (rc = json_get_string(c, e, "source", true, g->source, sizeof g->source)) ||
        (rc = json_get_string(c, e, "arch", false, g->arch, sizeof g->arch)))
        return rc;
    if (json_item(e, "arch") && !g->arch[0])
        return json_ferr(c, "arch", "must not be empty (leave the field out when the architecture is not known)");
    if (g->arch[0] && !arch_name_ok(g->arch))
        return arch_err(c, "arch", g->arch);

    if ((rc = parse_aliases(c, e, g->aliases, &g->n_aliases)))
        return rc;

    /* Physical ranges (docs/catalog.md): every figure of a real accelerator lies well inside
     * them, and every product the model forms from numbers inside them stays finite. Upper:
     * no device has 10 TB of memory, 100 TB/s or 1e17 FLOP/s. Lower: below 100 MB, 1 GB/s
     * or 1 GFLOP/s the entry is a unit slip (a 1e-300 bandwidth would turn every time into
     * inf). The extremes test (tests/cli/extremes.sh) runs every command at these limits. */
    const cJSON *mb = json_item(e, "memory_bytes");
    if (cJSON_IsNumber(mb) && mb->valuedouble >= 1 && mb->valuedouble != floor(mb->valuedouble))
        return json_ferr(c, "memory_bytes", "must be a whole number of bytes (got %g)", mb->valuedouble);
    if ((rc = json_get_number(c, e, "memory_bytes", "memory_bytes", true, 1e8, false, 1e13, &g->memory_bytes, NULL)) ||
        (rc = json_get_number(c, e, "memory_bandwidth_Bps", "memory_bandwidth_Bps", true, 1e9, false, 1e14,
                         &g->mem_bw_Bps, NULL)))
        return rc;
    /* What the runtime reports is the device's memory less what ECC and the driver keep: about
     * 1% on HBM parts (H100 SXM5 79.18 of 80 GiB), up to 8% on GDDR parts with ECC on (L40S
     * 44.5 of 48 GiB), never more than the device holds; half of it would be a unit slip. */
    bool vis_given = false;
    const cJSON *vb = json_item(e, "memory_visible_bytes");
    if (cJSON_IsNumber(vb) && vb->valuedouble >= 1 && vb->valuedouble != floor(vb->valuedouble))
        return json_ferr(c, "memory_visible_bytes", "must be a whole number of bytes (got %g)", vb->valuedouble);
    if ((rc = json_get_number(c, e, "memory_visible_bytes", "memory_visible_bytes", false, 1e8, false, 1e13,
                              &g->memory_visible_bytes, &vis_given)))
        return rc;
    if (vis_given && g->memory_visible_bytes > g->memory_bytes)
        return json_ferr(c, "memory_visible_bytes",
                         "must be at most memory_bytes, %.0f B (%.2f GiB): the runtime reports part of the device's "
                         "memory, never more (got %.0f B)",
                         g->memory_bytes, g->memory_bytes / 1073741824.0, g->memory_visible_bytes);
    if (vis_given && g->memory_visible_bytes < 0.5 * g->memory_bytes)
        return json_ferr(c, "memory_visible_bytes",
                         "must be at least half of memory_bytes, %.0f B (%.2f GiB): ECC and the driver keep a few "
                         "percent, so a smaller figure is a unit slip (got %.0f B)",
                         0.5 * g->memory_bytes, 0.5 * g->memory_bytes / 1073741824.0, g->memory_visible_bytes);
    if (!vis_given)
        g->memory_visible_bytes = g->memory_bytes;

    const cJSON *pf = json_item(e, "peak_flops");
    if (!pf)
        return json_ferr(c, "peak_flops", "is missing (an object of dtype: FLOP/s is required)");
    if (!cJSON_IsObject(pf))
        return json_ferr(c, "peak_flops", "must be an object mapping dtype names to dense FLOP/s");
    for (const cJSON *it = pf->child; it; it = it->next) {
        enum llmroof_dtype d;
        char f[96] = "peak_flops."; /* the field's name for messages, cut as snprintf would */
        const char *key = it->string ? it->string : "?";
        size_t kl = strnlen(key, sizeof f - sizeof "peak_flops.");
        memcpy(f + sizeof "peak_flops." - 1, key, kl);
        f[sizeof "peak_flops." - 1 + kl] = '\0';
        if (!it->string || !dtype_parse(it->string, &d) || strcmp(it->string, dtype_name(d)) != 0)
            return json_ferr(c, f, "is not a dtype (fp32, tf32, fp16, bf16, fp8, int8, int4, fp4)");
        if ((rc = json_get_number(c, pf, it->string, f, true, 1e9, false, 1e17, &g->peak_flops[d], NULL)))
            return rc;
        g->has_peak[d] = true;
    }
    if (!g->has_peak[LLMROOF_FP16] && !g->has_peak[LLMROOF_BF16] && !g->has_peak[LLMROOF_FP32])
        return json_ferr(c, "peak_flops", "must give at least one of fp32, fp16 or bf16");

    const cJSON *ic = json_item(e, "interconnect");
    if (!ic)
        return json_ferr(c, "interconnect", "is missing (an object is required)");
    if (!cJSON_IsObject(ic))
        return json_ferr(c, "interconnect", "must be an object");
    if ((rc = json_check_known(c, ic, "interconnect.", ic_fields)))
        return rc;
    int kind = 0;
    if ((rc = json_get_choice(c, ic, "kind", "interconnect.kind", link_names, -1, &kind)))
        return rc;
    g->link = (enum llmroof_link)kind;
    /* links: 100 MB/s (far below PCIe 1.0 x1's 250 MB/s) to 10 TB/s */
    if ((rc = json_get_number(c, ic, "bandwidth_Bps", "interconnect.bandwidth_Bps", true, 1e8, false, 1e13,
                         &g->link_bw_Bps, NULL)) ||
        (rc = json_get_number(c, ic, "latency_s", "interconnect.latency_s", true, 0, false, 1e-2,
                         &g->link_latency_s, NULL)) ||
        (rc = json_get_number(c, ic, "hop_latency_s", "interconnect.hop_latency_s", true, 0, false, 1e-2,
                         &g->link_hop_latency_s, NULL)) ||
        /* NVLink SHARP all-reduce bandwidth: at most twice the link rate (the switch halves the
         * traffic of a ring); a mesh has 1 to 64 point-to-point links per GPU */
        (rc = json_get_number(c, ic, "nvls_bandwidth_Bps", "interconnect.nvls_bandwidth_Bps", false, 1e8, false, 2e13,
                              &g->nvls_bw_Bps, NULL)) ||
        /* an engine's custom all-reduce over peer memory: its measured fixed cost per call, 0.5 to
         * 50 us (docs/catalog.md; absent: comm.h's default) */
        (rc = json_get_number(c, ic, "custom_allreduce_latency_s", "interconnect.custom_allreduce_latency_s", false,
                              0.5e-6, false, 50e-6, &g->custom_ar_latency_s, NULL)) ||
        /* the Simple protocol's cost per ring step, from a published nccl-tests table of this GPU
         * (docs/catalog.md): 0.1 to 50 us (absent: NCCL's tuning figure, comm.h) */
        (rc = json_get_number(c, ic, "simple_step_latency_s", "interconnect.simple_step_latency_s", false, 0.1e-6,
                              false, 50e-6, &g->simple_step_s, NULL)) ||
        /* and LL128's bus bandwidth as a share of Simple's, from the same table (absent: 0.92) */
        (rc = json_get_number(c, ic, "ll128_bandwidth_share", "interconnect.ll128_bandwidth_share", false, 0.05,
                              false, 1.0, &g->ll128_share, NULL)))
        return rc;
    double mesh = 0;
    if ((rc = json_get_number(c, ic, "mesh_links", "interconnect.mesh_links", false, 1, false, 64, &mesh, NULL)))
        return rc;
    if (mesh != (double)(int)mesh)
        return json_ferr(c, "interconnect.mesh_links", "must be a whole number of links (got %g)", mesh);
    g->mesh_links = (int)mesh;
    /* NVLink SHARP lives in an NVSwitch; a point-to-point mesh is AMD's xGMI */
    if (g->nvls_bw_Bps > 0 && g->link != LLMROOF_LINK_NVLINK)
        return json_ferr(c, "interconnect.nvls_bandwidth_Bps", "needs an \"nvlink\" interconnect (NVLink SHARP is an "
                                                               "NVSwitch feature)");
    if (g->mesh_links > 0 && g->link != LLMROOF_LINK_XGMI)
        return json_ferr(c, "interconnect.mesh_links", "needs an \"xgmi\" interconnect (a point-to-point mesh)");
    /* NCCL runs LL128 over NVLink only (comm.c): a share for another link would be ignored */
    if (g->ll128_share > 0 && g->link != LLMROOF_LINK_NVLINK)
        return json_ferr(c, "interconnect.ll128_bandwidth_share",
                         "needs an \"nvlink\" interconnect (NCCL's LL128 protocol runs over NVLink only)");
    /* the engines run their custom all-reduce only over NVLink or xGMI peer access */
    if (g->custom_ar_latency_s > 0 && g->link == LLMROOF_LINK_PCIE)
        return json_ferr(c, "interconnect.custom_allreduce_latency_s",
                         "needs an \"nvlink\" or \"xgmi\" interconnect (the engines' custom all-reduce reads peer "
                         "memory over it)");

    const cJSON *ef = json_item(e, "efficiency");
    if (!ef)
        return json_ferr(c, "efficiency", "is missing (an object with compute, memory, comm is required)");
    if (!cJSON_IsObject(ef))
        return json_ferr(c, "efficiency", "must be an object");
    if ((rc = json_check_known(c, ef, "efficiency.", eff_fields)) ||
        /* efficiencies: a fraction of peak; below 1% the entry is a slip, not a GPU */
        (rc = json_get_number(c, ef, "compute", "efficiency.compute", true, 0.01, false, 1, &g->compute_eff, NULL)) ||
        (rc = json_get_number(c, ef, "memory", "efficiency.memory", true, 0.01, false, 1, &g->memory_eff, NULL)) ||
        (rc = json_get_number(c, ef, "comm", "efficiency.comm", true, 0.01, false, 1, &g->comm_eff, NULL)) ||
        /* physical bounds (docs/model.md "Kernel-level terms"): a kernel's fixed cost lies between a bare
         * launch on a graph (about 0.6 us) and a cold eager launch (about 10 us); 8-bit GEMMs reach at
         * least half of the 16-bit share of their doubled peak; GeForce fp16 accumulation doubles the peak */
        (rc = json_get_number(c, ef, "kernel_s", "efficiency.kernel_s", false, 0.5e-6, false, 10e-6, &g->kernel_s, NULL)) ||
        (rc = json_get_number(c, ef, "gemm_8bit", "efficiency.gemm_8bit", false, 0.5, false, 1, &g->gemm_8bit_eff, NULL)) ||
        (rc = json_get_number(c, ef, "overlap", "efficiency.overlap", false, 0, false, 0.5, &g->overlap, NULL)) ||
        (rc = json_get_number(c, ef, "fp16_accumulate_ratio", "efficiency.fp16_accumulate_ratio", false, 1, false, 2,
                              &g->fp16_acc_ratio, NULL)) ||
        /* as 8-bit GEMMs, at least half of the 16-bit share of their doubled peak */
        (rc = json_get_number(c, ef, "gemm_fp16_accumulate", "efficiency.gemm_fp16_accumulate", false, 0.5, false, 1,
                              &g->gemm_fp16acc_eff, NULL)) ||
        /* attention kernels: FlashAttention-2 reaches 35% of an H100 and up to 73% of an A100, FA3
         * 75% of an H100 (docs/model.md "Attention kernels"); decode attention streams K/V at up to
         * the full bandwidth (FlashInfer: "close to 100%") */
        (rc = json_get_number(c, ef, "attention", "efficiency.attention", false, 0.05, false, 1, &g->attn_eff, NULL)) ||
        (rc = json_get_number(c, ef, "attention_fa3", "efficiency.attention_fa3", false, 0.05, false, 1,
                              &g->attn_fa3_eff, NULL)) ||
        (rc = json_get_number(c, ef, "attention_memory", "efficiency.attention_memory", false, 0.05, false, 1,
                              &g->attn_mem_eff, NULL)) ||
        (rc = json_get_number(c, ef, "attention_memory_fa2", "efficiency.attention_memory_fa2", false, 0.05, false, 1,
                              &g->attn_mem_fa2_eff, NULL)))
        return rc;
    /* the share applies to the faster fp16-accumulate peak alone: on a GPU without one it would be
     * ignored (kernel_fp16acc_peak_scale) */
    if (g->gemm_fp16acc_eff > 0 && !(g->fp16_acc_ratio > 1))
        return json_ferr(c, "efficiency.gemm_fp16_accumulate",
                         "needs efficiency.fp16_accumulate_ratio above 1 (the share is of that faster fp16-accumulate "
                         "peak)");
    if ((rc = json_get_number(c, e, "step_overhead_s", "step_overhead_s", true, 0, false, 1, &g->step_overhead_s, NULL)))
        return rc;
    long gpn = 0;
    if ((rc = json_get_long(c, e, "gpus_per_node", true, 1, 1024, &gpn, NULL)))
        return rc;
    g->gpus_per_node = (int)gpn;
    /* NVLink domain: 8 in an HGX server, 72 in a GB200 NVL72 rack; default the server */
    long dom = gpn;
    if ((rc = json_get_long(c, e, "domain_gpus", false, 1, 1024, &dom, NULL)))
        return rc;
    g->domain_gpus = (int)dom;
    /* Inter-node network per GPU. Absent: one InfiniBand NDR 400 Gb/s NIC per GPU (50 GB/s per
     * direction, the DGX H100/H200 reference design) and a 10 us per-call latency, or 100 GbE
     * RoCE for PCIe cards; see docs/catalog.md "network". */
    if (g->link == LLMROOF_LINK_PCIE) {
        /* PCIe workstation/inference cards: 100 GbE RoCE per server, shared, ~12.5 GB/s */
        snprintf(g->net_kind, sizeof g->net_kind, "%s", "roce-100g");
        g->net_bw_Bps = 12.5e9;
        g->net_latency_s = 15e-6;
    } else {
        snprintf(g->net_kind, sizeof g->net_kind, "%s", "ib-ndr");
        g->net_bw_Bps = 50e9;
        g->net_latency_s = 10e-6;
    }
    const cJSON *nw = json_item(e, "network");
    if (nw) {
        if (!cJSON_IsObject(nw))
            return json_ferr(c, "network", "must be an object with kind, bandwidth_Bps and latency_s");
        c->path = "network.";
        if ((rc = json_check_known(c, nw, "network.", net_fields)) ||
            (rc = json_get_string(c, nw, "kind", true, g->net_kind, sizeof g->net_kind)) ||
            (rc = json_get_number(c, nw, "bandwidth_Bps", "network.bandwidth_Bps", true, 1e8, false, 1e13, &g->net_bw_Bps,
                                  NULL)) ||
            (rc = json_get_number(c, nw, "latency_s", "network.latency_s", true, 0, false, 1e-2, &g->net_latency_s,
                                  NULL)))
            return rc;
        c->path = NULL;
    }
    /* The usual host of such a server (docs/model.md "Host CPU"): the engine's CPU work (kernel
     * launches, scheduling, output processing) takes reference-host time / cpu_speed. Absent: the
     * reference host. Bounds: a 2017 server core is about half a Sapphire Rapids core's speed, the
     * fastest desktop cores under twice; [0.25, 4] leaves room and keeps every time finite. */
    const cJSON *host = json_item(e, "host");
    if (host) {
        if (!cJSON_IsObject(host))
            return json_ferr(c, "host", "must be an object with cpu and cpu_speed");
        c->path = "host.";
        if ((rc = json_check_known(c, host, "host.", host_fields)) ||
            (rc = json_get_string(c, host, "cpu", true, g->host_cpu, sizeof g->host_cpu)) ||
            (rc = json_get_number(c, host, "cpu_speed", "host.cpu_speed", true, 0.25, false, 4, &g->host_cpu_speed,
                                  NULL)))
            return rc;
        c->path = NULL;
    }
    return LLMROOF_OK;
}

/* Does `name` (case-insensitive) name gpu g by id or alias? */
static bool gpu_named(const struct llmroof_gpu *g, const char *name)
{
    if (strcasecmp(g->id, name) == 0)
        return true;
    for (int i = 0; i < g->n_aliases; i++)
        if (strcasecmp(g->aliases[i], name) == 0)
            return true;
    return false;
}

static bool grow(void **arr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    size_t n = *cap ? *cap : 16;
    while (n < need)
        n *= 2;
    void *p = realloc(*arr, n * elem);
    if (!p)
        return false;
    *arr = p;
    *cap = n;
    return true;
}

/* Loads go two ways. The fast load reads a file entry by entry (json_entries) into one
 * scratch entry, parses and checks every entry as the checked load does, and keeps only the
 * entry a command picked (or all): an `estimate` needs one model, one GPU and one engine, and
 * building the 118 entries of the shipped catalog (about 470 KiB of structs) cost it more
 * fresh pages than anything else (issue 24). Whatever the fast load does not accept - an
 * error of any kind, a document its reader leaves to cJSON - it hands over untouched, and
 * the checked load (the whole document, then each entry in order) runs and reports. So every
 * message is the checked load's, every file is checked whole whatever is picked, and what is
 * added is the same either way. */
#define NOT_HANDLED (-1)

/* A GPU's names (id and aliases): the fast load checks the namespace on these alone. */
struct gpu_names {
    char id[LLMROOF_ID_MAX];
    char aliases[LLMROOF_ALIASES_MAX][LLMROOF_ID_MAX];
    int n_aliases;
};

static bool names_named(const struct gpu_names *x, const char *name)
{
    if (strcasecmp(x->id, name) == 0)
        return true;
    for (int i = 0; i < x->n_aliases; i++)
        if (strcasecmp(x->aliases[i], name) == 0)
            return true;
    return false;
}

/* Every GPU entry of the file parsed and checked as add_gpus_checked checks it; the picked
 * one (all when pick is NULL) added. LLMROOF_OK, or NOT_HANDLED with cat unchanged. */
static int add_gpus_fast(struct llmroof_catalog *cat, const char *text, size_t len, const char *fname, bool replace,
                         const char *pick)
{
    struct json_entries *it = json_entries_open(text, len, "gpus");
    if (!it)
        return NOT_HANDLED;
    int rc = NOT_HANDLED;
    struct gpu_names *names = NULL; /* every entry's, for the checks within the file */
    size_t n = 0, cap_names = 0;
    struct llmroof_gpu *keep = NULL; /* the entries to add */
    size_t n_keep = 0, cap_keep = 0;
    struct llmroof_gpu *one = malloc(sizeof *one); /* the scratch entry when picking */
    struct llmroof_err quiet = { 0 }; /* a failure is reported by the checked load */
    if (!one)
        goto out;
    for (const cJSON *e; (e = json_entries_next(it)); n++) {
        struct json_ectx c = { fname, text, len, "gpus", (int)n, "", &quiet, NULL };
        struct llmroof_gpu *g = one;
        if (!pick) {
            if (!grow((void **)&keep, &cap_keep, n_keep + 1, sizeof *keep))
                goto out;
            g = &keep[n_keep];
        }
        if (parse_gpu(&c, e, g) || !grow((void **)&names, &cap_names, n + 1, sizeof *names))
            goto out;
        /* catalog_add_gpus_text's checks: ids and aliases one namespace within the file,
         * no alias twice, none taken by another GPU of the catalog */
        for (size_t j = 0; j < n; j++) {
            if (names_named(&names[j], g->id))
                goto out;
            for (int a = 0; a < g->n_aliases; a++)
                if (names_named(&names[j], g->aliases[a]))
                    goto out;
        }
        for (int a = 0; a < g->n_aliases; a++)
            for (int b = 0; b < a; b++)
                if (strcasecmp(g->aliases[a], g->aliases[b]) == 0)
                    goto out;
        for (size_t j = 0; j < cat->n_gpus; j++) {
            const struct llmroof_gpu *o = &cat->gpus[j];
            bool same_id = strcmp(o->id, g->id) == 0;
            if (same_id && !replace)
                goto out;
            if (same_id)
                continue;
            if (gpu_named(o, g->id))
                goto out;
            for (int a = 0; a < g->n_aliases; a++)
                if (gpu_named(o, g->aliases[a]))
                    goto out;
        }
        memcpy(names[n].id, g->id, sizeof g->id);
        memcpy(names[n].aliases, g->aliases, (size_t)g->n_aliases * sizeof g->aliases[0]);
        names[n].n_aliases = g->n_aliases;
        if (!pick) {
            n_keep++;
        } else if (gpu_named(g, pick)) {
            if (!grow((void **)&keep, &cap_keep, n_keep + 1, sizeof *keep))
                goto out;
            keep[n_keep++] = *g;
        }
    }
    /* room for every kept entry first: once the catalog changes, nothing may fail */
    if (!json_entries_ok(it) || !grow((void **)&cat->gpus, &cat->cap_gpus, cat->n_gpus + n_keep, sizeof *cat->gpus))
        goto out;
    if (cat->n_gpus == 0 && n_keep > 0) {
        free(cat->gpus); /* an empty catalog takes the array as it is */
        cat->gpus = keep;
        cat->n_gpus = n_keep;
        cat->cap_gpus = cap_keep;
        keep = NULL;
    }
    for (size_t i = 0; keep && i < n_keep; i++) {
        size_t j;
        for (j = 0; j < cat->n_gpus; j++)
            if (strcmp(cat->gpus[j].id, keep[i].id) == 0)
                break;
        if (j == cat->n_gpus)
            cat->n_gpus++;
        cat->gpus[j] = keep[i];
    }
    rc = LLMROOF_OK;
out:
    free(one);
    free(keep);
    free(names);
    json_entries_close(it);
    return rc;
}

/* The checked load: the whole document (json_parse_array_doc), then every entry in order,
 * each error reported where it stands. */
static int add_gpus_checked(struct llmroof_catalog *cat, const char *text, size_t len, const char *fname, bool replace,
                            const char *pick, struct llmroof_err *err)
{
    struct json_doc doc = { 0 };
    const cJSON *arr = NULL;
    int rc = json_parse_array_doc(text, len, fname, "gpus", &doc, &arr, err);
    if (rc)
        return rc;
    size_t n = (size_t)cJSON_GetArraySize(arr);
    struct llmroof_gpu *tmp = calloc(n ? n : 1, sizeof *tmp);
    if (!tmp) {
        json_doc_free(&doc);
        return llmroof_err_set(err, LLMROOF_EINTERNAL, "%s: out of memory", fname);
    }
    size_t i = 0;
    for (const cJSON *e = arr->child; e; e = e->next, i++) {
        struct json_ectx c = { fname, text, len, "gpus", (int)i, "", err, NULL };
        if ((rc = parse_gpu(&c, e, &tmp[i])))
            goto out;
        /* duplicates within this file: ids and aliases share one namespace */
        for (size_t j = 0; j < i; j++) {
            if (gpu_named(&tmp[j], tmp[i].id)) {
                rc = json_ferr(&c, "id", "duplicates the id or alias of entry '%s' in this file", tmp[j].id);
                goto out;
            }
            for (int a = 0; a < tmp[i].n_aliases; a++)
                if (gpu_named(&tmp[j], tmp[i].aliases[a])) {
                    rc = json_ferr(&c, "aliases", "'%s' is already used by '%s'", tmp[i].aliases[a], tmp[j].id);
                    goto out;
                }
        }
        for (int a = 0; a < tmp[i].n_aliases; a++)
            for (int b = 0; b < a; b++)
                if (strcasecmp(tmp[i].aliases[a], tmp[i].aliases[b]) == 0) {
                    rc = json_ferr(&c, "aliases", "lists '%s' twice", tmp[i].aliases[a]);
                    goto out;
                }
        /* against the catalog already loaded */
        for (size_t j = 0; j < cat->n_gpus; j++) {
            const struct llmroof_gpu *o = &cat->gpus[j];
            bool same_id = strcmp(o->id, tmp[i].id) == 0;
            if (same_id && !replace) {
                rc = json_ferr(&c, "id", "duplicates an entry already in the catalog");
                goto out;
            }
            if (same_id)
                continue; /* will be replaced: its names are released */
            if (gpu_named(o, tmp[i].id)) {
                rc = json_ferr(&c, "id", "is already an alias of '%s'", o->id);
                goto out;
            }
            for (int a = 0; a < tmp[i].n_aliases; a++)
                if (gpu_named(o, tmp[i].aliases[a])) {
                    rc = json_ferr(&c, "aliases", "'%s' is already used by '%s'", tmp[i].aliases[a], o->id);
                    goto out;
                }
        }
    }
    for (i = 0; i < n; i++) {
        if (pick && !gpu_named(&tmp[i], pick))
            continue;
        size_t j;
        for (j = 0; j < cat->n_gpus; j++)
            if (strcmp(cat->gpus[j].id, tmp[i].id) == 0)
                break;
        if (j == cat->n_gpus) {
            if (!grow((void **)&cat->gpus, &cat->cap_gpus, cat->n_gpus + 1, sizeof *cat->gpus)) {
                rc = llmroof_err_set(err, LLMROOF_EINTERNAL, "%s: out of memory", fname);
                goto out;
            }
            cat->n_gpus++;
        }
        cat->gpus[j] = tmp[i];
    }
out:
    free(tmp);
    json_doc_free(&doc);
    return rc;
}

static int add_gpus(struct llmroof_catalog *cat, const char *text, size_t len, const char *fname, bool replace,
                    const char *pick, struct llmroof_err *err)
{
    int rc = add_gpus_fast(cat, text, len, fname, replace, pick);
    return rc == NOT_HANDLED ? add_gpus_checked(cat, text, len, fname, replace, pick, err) : rc;
}

int catalog_add_gpus_text(struct llmroof_catalog *cat, const char *text, size_t len,
                          const char *fname, bool replace, struct llmroof_err *err)
{
    return add_gpus(cat, text, len, fname, replace, NULL, err);
}

/* ------------------------------------------------------------------------ */
/* Models                                                                   */
/* ------------------------------------------------------------------------ */

int catalog_check_model(const struct llmroof_model *m, const char *where, struct llmroof_err *err)
{
#define BAD(...) llmroof_err_set(err, LLMROOF_EINPUT, __VA_ARGS__)
    if (m->kv_heads > m->heads)
        return BAD("%s: '%s': num_kv_heads (%ld) must not exceed num_heads (%ld)", where, m->id, m->kv_heads, m->heads);
    if (m->heads % m->kv_heads != 0)
        return BAD("%s: '%s': num_heads (%ld) must be divisible by num_kv_heads (%ld)", where, m->id, m->heads, m->kv_heads);
    if (m->moe_experts > 0) {
        if (m->moe_top_k < 1 || m->moe_top_k > m->moe_experts)
            return BAD("%s: '%s': moe.experts_per_token (%ld) must be between 1 and moe.experts (%ld)", where,
                       m->id, m->moe_top_k, m->moe_experts);
        if (m->moe_intermediate < 1)
            return BAD("%s: '%s': moe.expert_intermediate_size must be positive", where, m->id);
        /* group-limited routing: equal groups, the chosen ones holding at least the k experts */
        if (m->moe_groups > 0 && m->moe_experts % m->moe_groups != 0)
            return BAD("%s: '%s': moe.groups (%ld) must divide moe.experts (%ld)", where, m->id, m->moe_groups,
                       m->moe_experts);
        if (m->moe_topk_groups > 0 && m->moe_groups <= 0)
            return BAD("%s: '%s': moe.groups_per_token needs moe.groups", where, m->id);
        if (m->moe_topk_groups > m->moe_groups)
            return BAD("%s: '%s': moe.groups_per_token (%ld) must not exceed moe.groups (%ld)", where, m->id,
                       m->moe_topk_groups, m->moe_groups);
        if (m->moe_topk_groups > 0 && m->moe_topk_groups * (m->moe_experts / m->moe_groups) < m->moe_top_k)
            return BAD("%s: '%s': moe.groups_per_token (%ld) groups of %ld experts cannot hold moe.experts_per_token "
                       "(%ld)", where, m->id, m->moe_topk_groups, m->moe_experts / m->moe_groups, m->moe_top_k);
    }
    return LLMROOF_OK;
#undef BAD
}

/* The layer pattern, the recurrent mixer and DeepSeek Sparse Attention (docs/catalog.md). */
static int parse_layer_kinds(struct json_ectx *c, const cJSON *e, struct llmroof_model *m, const char *const *pat_fields,
                             const char *const *lin_fields, const char *const *dsa_fields)
{
    int rc;
    const cJSON *pat = json_item(e, "layer_pattern");
    if (pat) {
        if (!cJSON_IsObject(pat))
            return json_ferr(c, "layer_pattern", "must be an object with mixers and ffns");
        c->path = "layer_pattern.";
        if ((rc = json_check_known(c, pat, "layer_pattern.", pat_fields)) ||
            (rc = json_get_string(c, pat, "mixers", true, m->mixers, sizeof m->mixers)) ||
            (rc = json_get_string(c, pat, "ffns", true, m->ffns, sizeof m->ffns)))
            return rc;
        c->path = NULL;
        if ((long)strlen(m->mixers) != m->layers || strspn(m->mixers, "AWLPN") != strlen(m->mixers))
            return json_ferr(c, "layer_pattern.mixers", "must hold num_layers (%ld) letters of A, W, L, P, N", m->layers);
        if ((long)strlen(m->ffns) != m->layers || strspn(m->ffns, "DEN") != strlen(m->ffns))
            return json_ferr(c, "layer_pattern.ffns", "must hold num_layers (%ld) letters of D, E, N", m->layers);
        if (!strpbrk(m->mixers, "AWP"))
            return json_ferr(c, "layer_pattern.mixers", "needs at least one attention layer (A, W or P)");
        const cJSON *fw = json_item(pat, "ffn_widths");
        if (fw) { /* NAS models: one dense MLP width per layer, 0 where the layer has none */
            if (!cJSON_IsArray(fw) || cJSON_GetArraySize(fw) != m->layers)
                return json_ferr(c, "layer_pattern.ffn_widths", "must list num_layers (%ld) widths", m->layers);
            long i = 0;
            for (const cJSON *t = fw->child; t; t = t->next, i++) {
                if (!cJSON_IsNumber(t) || t->valuedouble < 0 || t->valuedouble > 16777216 ||
                    t->valuedouble != (double)(long)t->valuedouble)
                    return json_ferr(c, "layer_pattern.ffn_widths", "entry %ld must be a whole number 0..16777216", i);
                m->ffn_widths[i] = (long)t->valuedouble;
                if (m->ffn_widths[i] > m->intermediate)
                    return json_ferr(c, "layer_pattern.ffn_widths", "entry %ld (%ld) exceeds intermediate_size %ld", i,
                                     m->ffn_widths[i], m->intermediate);
            }
        }
        if (strchr(m->mixers, 'W') && m->window <= 0)
            return json_ferr(c, "layer_pattern.mixers", "has windowed layers (W) but no sliding_window.size");
        if (strchr(m->ffns, 'E') && m->moe_experts <= 0)
            return json_ferr(c, "layer_pattern.ffns", "has MoE layers (E) but no moe object");
    }
    const cJSON *lin = json_item(e, "linear");
    if (lin) {
        static const char *const kinds[] = { "none", "gdn", "mamba2", "lightning", "mamba1", NULL };
        char k[16];
        if (!cJSON_IsObject(lin))
            return json_ferr(c, "linear", "must be an object");
        c->path = "linear.";
        if ((rc = json_check_known(c, lin, "linear.", lin_fields)) ||
            (rc = json_get_string(c, lin, "kind", true, k, sizeof k)))
            return rc;
        c->path = NULL;
        int ki = -1;
        for (int i = 1; kinds[i]; i++)
            if (!strcmp(k, kinds[i]))
                ki = i;
        if (ki < 0)
            return json_ferr(c, "linear.kind", "must be \"gdn\", \"mamba2\", \"lightning\" or \"mamba1\", got \"%s\"", k);
        m->linear_kind = (enum llmroof_linear)ki;
        c->path = "linear.";
        if ((rc = json_get_long(c, lin, "heads", true, 1, 65536, &m->lin_heads, NULL)) ||
            (rc = json_get_long(c, lin, "key_heads", true, 1, 65536, &m->lin_k_heads, NULL)) ||
            (rc = json_get_long(c, lin, "key_dim", true, 1, 65536, &m->lin_k_dim, NULL)) ||
            (rc = json_get_long(c, lin, "value_dim", true, 1, 65536, &m->lin_v_dim, NULL)) ||
            (rc = json_get_long(c, lin, "conv_kernel", false, 0, 1024, &m->lin_conv, NULL)))
            return rc;
        c->path = NULL;
        if (json_item(lin, "state_dtype")) {
            char sd[16];
            c->path = "linear.";
            if ((rc = json_get_string(c, lin, "state_dtype", true, sd, sizeof sd)))
                return rc;
            c->path = NULL;
            /* the dtypes a recurrent state is stored in (--state-dtype) */
            if (!dtype_parse(sd, &m->lin_state_dtype) ||
                (m->lin_state_dtype != LLMROOF_FP32 && m->lin_state_dtype != LLMROOF_FP16 &&
                 m->lin_state_dtype != LLMROOF_BF16 && m->lin_state_dtype != LLMROOF_FP8))
                return json_ferr(c, "linear.state_dtype", "must be \"fp32\", \"fp16\", \"bf16\" or \"fp8\", got \"%s\"", sd);
            m->lin_state_dtype_set = true;
        }
    }
    if (m->mixers[0] && strpbrk(m->mixers, "LP") && m->linear_kind == LLMROOF_LINEAR_NONE)
        return json_ferr(c, "layer_pattern.mixers", "has recurrent layers (L or P) but no linear object");
    const cJSON *dsa = json_item(e, "dsa");
    if (dsa) {
        if (!cJSON_IsObject(dsa))
            return json_ferr(c, "dsa", "must be an object with top_k, index_heads and index_head_dim");
        c->path = "dsa.";
        if ((rc = json_check_known(c, dsa, "dsa.", dsa_fields)) ||
            (rc = json_get_long(c, dsa, "top_k", true, 1, 1000000000, &m->dsa_top_k, NULL)) ||
            (rc = json_get_long(c, dsa, "index_heads", true, 1, 65536, &m->dsa_heads, NULL)) ||
            (rc = json_get_long(c, dsa, "index_head_dim", true, 1, 65536, &m->dsa_head_dim, NULL)))
            return rc;
        c->path = NULL;
        if (m->kv_lora_rank <= 0)
            return json_ferr(c, "dsa", "needs MLA (an mla object): DeepSeek Sparse Attention indexes the latent cache");
    }
    if ((rc = json_get_bool(c, e, "attn_gate", false, &m->attn_gate)))
        return rc;
    return LLMROOF_OK;
}

const char *catalog_ckpt_module_name(int i)
{
    static const char *const names[LLMROOF_CKPT_MODULES] = { "qkv_proj", "mla_kv_up", "o_proj",
                                                             "ffn",      "dense_ffn", "lm_head" };
    return i >= 0 && i < LLMROOF_CKPT_MODULES ? names[i] : "?";
}

/* checkpoint.excluded: the GEMM operators a quantizer left at 16 bits (hf_quant_config.json's
 * exclude_modules, named by llmroof's operators); absent: no per-operator split */
static int parse_ckpt_excluded(struct json_ectx *c, const cJSON *ex, struct llmroof_model *m)
{
    if (!ex)
        return LLMROOF_OK;
    if (!cJSON_IsArray(ex))
        return json_ferr(c, "checkpoint.excluded", "must be an array of operator names");
    for (const cJSON *a = ex->child; a; a = a->next) {
        int i = 0;
        while (i < LLMROOF_CKPT_MODULES && !(cJSON_IsString(a) && strcmp(a->valuestring, catalog_ckpt_module_name(i)) == 0))
            i++;
        if (i == LLMROOF_CKPT_MODULES)
            return json_ferr(c, "checkpoint.excluded",
                             "entries must be qkv_proj, mla_kv_up, o_proj, ffn, dense_ffn or lm_head");
        m->ckpt_excluded |= 1u << i;
    }
    m->ckpt_per_op = true;
    return LLMROOF_OK;
}

static int parse_model(struct json_ectx *c, const cJSON *e, struct llmroof_model *m)
{
    static const char *const fields[] = {
        "id", "name", "hf_id", "hidden_size", "num_layers", "num_heads", "num_kv_heads", "head_dim",
        "intermediate_size", "vocab_size", "max_context", "learned_pos", "tie_embeddings", "mlp", "norm",
        "qkv_bias", "o_bias", "mlp_bias", "parallel_attn", "moe", "params_published", "source",
        "mla", "sliding_window", "norms_per_layer", "qk_norm", "checkpoint", "params_active_published",
        "layer_pattern", "linear", "dsa", "attn_gate", "mtp_layers", "attention_sinks", NULL
    };
    static const char *const pat_fields[] = { "mixers", "ffns", "ffn_widths", NULL };
    static const char *const lin_fields[] = { "kind",      "heads",       "key_heads", "key_dim",
                                              "value_dim", "conv_kernel", "state_dtype", NULL };
    static const char *const dsa_fields[] = { "top_k", "index_heads", "index_head_dim", NULL };
    static const char *const moe_fields[] = {
        "experts", "experts_per_token", "expert_intermediate_size", "shared_experts", "first_dense_layers",
        "layer_step", "groups", "groups_per_token", NULL
    };
    static const char *const mla_fields[] = {
        "q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim", NULL
    };
    static const char *const win_fields[] = { "size", "global_every", "chunked", NULL };
    static const char *const ck_fields[] = { "format", "bits", "expert_bits", "excluded", NULL };
    int rc;
    bool present;

    memset(m, 0, sizeof *m);
    if ((rc = json_entry_head(c, e, fields, m->id, sizeof m->id)) ||
        (rc = json_get_string(c, e, "name", true, m->name, sizeof m->name)) ||
        (rc = json_get_string(c, e, "hf_id", false, m->hf_id, sizeof m->hf_id)) ||
        (rc = json_get_string(c, e, "source", true, m->source, sizeof m->source)))
        return rc;
    /* Bounds are far beyond any published model but catch unit slips and garbage. */
    if ((rc = json_get_long(c, e, "hidden_size", true, 1, 1048576, &m->hidden, NULL)) ||
        (rc = json_get_long(c, e, "num_layers", true, 1, 10000, &m->layers, NULL)) ||
        (rc = json_get_long(c, e, "num_heads", true, 1, 65536, &m->heads, NULL)) ||
        (rc = json_get_long(c, e, "num_kv_heads", true, 1, 65536, &m->kv_heads, NULL)) ||
        (rc = json_get_long(c, e, "head_dim", false, 1, 65536, &m->head_dim, &present)) ||
        (rc = json_get_long(c, e, "intermediate_size", true, 1, 16777216, &m->intermediate, NULL)) ||
        (rc = json_get_long(c, e, "vocab_size", true, 1, 100000000, &m->vocab, NULL)) ||
        (rc = json_get_long(c, e, "max_context", true, 1, 1000000000, &m->max_context, NULL)) ||
        (rc = json_get_long(c, e, "learned_pos", false, 0, 1000000000, &m->learned_pos, NULL)) ||
        (rc = json_get_long(c, e, "mtp_layers", false, 0, 64, &m->mtp_layers, NULL)))
        return rc;
    if (!present) {
        if (m->hidden % m->heads != 0)
            return json_ferr(c, "head_dim", "is missing and hidden_size (%ld) is not divisible by num_heads (%ld)",
                        m->hidden, m->heads);
        m->head_dim = m->hidden / m->heads;
    }
    if (m->kv_heads > m->heads)
        return json_ferr(c, "num_kv_heads", "must not exceed num_heads (%ld)", m->heads);
    if (m->heads % m->kv_heads != 0)
        return json_ferr(c, "num_kv_heads", "must divide num_heads (%ld heads, %ld KV heads)", m->heads, m->kv_heads);
    if ((rc = json_get_bool(c, e, "tie_embeddings", true, &m->tied_embeddings)) ||
        (rc = json_get_bool(c, e, "qkv_bias", false, &m->qkv_bias)) ||
        (rc = json_get_bool(c, e, "o_bias", false, &m->o_bias)) ||
        (rc = json_get_bool(c, e, "mlp_bias", false, &m->mlp_bias)) ||
        (rc = json_get_bool(c, e, "parallel_attn", false, &m->parallel_attn)))
        return rc;

    char s[32];
    if ((rc = json_get_string(c, e, "mlp", true, s, sizeof s)))
        return rc;
    if (strcmp(s, "gated") == 0)
        m->mlp = LLMROOF_MLP_GATED;
    else if (strcmp(s, "plain") == 0)
        m->mlp = LLMROOF_MLP_PLAIN;
    else
        return json_ferr(c, "mlp", "must be \"gated\" (3 matrices) or \"plain\" (2 matrices), got \"%s\"", s);
    if ((rc = json_get_string(c, e, "norm", true, s, sizeof s)))
        return rc;
    if (strcmp(s, "rmsnorm") == 0)
        m->norm = LLMROOF_NORM_RMS;
    else if (strcmp(s, "layernorm") == 0)
        m->norm = LLMROOF_NORM_LAYER;
    else
        return json_ferr(c, "norm", "must be \"rmsnorm\" or \"layernorm\", got \"%s\"", s);

    const cJSON *moe = json_item(e, "moe");
    if (moe) {
        if (!cJSON_IsObject(moe))
            return json_ferr(c, "moe", "must be an object");
        c->path = "moe.";
        if ((rc = json_check_known(c, moe, "moe.", moe_fields)) ||
            (rc = json_get_long(c, moe, "experts", true, 1, 65536, &m->moe_experts, NULL)) ||
            (rc = json_get_long(c, moe, "experts_per_token", true, 1, 65536, &m->moe_top_k, NULL)) ||
            (rc = json_get_long(c, moe, "expert_intermediate_size", true, 1, 16777216, &m->moe_intermediate, NULL)) ||
            (rc = json_get_long(c, moe, "shared_experts", false, 0, 65536, &m->moe_shared, NULL)))
            return rc;
        c->path = NULL;
        if (m->moe_top_k > m->moe_experts)
            return json_ferr(c, "moe.experts_per_token", "must not exceed moe.experts (%ld)", m->moe_experts);
        m->moe_layer_step = 1;
        c->path = "moe.";
        if ((rc = json_get_long(c, moe, "first_dense_layers", false, 0, 10000, &m->moe_first_dense, NULL)) ||
            (rc = json_get_long(c, moe, "layer_step", false, 1, 10000, &m->moe_layer_step, NULL)) ||
            (rc = json_get_long(c, moe, "groups", false, 1, 65536, &m->moe_groups, NULL)) ||
            (rc = json_get_long(c, moe, "groups_per_token", false, 1, 65536, &m->moe_topk_groups, NULL)))
            return rc;
        c->path = NULL;
        /* group-limited routing: equal groups, enough experts in the chosen ones for the top-k */
        if (m->moe_groups > 0 && m->moe_experts % m->moe_groups != 0)
            return json_ferr(c, "moe.groups", "must divide moe.experts (%ld), not %ld", m->moe_experts, m->moe_groups);
        if (m->moe_topk_groups > 0 && m->moe_groups <= 0)
            return json_ferr(c, "moe.groups_per_token", "needs moe.groups");
        if (m->moe_topk_groups > m->moe_groups)
            return json_ferr(c, "moe.groups_per_token", "must not exceed moe.groups (%ld), not %ld", m->moe_groups,
                             m->moe_topk_groups);
        if (m->moe_topk_groups > 0 && m->moe_topk_groups * (m->moe_experts / m->moe_groups) < m->moe_top_k)
            return json_ferr(c, "moe.groups_per_token", "must hold moe.experts_per_token (%ld): %ld groups of %ld experts hold %ld",
                             m->moe_top_k, m->moe_topk_groups, m->moe_experts / m->moe_groups,
                             m->moe_topk_groups * (m->moe_experts / m->moe_groups));
        if (m->moe_first_dense >= m->layers)
            return json_ferr(c, "moe.first_dense_layers", "must be below num_layers (%ld)", m->layers);
    }
    const cJSON *mla = json_item(e, "mla");
    if (mla) {
        if (!cJSON_IsObject(mla))
            return json_ferr(c, "mla", "must be an object");
        c->path = "mla.";
        if ((rc = json_check_known(c, mla, "mla.", mla_fields)) ||
            (rc = json_get_long(c, mla, "q_lora_rank", false, 0, 1048576, &m->q_lora_rank, NULL)) ||
            (rc = json_get_long(c, mla, "kv_lora_rank", true, 1, 1048576, &m->kv_lora_rank, NULL)) ||
            (rc = json_get_long(c, mla, "qk_nope_head_dim", true, 0, 65536, &m->qk_nope_dim, NULL)) ||
            (rc = json_get_long(c, mla, "qk_rope_head_dim", true, 1, 65536, &m->qk_rope_dim, NULL)) ||
            (rc = json_get_long(c, mla, "v_head_dim", true, 1, 65536, &m->v_head_dim, NULL)))
            return rc;
        c->path = NULL;
        if (m->head_dim != m->qk_nope_dim + m->qk_rope_dim)
            return json_ferr(c, "head_dim", "must equal mla.qk_nope_head_dim + mla.qk_rope_head_dim (%ld) for MLA",
                             m->qk_nope_dim + m->qk_rope_dim);
    }
    const cJSON *win = json_item(e, "sliding_window");
    if (win) {
        if (!cJSON_IsObject(win))
            return json_ferr(c, "sliding_window", "must be an object with size (and global_every, chunked)");
        c->path = "sliding_window.";
        if ((rc = json_check_known(c, win, "sliding_window.", win_fields)) ||
            (rc = json_get_long(c, win, "size", true, 1, 1000000000, &m->window, NULL)) ||
            (rc = json_get_long(c, win, "global_every", false, 0, 10000, &m->window_global_every, NULL)) ||
            (rc = json_get_bool(c, win, "chunked", false, &m->window_chunked)))
            return rc;
        c->path = NULL;
    }
    if ((rc = json_get_long(c, e, "norms_per_layer", false, 1, 16, &m->norms_per_layer, NULL)) ||
        (rc = json_get_bool(c, e, "qk_norm", false, &m->qk_norm)) ||
        (rc = json_get_bool(c, e, "attention_sinks", false, &m->attention_sinks)))
        return rc;
    const cJSON *ck = json_item(e, "checkpoint");
    if (ck) {
        if (!cJSON_IsObject(ck))
            return json_ferr(c, "checkpoint", "must be an object with format and bits");
        c->path = "checkpoint.";
        if ((rc = json_check_known(c, ck, "checkpoint.", ck_fields)) ||
            (rc = json_get_string(c, ck, "format", true, m->ckpt_format, sizeof m->ckpt_format)) ||
            (rc = json_get_number(c, ck, "bits", "checkpoint.bits", true, 1, false, 32, &m->ckpt_bits, NULL)) ||
            (rc = json_get_number(c, ck, "expert_bits", "checkpoint.expert_bits", false, 1, false, 32,
                                  &m->ckpt_expert_bits, NULL)))
            return rc;
        c->path = NULL;
        if ((rc = parse_ckpt_excluded(c, json_item(ck, "excluded"), m)))
            return rc;
    }
    if ((rc = parse_layer_kinds(c, e, m, pat_fields, lin_fields, dsa_fields)))
        return rc;
    bool has_act = false;
    if ((rc = json_get_number(c, e, "params_active_published", "params_active_published", false, 1e3, false, 1e14,
                              &m->params_active_published, &has_act)))
        return rc;
    if ((rc = json_get_number(c, e, "params_published", "params_published", false, 1e3, false, 1e14,
                         &m->params_published, &m->has_params_published)))
        return rc;
    return LLMROOF_OK;
}

/* Models and engines load by one rule (GPUs add aliases, above): every entry parses and
 * no id repeats within the file, nor - unless `replace` - in the catalog, before anything
 * is added; an entry whose id is already loaded replaces it. */
struct plain_kind {
    const char *key;                                          /* top-level array: "models" */
    size_t size;                                              /* bytes of one entry */
    size_t id_offset;                                         /* offsetof(entry, id) */
    int (*parse)(struct json_ectx *c, const cJSON *e, void *out);  /* fills one entry */
    /* entries with aliases (engines): offsetof their aliases[LLMROOF_ALIASES_MAX][LLMROOF_ID_MAX]
     * and their int count; ids and aliases are then one namespace, and such files take the
     * checked load (a few dozen entries) */
    bool has_aliases;
    size_t aliases_offset, n_aliases_offset;
};

/* Entry i's name a: its id (a < 0) or its a-th alias; NULL past its last alias */
static const char *entry_name(const struct plain_kind *k, const void *base, size_t i, int a)
{
    const char *e = (const char *)base + i * k->size;
    if (a < 0)
        return e + k->id_offset;
    if (!k->has_aliases)
        return NULL;
    int n;
    memcpy(&n, e + k->n_aliases_offset, sizeof n);
    return a < n ? e + k->aliases_offset + (size_t)a * LLMROOF_ID_MAX : NULL;
}

/* The entry among base[0..n) (skipping `skip`) that already answers to `name` by id or alias;
 * SIZE_MAX when none */
static size_t entry_answering(const struct plain_kind *k, const void *base, size_t n, size_t skip, const char *name)
{
    for (size_t j = 0; j < n; j++) {
        if (j == skip)
            continue;
        for (int a = -1; entry_name(k, base, j, a); a++)
            if (strcasecmp(entry_name(k, base, j, a), name) == 0)
                return j;
    }
    return SIZE_MAX;
}

static const char *entry_id(const struct plain_kind *k, const void *base, size_t i)
{
    return (const char *)base + i * k->size + k->id_offset;
}

/* Case-insensitive id sets by open addressing, so that a file of 200,000 models loads in
 * linear time (the pairwise check took 217 s). Slots hold entry index + 1; 0 is empty. */
struct id_set {
    size_t *slot;
    size_t mask;
};

static size_t id_hash(const char *s)
{
    size_t h = 1469598103934665603u; /* FNV-1a over the lowercased id */
    for (; *s; s++)
        h = (h ^ (unsigned char)tolower((unsigned char)*s)) * 1099511628211u;
    return h;
}

static bool id_set_init(struct id_set *t, size_t n)
{
    size_t cap = 16;
    while (cap < 2 * n + 2)
        cap *= 2;
    t->slot = calloc(cap, sizeof *t->slot);
    t->mask = cap - 1;
    return t->slot != NULL;
}

/* Index of the entry of `base` whose id equals id, or SIZE_MAX; with `add` (an index),
 * inserts it when absent. */
static size_t id_set_find(struct id_set *t, const struct plain_kind *k, const void *base, const char *id, size_t add)
{
    for (size_t h = id_hash(id) & t->mask;; h = (h + 1) & t->mask) {
        if (!t->slot[h]) {
            if (add != SIZE_MAX)
                t->slot[h] = add + 1;
            return SIZE_MAX;
        }
        if (strcasecmp(entry_id(k, base, t->slot[h] - 1), id) == 0)
            return t->slot[h] - 1;
    }
}

/* The fast load of a model or engine file (see add_gpus_fast): LLMROOF_OK, or NOT_HANDLED
 * with the catalog unchanged. */
static int add_plain_fast(const struct plain_kind *k, void **entries, size_t *n_entries, size_t *cap, const char *text,
                          size_t len, const char *fname, bool replace, const char *pick)
{
    if (k->has_aliases)
        return NOT_HANDLED; /* the checked load keeps ids and aliases one namespace */
    struct json_entries *it = json_entries_open(text, len, k->key);
    if (!it)
        return NOT_HANDLED;
    int rc = NOT_HANDLED;
    /* every id of the file, as entries of LLMROOF_ID_MAX bytes for id_set */
    static const struct plain_kind id_kind = { "ids", LLMROOF_ID_MAX, 0, NULL, false, 0, 0 };
    char *ids = NULL;
    size_t n = 0, cap_ids = 0;
    char *keep = NULL; /* the entries to add */
    size_t n_keep = 0, cap_keep = 0;
    char *one = malloc(k->size); /* the scratch entry when picking */
    struct id_set seen = { NULL, 0 }, have = { NULL, 0 }; /* ids of this file; of the catalog */
    struct llmroof_err quiet = { 0 }; /* a failure is reported by the checked load */
    if (!one)
        goto out;
    for (const cJSON *e; (e = json_entries_next(it)); n++) {
        struct json_ectx c = { fname, text, len, k->key, (int)n, "", &quiet, NULL };
        char *x = one;
        if (!pick) {
            if (!grow((void **)&keep, &cap_keep, n_keep + 1, k->size))
                goto out;
            x = keep + n_keep * k->size;
        }
        if (k->parse(&c, e, x) || !grow((void **)&ids, &cap_ids, n + 1, LLMROOF_ID_MAX))
            goto out;
        memcpy(ids + n * LLMROOF_ID_MAX, entry_id(k, x, 0), LLMROOF_ID_MAX);
        if (!pick) {
            n_keep++;
        } else if (strcasecmp(entry_id(k, x, 0), pick) == 0) {
            if (!grow((void **)&keep, &cap_keep, n_keep + 1, k->size))
                goto out;
            memcpy(keep + n_keep++ * k->size, x, k->size);
        }
    }
    if (!json_entries_ok(it) || !id_set_init(&seen, n) || !id_set_init(&have, *n_entries))
        goto out;
    /* add_plain_checked's checks: no id twice in the file, nor (unless replace) in the catalog */
    for (size_t j = 0; j < *n_entries; j++)
        (void)id_set_find(&have, k, *entries, entry_id(k, *entries, j), j);
    for (size_t i = 0; i < n; i++)
        if (id_set_find(&seen, &id_kind, ids, ids + i * LLMROOF_ID_MAX, i) != SIZE_MAX ||
            (!replace && id_set_find(&have, k, *entries, ids + i * LLMROOF_ID_MAX, SIZE_MAX) != SIZE_MAX))
            goto out;
    /* room for every kept entry first: once the catalog changes, nothing may fail */
    if (!grow(entries, cap, *n_entries + n_keep, k->size))
        goto out;
    if (*n_entries == 0 && n_keep > 0) {
        free(*entries); /* an empty catalog takes the array as it is */
        *entries = keep;
        *n_entries = n_keep;
        *cap = cap_keep;
        keep = NULL;
    }
    for (size_t i = 0; keep && i < n_keep; i++) {
        size_t j = id_set_find(&have, k, *entries, entry_id(k, keep, i), SIZE_MAX);
        if (j == SIZE_MAX)
            j = (*n_entries)++;
        memcpy((char *)*entries + j * k->size, keep + i * k->size, k->size);
    }
    rc = LLMROOF_OK;
out:
    free(seen.slot);
    free(have.slot);
    free(one);
    free(keep);
    free(ids);
    json_entries_close(it);
    return rc;
}

/* The checked load of a model or engine file (see add_gpus_checked). */
static int add_plain_checked(const struct plain_kind *k, void **entries, size_t *n_entries, size_t *cap,
                             const char *text, size_t len, const char *fname, bool replace, const char *pick,
                             struct llmroof_err *err)
{
    struct json_doc doc = { 0 };
    const cJSON *arr = NULL;
    int rc = json_parse_array_doc(text, len, fname, k->key, &doc, &arr, err);
    if (rc)
        return rc;
    size_t n = (size_t)cJSON_GetArraySize(arr);
    char *tmp = calloc(n ? n : 1, k->size);
    struct id_set seen = { NULL, 0 }, have = { NULL, 0 }; /* ids of this file; of the catalog */
    if (!tmp || !id_set_init(&seen, n) || !id_set_init(&have, *n_entries)) {
        rc = llmroof_err_set(err, LLMROOF_EINTERNAL, "%s: out of memory", fname);
        goto out;
    }
    for (size_t j = 0; j < *n_entries; j++)
        (void)id_set_find(&have, k, *entries, entry_id(k, *entries, j), j);
    size_t i = 0;
    for (const cJSON *e = arr->child; e; e = e->next, i++) {
        struct json_ectx c = { fname, text, len, k->key, (int)i, "", err, NULL };
        if ((rc = k->parse(&c, e, tmp + i * k->size)))
            goto out;
        if (id_set_find(&seen, k, tmp, entry_id(k, tmp, i), i) != SIZE_MAX) {
            rc = json_ferr(&c, "id", "duplicates another entry in this file");
            goto out;
        }
        if (!replace && id_set_find(&have, k, *entries, entry_id(k, tmp, i), SIZE_MAX) != SIZE_MAX) {
            rc = json_ferr(&c, "id", "duplicates an entry already in the catalog");
            goto out;
        }
        /* ids and aliases one namespace: this entry's names against the file's earlier entries,
         * its own other names, and (unless it replaces them) the catalog's */
        for (int a = -1; k->has_aliases && entry_name(k, tmp, i, a); a++) {
            const char *nm = entry_name(k, tmp, i, a);
            size_t j = entry_answering(k, tmp, i, SIZE_MAX, nm);
            const char *field = a < 0 ? "id" : "aliases";
            if (j != SIZE_MAX) {
                rc = json_ferr(&c, field, "names '%s', already the id or an alias of entry '%s' in this file", nm,
                               entry_id(k, tmp, j));
                goto out;
            }
            for (int b = a + 1; entry_name(k, tmp, i, b); b++)
                if (strcasecmp(entry_name(k, tmp, i, b), nm) == 0) {
                    rc = json_ferr(&c, "aliases", "names '%s' twice", nm);
                    goto out;
                }
            j = entry_answering(k, *entries, *n_entries, SIZE_MAX, nm);
            if (!replace && j != SIZE_MAX && (a >= 0 || strcasecmp(entry_id(k, *entries, j), nm) != 0)) {
                rc = json_ferr(&c, field, "names '%s', already the id or an alias of entry '%s' in the catalog", nm,
                               entry_id(k, *entries, j));
                goto out;
            }
        }
    }
    for (i = 0; i < n; i++) {
        bool picked = !pick;
        for (int a = -1; !picked && entry_name(k, tmp, i, a); a++)
            picked = strcasecmp(entry_name(k, tmp, i, a), pick) == 0;
        if (!picked)
            continue;
        size_t j = id_set_find(&have, k, *entries, entry_id(k, tmp, i), SIZE_MAX);
        if (j == SIZE_MAX) {
            if (!grow(entries, cap, *n_entries + 1, k->size)) {
                rc = llmroof_err_set(err, LLMROOF_EINTERNAL, "%s: out of memory", fname);
                goto out;
            }
            j = (*n_entries)++; /* ids within the file are unique: no need to add it to `have` */
        }
        memcpy((char *)*entries + j * k->size, tmp + i * k->size, k->size);
    }
out:
    free(seen.slot);
    free(have.slot);
    free(tmp);
    json_doc_free(&doc);
    return rc;
}

static int add_plain(const struct plain_kind *k, void **entries, size_t *n_entries, size_t *cap, const char *text,
                     size_t len, const char *fname, bool replace, const char *pick, struct llmroof_err *err)
{
    int rc = add_plain_fast(k, entries, n_entries, cap, text, len, fname, replace, pick);
    return rc == NOT_HANDLED ? add_plain_checked(k, entries, n_entries, cap, text, len, fname, replace, pick, err) : rc;
}

static int parse_model_entry(struct json_ectx *c, const cJSON *e, void *out)
{
    return parse_model(c, e, out);
}

static int add_models(struct llmroof_catalog *cat, const char *text, size_t len, const char *fname, bool replace,
                      const char *pick, struct llmroof_err *err)
{
    static const struct plain_kind kind = { "models", sizeof(struct llmroof_model),
                                            offsetof(struct llmroof_model, id), parse_model_entry, false, 0, 0 };
    return add_plain(&kind, (void **)&cat->models, &cat->n_models, &cat->cap_models, text, len, fname, replace, pick,
                     err);
}

int catalog_add_models_text(struct llmroof_catalog *cat, const char *text, size_t len,
                            const char *fname, bool replace, struct llmroof_err *err)
{
    return add_models(cat, text, len, fname, replace, NULL, err);
}

/* ------------------------------------------------------------------------ */
/* Engines                                                                  */
/* ------------------------------------------------------------------------ */

/* "gpu_memory_tiers": the engine's defaults by the GPU's memory (struct llmroof_mem_tier). Each
 * band is an object with from_MiB and/or below_MiB (MiB as nvidia-smi reports memory, SGLang's
 * unit: up to 16 TiB) and at least one of max_batched_tokens, graph_max_batch, graph_max_batch_tp4
 * within the bounds of the profile's own fields; the graph limits need "cuda_graphs": true, and
 * bands may not overlap (a GPU takes one band's defaults). */
static int parse_mem_tiers(struct json_ectx *c, const cJSON *e, struct llmroof_engine *g)
{
    static const char *const tier_fields[] = { "from_MiB", "below_MiB", "max_batched_tokens", "graph_max_batch",
                                               "graph_max_batch_tp4", "mem_reserve_MiB", "mem_reserve_per_gpu_MiB",
                                               NULL };
    const cJSON *va = json_item(e, "gpu_memory_tiers");
    g->n_mem_tiers = 0;
    if (!va)
        return LLMROOF_OK;
    if (!cJSON_IsArray(va) || !va->child)
        return json_ferr(c, "gpu_memory_tiers", "must be a non-empty array of objects, each a band of GPU memory "
                                                "(from_MiB and/or below_MiB) and the defaults on such GPUs");
    for (const cJSON *t = va->child; t; t = t->next) {
        const int i = g->n_mem_tiers;
        if (i == LLMROOF_MEM_TIERS_MAX)
            return json_ferr(c, "gpu_memory_tiers", "has more than %d bands", LLMROOF_MEM_TIERS_MAX);
        char band[32], path[40]; /* "gpu_memory_tiers[1]", and the prefix of its members' names */
        snprintf(band, sizeof band, "gpu_memory_tiers[%d]", i);
        snprintf(path, sizeof path, "%s.", band);
        if (!cJSON_IsObject(t))
            return json_ferr(c, band, "must be an object: a band of GPU memory (from_MiB and/or below_MiB) and the "
                                      "defaults on such GPUs");
        struct llmroof_mem_tier *m = &g->mem_tiers[i];
        bool has_from = false, has_below = false, has_mbt = false, has_gmb = false, has_gmb4 = false, has_res = false,
             has_res_gpu = false;
        c->path = path; /* messages name the members "gpu_memory_tiers[1].below_MiB"; reset below */
        int rc = json_check_known(c, t, path, tier_fields);
        if (!rc)
            rc = json_get_number(c, t, "from_MiB", "from_MiB", false, 0, true, 16777216, &m->from_MiB, &has_from);
        if (!rc)
            rc = json_get_number(c, t, "below_MiB", "below_MiB", false, 0, true, 16777216, &m->below_MiB, &has_below);
        if (!rc)
            rc = json_get_long(c, t, "max_batched_tokens", false, 16, 10000000, &m->max_batched_tokens, &has_mbt);
        if (!rc)
            rc = json_get_long(c, t, "graph_max_batch", false, 1, 65536, &m->graph_max_batch, &has_gmb);
        if (!rc)
            rc = json_get_long(c, t, "graph_max_batch_tp4", false, 1, 65536, &m->graph_max_batch_tp4, &has_gmb4);
        if (!rc)
            rc = json_get_number(c, t, "mem_reserve_MiB", "mem_reserve_MiB", false, 0, true, 16777216, &m->mem_reserve_MiB,
                                 &has_res);
        if (!rc)
            rc = json_get_number(c, t, "mem_reserve_per_gpu_MiB", "mem_reserve_per_gpu_MiB", false, 0, false, 65536,
                                 &m->mem_reserve_per_gpu_MiB, &has_res_gpu);
        c->path = NULL; /* path is this loop's: no message may read it later */
        if (rc)
            return rc;
        if (!has_from && !has_below)
            return json_ferr(c, band, "needs from_MiB or below_MiB (the band of GPU memory, in MiB)");
        if (has_from && has_below && !(m->from_MiB < m->below_MiB))
            return json_ferr(c, band, "has below_MiB %g not above from_MiB %g: the band is empty", m->below_MiB,
                             m->from_MiB);
        if (!has_mbt && !has_gmb && !has_gmb4 && !has_res)
            return json_ferr(c, band, "needs max_batched_tokens, graph_max_batch, graph_max_batch_tp4 or "
                                      "mem_reserve_MiB (what the band changes)");
        if (has_res_gpu && !has_res)
            return json_ferr(c, band, "states mem_reserve_per_gpu_MiB without mem_reserve_MiB (the reserve it adds to)");
        if (has_res && has_below && !(m->mem_reserve_MiB < m->below_MiB))
            return json_ferr(c, band, "has mem_reserve_MiB %g not below below_MiB %g: no memory would be left",
                             m->mem_reserve_MiB, m->below_MiB);
        if ((has_gmb || has_gmb4) && (!g->cuda_graphs || g->graph_piecewise))
            return json_ferr(c, band, "states graph_max_batch%s, which needs \"cuda_graphs\": true without "
                                      "\"graph_piecewise\" (a decode batch's sequences)", has_gmb ? "" : "_tp4");
        /* [lo, hi), an open side 0 .. infinity: two bands overlap when each starts below the other's end */
        const double lo = m->from_MiB, hi = has_below ? m->below_MiB : INFINITY;
        for (int k = 0; k < i; k++) {
            const struct llmroof_mem_tier *o = &g->mem_tiers[k];
            const double olo = o->from_MiB, ohi = o->below_MiB > 0 ? o->below_MiB : INFINITY;
            if (lo < ohi && olo < hi)
                return json_ferr(c, band, "overlaps gpu_memory_tiers[%d]: a GPU's memory must fall in one band", k);
        }
        g->n_mem_tiers++;
    }
    return LLMROOF_OK;
}

const struct llmroof_mem_tier *catalog_engine_tier(const struct llmroof_engine *en, double memory_bytes)
{
    if (!en)
        return NULL;
    const double mib = memory_bytes / 1048576.0;
    for (int i = 0; i < en->n_mem_tiers; i++) {
        const struct llmroof_mem_tier *m = &en->mem_tiers[i];
        if (mib >= m->from_MiB && (!(m->below_MiB > 0) || mib < m->below_MiB))
            return m;
    }
    return NULL;
}

bool catalog_engine_mem_util_varies(const struct llmroof_engine *en)
{
    if (!en)
        return false;
    if (en->n_util_by_tp > 0)
        return true;
    for (int i = 0; i < en->n_mem_tiers; i++)
        if (en->mem_tiers[i].mem_reserve_MiB > 0)
            return true;
    return false;
}

bool catalog_gpu_is_amd(const struct llmroof_gpu *g)
{
    return strncmp(g->arch, "gfx", 3) == 0;
}

bool catalog_engine_runs_on(const struct llmroof_engine *en, const struct llmroof_gpu *g)
{
    return !(en && g && en->cuda_only && catalog_gpu_is_amd(g));
}

double catalog_engine_mem_util(const struct llmroof_engine *en, const struct llmroof_gpu *g, int gpus, bool spec,
                               bool dp_attention)
{
    if (!en)
        return 0;
    const struct llmroof_mem_tier *t = g ? catalog_engine_tier(en, g->memory_bytes) : NULL;
    if (t && t->mem_reserve_MiB > 0) {
        /* SGLang 0.4.7-0.5.2 (server_args.py, PR #7054): reserved_mem by the memory nvidia-smi
         * reports, for activations and CUDA-graph buffers; mem_fraction_static = round((gpu_mem -
         * reserved_mem) / gpu_mem, 3). H100 (81,920 MiB here) at TP 1: (9.5 + 1/2) GiB = 10,240 MiB,
         * 0.875 */
        const double mib = g->memory_bytes / 1048576.0;
        const double r = t->mem_reserve_MiB + t->mem_reserve_per_gpu_MiB * (double)(gpus > 0 ? gpus : 1) +
                         (spec ? en->mem_reserve_spec_MiB : 0.0) + (dp_attention ? en->mem_reserve_dp_attention_MiB : 0.0);
        const double f = round((mib - r) / mib * 1000.0) / 1000.0;
        return f >= 0.001 ? f : 0.001; /* a reserve past the memory leaves nothing: memory says it does not fit */
    }
    double u = en->mem_util;
    int best = 0;
    for (int i = 0; i < en->n_util_by_tp; i++)
        if (en->util_by_tp[i].from_tp <= gpus && en->util_by_tp[i].from_tp > best) {
            best = en->util_by_tp[i].from_tp;
            u = en->util_by_tp[i].mem_util;
        }
    return u;
}

/* "mem_util_by_tp": [{"from_tp": N, "mem_util": F}, ...], the default fraction for instances of
 * at least N GPUs (SGLang <= 0.4.6: 0.87 from TP 2, 0.85 from 4, 0.81 from 8, 0.79 from 16). */
static int parse_util_by_tp(struct json_ectx *c, const cJSON *e, struct llmroof_engine *g)
{
    static const char *const fields[] = { "from_tp", "mem_util", NULL };
    const cJSON *va = json_item(e, "mem_util_by_tp");
    g->n_util_by_tp = 0;
    if (!va)
        return LLMROOF_OK;
    if (!cJSON_IsArray(va) || !va->child)
        return json_ferr(c, "mem_util_by_tp", "must be a non-empty array of objects {\"from_tp\": N, \"mem_util\": F}");
    for (const cJSON *t = va->child; t; t = t->next) {
        const int i = g->n_util_by_tp;
        if (i == LLMROOF_MEM_TIERS_MAX)
            return json_ferr(c, "mem_util_by_tp", "has more than %d entries", LLMROOF_MEM_TIERS_MAX);
        char item[32], path[40];
        snprintf(item, sizeof item, "mem_util_by_tp[%d]", i);
        snprintf(path, sizeof path, "%s.", item);
        if (!cJSON_IsObject(t))
            return json_ferr(c, item, "must be an object {\"from_tp\": N, \"mem_util\": F}");
        long from = 0;
        bool has_from = false, has_util = false;
        c->path = path;
        int rc = json_check_known(c, t, path, fields);
        if (!rc)
            rc = json_get_long(c, t, "from_tp", false, 1, 65536, &from, &has_from);
        if (!rc)
            rc = json_get_number(c, t, "mem_util", "mem_util", false, 0.05, false, 1, &g->util_by_tp[i].mem_util,
                                 &has_util);
        c->path = NULL;
        if (rc)
            return rc;
        if (!has_from || !has_util)
            return json_ferr(c, item, "needs both from_tp (GPUs of the instance) and mem_util (the fraction)");
        for (int k = 0; k < i; k++)
            if (g->util_by_tp[k].from_tp == (int)from)
                return json_ferr(c, item, "repeats from_tp %ld of mem_util_by_tp[%d]", from, k);
        g->util_by_tp[i].from_tp = (int)from;
        g->n_util_by_tp++;
    }
    return LLMROOF_OK;
}

static int parse_engine(struct json_ectx *c, const cJSON *e, struct llmroof_engine *g)
{
    static const char *const fields[] = { "id", "name", "aliases", "step_overhead_s", "first_token_s", "compute_scale",
                                          "waiting_served_ratio", "max_waiting_steps", "max_paddings",
                                          "collective_latency_s", "cuda_graphs", "launch_s", "kernel_factor",
                                          "kv_per_query_head", "quantized_head", "fp8_kv_per_query_head", "cuda_core_decode", "fp8_attention",
                                          "fp16_accumulate", "attention_kernel", "act_quant",
                                          "dequant_min_tokens", "prompt_ubatch_tokens", "logits_all_tokens", "kv_copy", "mmq_share", "custom_allreduce", "first_token_decode",
                                          "cpu_seq_s", "worker_seq_s", "cpu_overlap", "admission", "max_seqs", "max_batched_tokens",
                                          "kv_block_tokens", "mem_util", "reserve_bytes", "kv_of_free_memory",
                                          "mem_static", "mem_reserve_spec_MiB", "mem_reserve_dp_attention_MiB",
                                          "mem_util_by_tp",
                                          "cpu_output_s", "cpu_output_overlap", "api_stream_s", "api_overlap", "kv_watermark",
                                          "large_gpu_max_seqs", "large_gpu_max_batched_tokens", "offline_max_batched_tokens",
                                          "offline_large_gpu_max_batched_tokens", "budget_min_context",
                                          "chunked_prefill_min_context", "chunked_max_batched_tokens",
                                          "chunked_prefill", "prefill_first", "static_batching", "spec_no_overlap", "pd_decode_first_token", "pd_decode_resample", "pd_decode_prealloc", "pd_kv_full_window", "max_concurrent_requests", "pd_decode_reserve_tokens", "disaggregation", "tp_step_overhead_s",
                                          "prefix_cache", "gpu_memory_tiers",
                                          "graph_max_batch", "graph_piecewise", "dp_rank_scheduler", "prompt_within_budget", "dp_attention", "moe_tp_shared_local", "cuda_only", "kv_heads_per_read", "ray_workers", "ray_output_token_s",
                                          "varlen_fa2_archs", "fa2_archs", "moe_triton_archs", "source", NULL };
    static const char *const admissions[] = { "optimistic", "no-evict", "reserve", "wait", NULL };
    int rc;
    memset(g, 0, sizeof *g);
    g->disaggregation = true; /* an engine serves P/D pools unless its profile says it does not */
    g->dp_attention = true;   /* and runs data-parallel attention likewise */
    if ((rc = json_entry_head(c, e, fields, g->id, sizeof g->id)) || (rc = json_get_string(c, e, "name", true, g->name, sizeof g->name)) ||
        (rc = parse_aliases(c, e, g->aliases, &g->n_aliases)) ||
        (rc = json_get_string(c, e, "source", true, g->source, sizeof g->source)) ||
        /* physical bounds, docs/model.md "Engine profiles": CPU per step up to 20 ms (vLLM 0.5 spent
         * most of a step on the CPU), first-token overhead up to 200 ms, kernel libraries within 30% of
         * cuBLAS, up to 50 us more per collective than NCCL's own latency, a kernel launch up to 50 us of
         * CPU (Python eager dispatch), up to 4x the fused kernel count (unfused eager PyTorch) */
        (rc = json_get_number(c, e, "step_overhead_s", "step_overhead_s", true, 0, false, 0.02, &g->step_overhead_s, NULL)) ||
        (rc = json_get_number(c, e, "first_token_s", "first_token_s", true, 0, false, 0.2, &g->first_token_s, NULL)) ||
        (rc = json_get_number(c, e, "tp_step_overhead_s", "tp_step_overhead_s", false, 0, false, 0.02,
                              &g->tp_step_overhead_s, NULL)) ||
        (rc = json_get_number(c, e, "ray_output_token_s", "ray_output_token_s", false, 0, false, 1e-6,
                              &g->ray_output_token_s, NULL)) ||
        (rc = json_get_number(c, e, "compute_scale", "compute_scale", true, 0.7, false, 1, &g->compute_scale, NULL)) ||
        (rc = json_get_number(c, e, "collective_latency_s", "collective_latency_s", false, 0, false, 50e-6,
                         &g->collective_latency_s, NULL)) ||
        (rc = json_get_number(c, e, "launch_s", "launch_s", false, 0, false, 50e-6, &g->launch_s, NULL)) ||
        (rc = json_get_number(c, e, "kernel_factor", "kernel_factor", false, 1, false, 4, &g->kernel_factor, NULL)) ||
        (rc = json_get_bool(c, e, "cuda_graphs", false, &g->cuda_graphs)) ||
        (rc = json_get_bool(c, e, "kv_per_query_head", false, &g->kv_per_query_head)) ||
        (rc = json_get_bool(c, e, "quantized_head", false, &g->quantized_head)) ||
        (rc = json_get_bool(c, e, "fp8_kv_per_query_head", false, &g->fp8_kv_per_query_head)) ||
        (rc = json_get_bool(c, e, "cuda_core_decode", false, &g->cuda_core_decode)) ||
        (rc = json_get_bool(c, e, "ray_workers", false, &g->ray_workers)) ||
        /* query heads a decode-attention CTA serves from one K/V read (TurboMind v0.1: 4) */
        (rc = json_get_long(c, e, "kv_heads_per_read", false, 1, 64, &g->kv_heads_per_read, NULL)) ||
        (rc = json_get_bool(c, e, "fp8_attention", false, &g->fp8_attention)) ||
        (rc = json_get_bool(c, e, "fp16_accumulate", false, &g->fp16_accumulate)) ||
        (rc = json_get_bool(c, e, "custom_allreduce", false, &g->custom_allreduce)) ||
        (rc = json_get_bool(c, e, "first_token_decode", false, &g->first_token_decode)) ||
        /* weight-only formats: from this many tokens per step the engine dequantizes the weights
         * to 16 bits and calls a dense GEMM (llama.cpp: above 32 rows; exllamav2: above 32) */
        (rc = json_get_number(c, e, "dequant_min_tokens", "dequant_min_tokens", false, 1, false, 1e6,
                              &g->dequant_min_tokens, NULL)) ||
        /* llama.cpp's MMQ kernels: int8 tensor cores for quantized weights (PR #7676, default from #8075) */
        (rc = json_get_number(c, e, "mmq_share", "mmq_share", false, 0, true, 1, &g->mmq_share, NULL)) ||
        /* the serving scheduler (docs/catalog.md "Engines"): CPU per running sequence up to 1 ms
         * (vLLM 0.5's Python API server, scheduler and output processing about 120 microseconds per
         * sequence), its overlap with the GPU a share, the engines' own limits on sequences and
         * tokens per iteration within what their flags accept */
        (rc = json_get_number(c, e, "cpu_seq_s", "cpu_seq_s", false, 0, false, 1e-3, &g->cpu_seq_s, NULL)) ||
        /* the same bound per Ray worker (vLLM PR #2221: about 46 microseconds on an A100's host) */
        (rc = json_get_number(c, e, "worker_seq_s", "worker_seq_s", false, 0, false, 1e-3, &g->worker_seq_s, NULL)) ||
        (rc = json_get_number(c, e, "cpu_overlap", "cpu_overlap", false, 0, false, 1, &g->cpu_overlap, NULL)) ||
        /* the per-sequence output work, engine side and API server side, with the same bounds
         * (docs/model.md "Engine CPU work"; vLLM v0.6.0 post: 17 + 71 microseconds in 0.5.3) */
        (rc = json_get_number(c, e, "cpu_output_s", "cpu_output_s", false, 0, false, 1e-3, &g->cpu_output_s, NULL)) ||
        (rc = json_get_number(c, e, "cpu_output_overlap", "cpu_output_overlap", false, 0, false, 1,
                              &g->cpu_output_overlap, NULL)) ||
        (rc = json_get_number(c, e, "api_stream_s", "api_stream_s", false, 0, false, 1e-3, &g->api_stream_s, NULL)) ||
        (rc = json_get_number(c, e, "api_overlap", "api_overlap", false, 0, false, 1, &g->api_overlap, NULL)) ||
        /* the share of the KV blocks a new admission must leave free (vLLM V0's block manager
         * watermark, 0.01), 0 to 0.2 */
        (rc = json_get_number(c, e, "kv_watermark", "kv_watermark", false, 0, false, 0.2, &g->kv_watermark, NULL)) ||
        (rc = json_get_long(c, e, "max_seqs", false, 1, 65536, &g->max_seqs, NULL)) ||
        /* the engine's KV pool: its block size and the share of device memory it takes */
        (rc = json_get_long(c, e, "kv_block_tokens", false, 1, 65536, &g->kv_block_tokens, NULL)) ||
        (rc = json_get_number(c, e, "mem_util", "mem_util", false, 0.5, false, 1, &g->mem_util, NULL)) ||
        (rc = json_get_number(c, e, "reserve_bytes", "reserve_bytes", false, 0, false, 1e12, &g->reserve_bytes,
                              &g->has_reserve)) ||
        (rc = json_get_bool(c, e, "kv_of_free_memory", false, &g->kv_of_free_memory)) ||
        /* SGLang's mem_fraction_static: the fraction holds weights and the KV pool only */
        (rc = json_get_bool(c, e, "mem_static", false, &g->mem_static)) ||
        (rc = json_get_number(c, e, "mem_reserve_spec_MiB", "mem_reserve_spec_MiB", false, 0, false, 1048576,
                              &g->mem_reserve_spec_MiB, NULL)) ||
        (rc = json_get_number(c, e, "mem_reserve_dp_attention_MiB", "mem_reserve_dp_attention_MiB", false, 0, false,
                              1048576, &g->mem_reserve_dp_attention_MiB, NULL)) ||
        (rc = parse_util_by_tp(c, e, g)) ||
        (rc = json_get_long(c, e, "max_batched_tokens", false, 16, 10000000, &g->max_batched_tokens, NULL)) ||
        (rc = json_get_long(c, e, "large_gpu_max_seqs", false, 1, 65536, &g->large_gpu_max_seqs, NULL)) ||
        (rc = json_get_long(c, e, "large_gpu_max_batched_tokens", false, 16, 10000000, &g->large_gpu_max_batched_tokens,
                            NULL)) ||
        /* vLLM's EngineArgs.get_batch_defaults: the LLM class (no server) takes larger budgets */
        (rc = json_get_long(c, e, "offline_max_batched_tokens", false, 16, 10000000, &g->offline_max_batched_tokens,
                            NULL)) ||
        (rc = json_get_long(c, e, "offline_large_gpu_max_batched_tokens", false, 16, 10000000,
                            &g->offline_large_gpu_max_batched_tokens, NULL)))
        return rc;
    /* vLLM 0.5.4-0.6 (V0 EngineArgs.create_engine_config, PR #6666): chunked prefill on by default
     * only above 32K of max_model_len, then SchedulerConfig's chunked budget (512; 2048 from PR
     * #10544, v0.6.5); bounds: a context of at least 1K, a budget as max_batched_tokens' */
    if ((rc = json_get_long(c, e, "chunked_prefill_min_context", false, 1024, 10000000, &g->chunked_prefill_min_context,
                            NULL)) ||
        (rc = json_get_long(c, e, "chunked_max_batched_tokens", false, 16, 10000000, &g->chunked_max_batched_tokens, NULL)))
        return rc;
    /* llama.cpp's n_ubatch: a whole number of tokens per forward pass (estimate.c prefill_in_passes) */
    long ubatch = 0;
    if ((rc = json_get_long(c, e, "prompt_ubatch_tokens", false, 1, 1000000, &ubatch, NULL)))
        return rc;
    g->prompt_ubatch_tokens = (double)ubatch;
    if ((rc = json_get_bool(c, e, "logits_all_tokens", false, &g->logits_all_tokens)) ||
        (rc = json_get_bool(c, e, "kv_copy", false, &g->kv_copy)))
        return rc;
    int adm = 0;
    if ((rc = json_get_choice(c, e, "admission", "admission", admissions, 0, &adm)))
        return rc;
    g->admit_no_evict = adm == 1;
    g->admit_reserve = adm == 2;
    g->admit_wait = adm == 3;
    /* the iteration's shape (docs/catalog.md "Engines"): chunked prefill unless the profile says
     * not (absent: true, the simulator's default), prefill-first scheduling only when it says so */
    bool chunked = true;
    if ((rc = json_get_bool(c, e, "chunked_prefill", false, &chunked)) ||
        (rc = json_get_bool(c, e, "prefill_first", false, &g->prefill_first)) ||
        (rc = json_get_bool(c, e, "static_batching", false, &g->static_batching)) ||
        (rc = json_get_bool(c, e, "dp_rank_scheduler", false, &g->dp_rank_scheduler)) ||
        (rc = json_get_bool(c, e, "prompt_within_budget", false, &g->prompt_within_budget)) ||
        (rc = json_get_bool(c, e, "cuda_only", false, &g->cuda_only)) ||
        (rc = json_get_bool(c, e, "dp_attention", false, &g->dp_attention)) ||
        (rc = json_get_bool(c, e, "moe_tp_shared_local", false, &g->moe_tp_shared_local)) ||
        (rc = json_get_bool(c, e, "spec_no_overlap", false, &g->spec_no_overlap)) ||
        (rc = json_get_bool(c, e, "pd_decode_first_token", false, &g->pd_decode_first_token)) ||
        (rc = json_get_bool(c, e, "pd_decode_resample", false, &g->pd_decode_resample)) ||
        /* SGLang's decode server pre-allocates before the prefill runs (disaggregation/decode.py) */
        (rc = json_get_bool(c, e, "pd_decode_prealloc", false, &g->pd_decode_prealloc)) ||
        (rc = json_get_bool(c, e, "pd_kv_full_window", false, &g->pd_kv_full_window)) ||
        (rc = json_get_long(c, e, "max_concurrent_requests", false, 1, 10000000, &g->max_concurrent_requests, NULL)) ||
        (rc = json_get_long(c, e, "pd_decode_reserve_tokens", false, 1, 1000000, &g->pd_decode_reserve_tokens, NULL)) ||
        (rc = json_get_bool(c, e, "disaggregation", false, &g->disaggregation)) ||
        (rc = json_get_bool(c, e, "budget_min_context", false, &g->budget_min_context)) ||
        /* automatic prefix caching on by default (vLLM V1, SGLang's radix cache) */
        (rc = json_get_bool(c, e, "prefix_cache", false, &g->prefix_cache)))
        return rc;
    if (g->pd_decode_reserve_tokens > 0 && !g->pd_decode_prealloc)
        return json_ferr(c, "pd_decode_reserve_tokens", "needs \"pd_decode_prealloc\": true (the decode server keeps it "
                                                        "free as it pre-allocates)");
    if (g->mem_static && g->kv_of_free_memory)
        return json_ferr(c, "mem_static", "conflicts with kv_of_free_memory: the fraction is either of the device "
                                          "(weights and KV pool) or of what is free once loaded, not both");
    if ((rc = parse_mem_tiers(c, e, g)))
        return rc;
    if ((g->n_util_by_tp > 0 || catalog_engine_mem_util_varies(g)) && !g->mem_static)
        return json_ferr(c, g->n_util_by_tp > 0 ? "mem_util_by_tp" : "gpu_memory_tiers",
                         "%s a default fraction that follows the GPU or the instance, which only \"mem_static\": "
                         "true (SGLang's mem_fraction_static) takes",
                         g->n_util_by_tp > 0 ? "states" : "states mem_reserve_MiB:");
    g->whole_prefill = !chunked;
    /* TGI's router batching rule (router/src/infer/v3/scheduler.rs, batching_task; docs/metrics.md
     * "Engine scheduling"): a ratio of running sequences up to 100, a wait up to a million steps */
    if ((rc = json_get_number(c, e, "waiting_served_ratio", "waiting_served_ratio", false, 0, false, 100,
                              &g->waiting_served_ratio, NULL)) ||
        (rc = json_get_long(c, e, "max_waiting_steps", false, 0, 1000000, &g->max_waiting_steps, NULL)))
        return rc;
    /* vLLM 0.2-0.3's padded prompt batches (SchedulerConfig.max_paddings, default 256;
     * docs/model.md "vLLM by version"): up to a million tokens of padding */
    if ((rc = json_get_long(c, e, "max_paddings", false, 0, 1000000, &g->max_paddings, NULL)))
        return rc;
    /* which steps replay a CUDA graph (docs/model.md "CUDA-graph coverage"): the largest one
     * captured, up to the 65536 sequences the engines' flags accept (vLLM V0 256, SGLang 160,
     * vLLM V1 512 tokens); only an engine with graphs has one */
    if ((rc = json_get_long(c, e, "graph_max_batch", false, 1, 65536, &g->graph_max_batch, NULL)) ||
        (rc = json_get_bool(c, e, "graph_piecewise", false, &g->graph_piecewise)))
        return rc;
    /* the GPU architectures where the engine's attention is FlashAttention-2's, as one varlen call
     * over the step (vLLM V1's FLASH_ATTN backend without FA3) or as its kernels (vLLM V0's):
     * docs/model.md "Decodes in a FlashAttention-2 call" */
    if ((rc = parse_arch_list(c, e, "varlen_fa2_archs", g->varlen_fa2_archs, &g->n_varlen_fa2_archs)) ||
        (rc = parse_arch_list(c, e, "fa2_archs", g->fa2_archs, &g->n_fa2_archs)) ||
        (rc = parse_arch_list(c, e, "moe_triton_archs", g->moe_triton_archs, &g->n_moe_triton_archs)))
        return rc;
    if (g->kv_per_query_head && g->kv_heads_per_read > 0)
        return json_ferr(c, "kv_heads_per_read", "cannot be given with \"kv_per_query_head\": true (which is 1 query "
                                                 "head per K/V read)");
    if (!g->cuda_graphs && (g->graph_max_batch > 0 || g->graph_piecewise))
        return json_ferr(c, g->graph_max_batch > 0 ? "graph_max_batch" : "graph_piecewise",
                         "needs \"cuda_graphs\": true (it says which steps a CUDA graph replays)");
    if (g->graph_piecewise && g->graph_max_batch == 0)
        return json_ferr(c, "graph_piecewise", "needs \"graph_max_batch\" (the largest step, in tokens, that the "
                                               "piecewise graphs were captured for)");
    /* absent: FlashAttention-2-class */
    int fam = LLMROOF_ATTN_FLASH2;
    if ((rc = json_get_choice(c, e, "attention_kernel", "attention_kernel", attn_kernel_names, LLMROOF_ATTN_FLASH2,
                              &fam)))
        return rc;
    g->attention = (enum llmroof_attn_kernel)fam;
    /* absent: a quantization kernel of its own before each 8-bit GEMM */
    int aq = LLMROOF_ACT_QUANT_SEPARATE;
    if ((rc = json_get_choice(c, e, "act_quant", "act_quant", act_quant_names, LLMROOF_ACT_QUANT_SEPARATE, &aq)))
        return rc;
    g->act_quant = (enum llmroof_act_quant)aq;
    return LLMROOF_OK;
}

static int parse_engine_entry(struct json_ectx *c, const cJSON *e, void *out)
{
    return parse_engine(c, e, out);
}

static int add_engines(struct llmroof_catalog *cat, const char *text, size_t len, const char *fname, bool replace,
                       const char *pick, struct llmroof_err *err)
{
    static const struct plain_kind kind = { "engines", sizeof(struct llmroof_engine),
                                            offsetof(struct llmroof_engine, id), parse_engine_entry, true,
                                            offsetof(struct llmroof_engine, aliases),
                                            offsetof(struct llmroof_engine, n_aliases) };
    return add_plain(&kind, (void **)&cat->engines, &cat->n_engines, &cat->cap_engines, text, len, fname, replace,
                     pick, err);
}

int catalog_add_engines_text(struct llmroof_catalog *cat, const char *text, size_t len, const char *fname,
                             bool replace, struct llmroof_err *err)
{
    return add_engines(cat, text, len, fname, replace, NULL, err);
}

static const struct llmroof_engine *engine_named(const struct llmroof_catalog *cat, const char *name)
{
    for (size_t i = 0; i < cat->n_engines; i++)
        if (strcasecmp(cat->engines[i].id, name) == 0)
            return &cat->engines[i];
    for (size_t i = 0; i < cat->n_engines; i++)
        for (int a = 0; a < cat->engines[i].n_aliases; a++)
            if (strcasecmp(cat->engines[i].aliases[a], name) == 0)
                return &cat->engines[i];
    return NULL;
}

/* The profile of `name` less one trailing patch version ("vllm-0.9.1" -> "vllm-0.9": the name
 * ends "DIGITS.DIGITS.DIGITS"); NULL when it does not end so or no profile answers. */
static const struct llmroof_engine *engine_of_minor(const struct llmroof_catalog *cat, const char *name)
{
    size_t n = strlen(name), k = n;
    while (k > 0 && isdigit((unsigned char)name[k - 1]))
        k--;
    if (k == n || k < 2 || name[k - 1] != '.' || k - 1 >= LLMROOF_ID_MAX)
        return NULL;
    size_t m = k - 1; /* the minor's digits end here */
    while (m > 0 && isdigit((unsigned char)name[m - 1]))
        m--;
    if (m == k - 1 || m < 2 || name[m - 1] != '.' || !isdigit((unsigned char)name[m - 2]))
        return NULL;
    char minor[LLMROOF_ID_MAX];
    memcpy(minor, name, k - 1);
    minor[k - 1] = '\0';
    return engine_named(cat, minor);
}

/* An engine by id, else by one of its aliases (the versions a profile covers: "vllm-0.10"), else
 * by a version as releases spell it: "vllm-v0.9.1" and "sglang-0.4.10.post1" drop their "v" and
 * ".postN", and a patch release takes its minor version's profile ("vllm-0.9.1" is "vllm-0.9") */
const struct llmroof_engine *catalog_find_engine(const struct llmroof_catalog *cat, const char *name)
{
    const struct llmroof_engine *e = engine_named(cat, name);
    size_t n = strlen(name);
    if (e || n >= LLMROOF_ID_MAX)
        return e;
    char v[LLMROOF_ID_MAX];
    memcpy(v, name, n + 1);
    /* ".postN": a build of the same release */
    char *post = strstr(v, ".post");
    if (post && post[5] && strspn(post + 5, "0123456789") == strlen(post + 5))
        *post = '\0';
    /* "-v0.9": the tag's spelling of the version */
    char *dash = strstr(v, "-v");
    if (dash && isdigit((unsigned char)dash[2]))
        memmove(dash + 1, dash + 2, strlen(dash + 2) + 1);
    if (strcmp(v, name) != 0 && (e = engine_named(cat, v)))
        return e;
    return engine_of_minor(cat, v);
}

/* Catalog files are small; 64 MiB bounds memory on a hostile input. */
#define CATALOG_MAX_BYTES ((size_t)64 * 1024 * 1024)

typedef int (*add_text_fn)(struct llmroof_catalog *cat, const char *text, size_t len, const char *fname,
                           bool replace, const char *pick, struct llmroof_err *err);

/* Reads `path` (bounded) and hands its text to add_gpus, add_models or add_engines. */
static int add_file(struct llmroof_catalog *cat, const char *path, bool replace, const char *pick, add_text_fn add,
                    struct llmroof_err *err)
{
    char *text;
    size_t len;
    int rc = catalog_read_file(path, CATALOG_MAX_BYTES, &text, &len, err);
    if (rc)
        return rc;
    rc = add(cat, text, len, path, replace, pick, err);
    free(text);
    return rc;
}

int catalog_add_gpus_file(struct llmroof_catalog *cat, const char *path, bool replace, struct llmroof_err *err)
{
    return add_file(cat, path, replace, NULL, add_gpus, err);
}

int catalog_add_engines_file(struct llmroof_catalog *cat, const char *path, bool replace, struct llmroof_err *err)
{
    return add_file(cat, path, replace, NULL, add_engines, err);
}

int catalog_add_models_file(struct llmroof_catalog *cat, const char *path, bool replace, struct llmroof_err *err)
{
    return add_file(cat, path, replace, NULL, add_models, err);
}

int catalog_add_gpus_file_pick(struct llmroof_catalog *cat, const char *path, bool replace, const char *pick,
                               struct llmroof_err *err)
{
    return add_file(cat, path, replace, pick, add_gpus, err);
}

int catalog_add_models_file_pick(struct llmroof_catalog *cat, const char *path, bool replace, const char *pick,
                                 struct llmroof_err *err)
{
    return add_file(cat, path, replace, pick, add_models, err);
}

int catalog_add_engines_file_pick(struct llmroof_catalog *cat, const char *path, bool replace, const char *pick,
                                  struct llmroof_err *err)
{
    return add_file(cat, path, replace, pick, add_engines, err);
}

/* ------------------------------------------------------------------------ */
/* Lookup and suggestions                                                   */
/* ------------------------------------------------------------------------ */

const struct llmroof_gpu *catalog_find_gpu(const struct llmroof_catalog *cat, const char *name)
{
    for (size_t i = 0; i < cat->n_gpus; i++)
        if (gpu_named(&cat->gpus[i], name))
            return &cat->gpus[i];
    return NULL;
}

const struct llmroof_model *catalog_find_model(const struct llmroof_catalog *cat, const char *name)
{
    for (size_t i = 0; i < cat->n_models; i++)
        if (strcasecmp(cat->models[i].id, name) == 0)
            return &cat->models[i];
    return NULL;
}

/* Suggestions compare names the way a person reads them: "Llama_3.1_8B", "llama3.1-8b" and
 * "llama-3.1-8b" are one name. A name is folded to its letters and digits, lowercased (bytes
 * of UTF-8 sequences kept); a folded name longer than SUGGEST_FOLD_MAX bytes is suggested
 * nothing (no catalog name is that long, and a 300-byte paste is not a typo). */
#define SUGGEST_FOLD_MAX 128

/* Folds s into out (SUGGEST_FOLD_MAX + 1 bytes); returns its length, or SIZE_MAX when too long. */
static size_t fold_name(const char *s, char *out)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        bool ascii_alnum = (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z');
        if (*p < 0x80 && !ascii_alnum)
            continue;
        if (n == SUGGEST_FOLD_MAX)
            return SIZE_MAX;
        out[n++] = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
    }
    out[n] = '\0';
    return n;
}

/* Optimal string alignment distance (Levenshtein plus adjacent transpositions, "lamma" ->
 * "llama" is 1 as a person counts it; Damerau, CACM 7(3) 1964) of folded a and b, each at
 * most SUGGEST_FOLD_MAX bytes. */
static int osa_distance(const char *a, size_t la, const char *b, size_t lb)
{
    int rows[3][SUGGEST_FOLD_MAX + 1];
    int *pp = rows[0], *prev = rows[1], *cur = rows[2];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int v = prev[j - 1] + (a[i - 1] != b[j - 1]);
            if (prev[j] + 1 < v)
                v = prev[j] + 1;
            if (cur[j - 1] + 1 < v)
                v = cur[j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && pp[j - 2] + 1 < v)
                v = pp[j - 2] + 1;
            cur[j] = v;
        }
        int *t = pp;
        pp = prev;
        prev = cur;
        cur = t;
    }
    return prev[lb];
}

static bool has_substring(const char *hay, size_t lh, const char *needle, size_t ln)
{
    for (size_t i = 0; ln && i + ln <= lh; i++)
        if (memcmp(hay + i, needle, ln) == 0)
            return true;
    return false;
}

/* Score of folded candidate c for folded query q, lower is better, < 0 no match. The tiers,
 * each a band of 20 ordered by how many characters differ:
 *   0       the same name once folded (TensorRT_LLM for tensorrt-llm)
 *   10      one edit (a typo: vlm for vllm, h100x for h100)
 *   20..39  q starts c: a name cut short (H100-SXM for h100-sxm5-80gb, llamacpp)
 *   40, 50  two or three edits, allowed from 8 and 12 folded characters on
 *   60..79  c starts q, c at least a third of q: a version or suffix added (sglang-0.4,
 *           qwen3-8b-instruct)
 *   80..99  q inside c, q at least 3 characters (4090 for rtx-4090)
 *   100..119 c inside q, c at least 4 characters and half of q (meta-llama-3-8b)
 * The edit allowance is a quarter of the query, 1 to 3: one edit in "vlm" is "vllm", two
 * would also be "calm". name_like: c is a display name or repository, not a typed id: the
 * same name, a cut-short one, or one with a suffix (of 6 characters or more: Qwen/Qwen3-8B
 * in Qwen/Qwen3-8B-Instruct) count; an id's typos are not a display name's. */
static int fold_score(const char *q, size_t lq, const char *c, size_t lc, bool name_like)
{
    if (lq == 0 || lc == 0)
        return -1;
    if (lq == lc && memcmp(q, c, lq) == 0)
        return 0;
    size_t limit = lq / 4;
    limit = limit < 1 ? 1 : limit > 3 ? 3 : limit;
    size_t gap = lq > lc ? lq - lc : lc - lq;
    int d = name_like || gap > limit ? -1 : osa_distance(q, lq, c, lc);
#define BAND(base, k) ((base) + (int)((k) < 19 ? (k) : 19))
    if (d == 1)
        return 10;
    if (lq >= (name_like ? 3u : 2u) && lq < lc && memcmp(q, c, lq) == 0)
        return BAND(20, lc - lq);
    if (d >= 2 && (size_t)d <= limit)
        return d == 2 ? 40 : 50;
    if (lc >= (name_like ? 6u : 3u) && lc < lq && lq <= 3 * lc && memcmp(q, c, lc) == 0)
        return BAND(60, lq - lc);
    if (name_like)
        return -1;
    if (lq >= 3 && lq < lc && has_substring(c, lc, q, lq))
        return BAND(80, lc - lq);
    if (lc >= 4 && lc < lq && 2 * lc >= lq && has_substring(q, lq, c, lc))
        return BAND(100, lq - lc);
#undef BAND
    return -1;
}

/* The query as folded, plus (for engines) the form with a family's short name spelled out, and
 * the query as typed, lowercased, whose words (runs of ASCII letters and digits) a candidate may
 * hold all of. */
struct suggest_query {
    char q[2][SUGGEST_FOLD_MAX + 1];
    size_t lq[2];
    int n;
    char raw[SUGGEST_FOLD_MAX + 1];
    int words;
};

/* The next word of s from *p (a run of ASCII letters and digits), lowercased into w; false at
 * the end. */
static bool ascii_alnum(char ch)
{
    return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

static bool next_word(const char *s, size_t *p, char *w, size_t size)
{
    size_t i = *p, n = 0;
    while (s[i] && !ascii_alnum(s[i]))
        i++;
    if (!s[i])
        return false;
    while (s[i] && ascii_alnum(s[i])) {
        if (n + 1 < size)
            w[n++] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] - 'A' + 'a' : s[i]);
        i++;
    }
    w[n] = '\0';
    *p = i;
    return true;
}

/* Every word of the query is a word of cand: "a100-80gb" names a100-sxm4-80gb and a100-pcie-80gb,
 * which the folded distances missed for a100-sxm4-40gb, one digit away ("a10080gb" against
 * "a10040gb"): the words carry the meaning, a memory size among them (a review). */
static bool words_within(const struct suggest_query *sq, const char *cand)
{
    if (sq->words < 2)
        return false;
    char w[SUGGEST_FOLD_MAX + 1], v[SUGGEST_FOLD_MAX + 1];
    size_t p = 0;
    while (next_word(sq->raw, &p, w, sizeof w)) {
        bool found = false;
        size_t r = 0;
        while (!found && next_word(cand, &r, v, sizeof v))
            found = strcmp(w, v) == 0;
        if (!found)
            return false;
    }
    return true;
}

/* Short forms people type for an engine whose ids spell the name out: "trt" for TensorRT
 * (TensorRT-LLM's own tools are trtllm-build and trtllm-serve). Replaces the folded query's
 * start; the catalog's engine ids cannot say this by themselves. */
static const struct {
    const char *shortname, *full;
} engine_short_names[] = {
    { "trt", "tensorrt" },
};

static bool suggest_query_init(struct suggest_query *sq, const char *name, bool engines)
{
    sq->n = 0;
    sq->lq[0] = fold_name(name, sq->q[0]);
    if (sq->lq[0] == SIZE_MAX || sq->lq[0] == 0)
        return false;
    sq->n = 1;
    snprintf(sq->raw, sizeof sq->raw, "%s", name);
    sq->words = 0;
    char w[SUGGEST_FOLD_MAX + 1];
    for (size_t p = 0; next_word(sq->raw, &p, w, sizeof w);)
        sq->words++;
    for (size_t i = 0; engines && i < sizeof engine_short_names / sizeof engine_short_names[0]; i++) {
        size_t ls = strlen(engine_short_names[i].shortname), lf = strlen(engine_short_names[i].full);
        if (strncmp(sq->q[0], engine_short_names[i].shortname, ls) == 0 &&
            strncmp(sq->q[0], engine_short_names[i].full, lf) != 0 && sq->lq[0] - ls + lf <= SUGGEST_FOLD_MAX) {
            memcpy(sq->q[1], engine_short_names[i].full, lf);
            memcpy(sq->q[1] + lf, sq->q[0] + ls, sq->lq[0] - ls + 1);
            sq->lq[1] = sq->lq[0] - ls + lf;
            sq->n = 2;
            break;
        }
    }
    return true;
}

/* Best score of candidate name cand for the query; an expanded short name costs 1, a display
 * name or repository 2. */
static int suggest_score(const struct suggest_query *sq, const char *cand, bool name_like)
{
    char c[SUGGEST_FOLD_MAX + 1];
    size_t lc = fold_name(cand, c);
    if (lc == SIZE_MAX)
        return -1;
    /* all the query's words in an id or alias: before a one-edit neighbour (10); not in a display
     * name or repository, whose longer spellings hold the words of their variants too
     * ("meta-llama/Llama-2-7b-chat-hf" holds every word of Llama-2-7B's repository) */
    int best = !name_like && words_within(sq, cand) ? 5 : -1;
    for (int i = 0; i < sq->n; i++) {
        int s = fold_score(sq->q[i], sq->lq[i], c, lc, name_like);
        if (s >= 0) {
            s += i + (name_like ? 2 : 0);
            if (best < 0 || s < best)
                best = s;
        }
    }
    return best;
}

static void insert_best(const char **out, int *scores, size_t *n, size_t max, const char *id, int score)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp(out[i], id) == 0) {
            if (score < scores[i])
                scores[i] = score;
            else
                return;
            /* re-sort below */
            for (size_t a = i; a > 0 && (scores[a] < scores[a - 1]); a--) {
                const char *t = out[a]; out[a] = out[a - 1]; out[a - 1] = t;
                int s = scores[a]; scores[a] = scores[a - 1]; scores[a - 1] = s;
            }
            return;
        }
    size_t pos = *n;
    while (pos > 0 && (scores[pos - 1] > score || (scores[pos - 1] == score && strcmp(out[pos - 1], id) > 0)))
        pos--;
    if (pos >= max)
        return;
    size_t last = *n < max ? *n : max - 1;
    for (size_t i = last; i > pos; i--) {
        out[i] = out[i - 1];
        scores[i] = scores[i - 1];
    }
    out[pos] = id;
    scores[pos] = score;
    if (*n < max)
        (*n)++;
}

/* One candidate name of entry id: scored and kept among the best max. */
#define SUGGEST_TRY(sq, cand, name_like, id)                                                                           \
    do {                                                                                                               \
        int s_ = suggest_score((sq), (cand), (name_like));                                                             \
        if (s_ >= 0)                                                                                                   \
            insert_best(out, scores, &n, max, (id), s_);                                                               \
    } while (0)

/* The query, and max capped at the 16 scores the callers keep; false: nothing to suggest. */
static bool suggest_begin(struct suggest_query *sq, const char *name, bool engine, size_t *max)
{
    if (*max > 16)
        *max = 16;
    return *max > 0 && suggest_query_init(sq, name, engine);
}

size_t catalog_suggest_gpus(const struct llmroof_catalog *cat, const char *name, const char **out, size_t max)
{
    int scores[16];
    size_t n = 0;
    struct suggest_query sq;
    if (!suggest_begin(&sq, name, false, &max))
        return 0;
    for (size_t i = 0; i < cat->n_gpus; i++) {
        const struct llmroof_gpu *g = &cat->gpus[i];
        SUGGEST_TRY(&sq, g->id, false, g->id);
        for (int a = 0; a < g->n_aliases; a++)
            SUGGEST_TRY(&sq, g->aliases[a], false, g->id);
        SUGGEST_TRY(&sq, g->name, true, g->id);
    }
    return n;
}

size_t catalog_suggest_engines(const struct llmroof_catalog *cat, const char *name, const char **out, size_t max)
{
    int scores[16];
    size_t n = 0;
    struct suggest_query sq;
    if (!suggest_begin(&sq, name, true, &max))
        return 0;
    for (size_t i = 0; i < cat->n_engines; i++) {
        const struct llmroof_engine *e = &cat->engines[i];
        SUGGEST_TRY(&sq, e->id, false, e->id);
        SUGGEST_TRY(&sq, e->name, true, e->id); /* "vLLM (V1 engine, 0.14+ ...)" answers vllm-v1 */
        for (int a = 0; a < e->n_aliases; a++)
            SUGGEST_TRY(&sq, e->aliases[a], false, e->id); /* "vllm-0.9.1" is near "vllm-0.9" */
    }
    return n;
}

size_t catalog_suggest_models(const struct llmroof_catalog *cat, const char *name, const char **out, size_t max)
{
    int scores[16];
    size_t n = 0;
    struct suggest_query sq;
    if (!suggest_begin(&sq, name, false, &max))
        return 0;
    for (size_t i = 0; i < cat->n_models; i++) {
        const struct llmroof_model *m = &cat->models[i];
        SUGGEST_TRY(&sq, m->id, false, m->id);
        SUGGEST_TRY(&sq, m->name, true, m->id);
        if (m->hf_id[0]) { /* "meta-llama/Llama-2-7b-hf", whole or after the owner */
            const char *slash = strchr(m->hf_id, '/');
            SUGGEST_TRY(&sq, m->hf_id, true, m->id);
            if (slash)
                SUGGEST_TRY(&sq, slash + 1, true, m->id);
        }
    }
    return n;
}
#undef SUGGEST_TRY
