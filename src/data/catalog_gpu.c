/* catalog_gpu.c - GPU entries: parsed with their physical ranges, loaded with their aliases,
 * looked up by id or alias (docs/catalog.md). */
#include "data/catalog_internal.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ------------------------------------------------------------------------ */
/* GPUs                                                                     */
/* ------------------------------------------------------------------------ */

/* In enum order; NULL-terminated for json_get_choice. */
static const char *const link_names[] = { "nvlink", "pcie", "xgmi", NULL };

const char *link_name(enum llmroof_link k)
{
    return k >= LLMROOF_LINK_NVLINK && k <= LLMROOF_LINK_XGMI ? link_names[k] : "?";
}

static int parse_gpu(struct json_ectx *c, const cJSON *e, struct llmroof_gpu *g)
{
    static const char *const fields[] = {
        "id", "name", "aliases", "memory_bytes", "memory_visible_bytes", "memory_bandwidth_Bps", "peak_flops",
        "interconnect", "efficiency", "step_overhead_s", "gpus_per_node", "sm_count", "domain_gpus", "network", "host", "arch",
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
                                              "attention_memory_fa2", "gemm_ramp_rows", "memory_fitted", NULL };
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
    if (g->arch[0] && !catalog_arch_name_ok(g->arch))
        return catalog_arch_err(c, "arch", g->arch);

    if ((rc = catalog_parse_aliases(c, e, g->aliases, &g->n_aliases)))
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
        (rc = json_get_bool(c, ef, "memory_fitted", false, &g->memory_eff_fitted)) ||
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
                              &g->attn_mem_fa2_eff, NULL)) ||
        /* a GEMM's fill ramp in rows: AMD's tuned kernels fit 48-842 by shape on the MI300X (fp8) and
         * 72-1244 on the MI355X (bf16) (docs/model.md "GEMM fill ramp"); none reaches 8192 */
        (rc = json_get_number(c, ef, "gemm_ramp_rows", "efficiency.gemm_ramp_rows", false, 0, false, 8192,
                              &g->gemm_ramp_rows, NULL)))
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
    long sms = 0;
    if ((rc = json_get_long(c, e, "sm_count", false, 1, 1024, &sms, NULL)))
        return rc;
    g->sm_count = (int)sms;
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
            if (!catalog_grow((void **)&keep, &cap_keep, n_keep + 1, sizeof *keep))
                goto out;
            g = &keep[n_keep];
        }
        if (parse_gpu(&c, e, g) || !catalog_grow((void **)&names, &cap_names, n + 1, sizeof *names))
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
            if (!catalog_grow((void **)&keep, &cap_keep, n_keep + 1, sizeof *keep))
                goto out;
            keep[n_keep++] = *g;
        }
    }
    /* room for every kept entry first: once the catalog changes, nothing may fail */
    if (!json_entries_ok(it) || !catalog_grow((void **)&cat->gpus, &cat->cap_gpus, cat->n_gpus + n_keep, sizeof *cat->gpus))
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
            if (!catalog_grow((void **)&cat->gpus, &cat->cap_gpus, cat->n_gpus + 1, sizeof *cat->gpus)) {
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

int catalog_add_gpus_file(struct llmroof_catalog *cat, const char *path, bool replace, struct llmroof_err *err)
{
    return catalog_add_file(cat, path, replace, NULL, add_gpus, err);
}

int catalog_add_gpus_file_pick(struct llmroof_catalog *cat, const char *path, bool replace, const char *pick,
                               struct llmroof_err *err)
{
    return catalog_add_file(cat, path, replace, pick, add_gpus, err);
}

const struct llmroof_gpu *catalog_find_gpu_exact(const struct llmroof_catalog *cat, const char *name)
{
    for (size_t i = 0; i < cat->n_gpus; i++)
        if (gpu_named(&cat->gpus[i], name))
            return &cat->gpus[i];
    return NULL;
}

/* catalog_match_gpu: catalog_suggest.c */
const struct llmroof_gpu *catalog_find_gpu(const struct llmroof_catalog *cat, const char *name)
{
    return catalog_match_gpu(cat, name, NULL);
}
