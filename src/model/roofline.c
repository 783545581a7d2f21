/* roofline.c - per-operator time on a GPU (see llmroof/roofline.h). */
#include "llmroof/roofline.h"

#include <string.h>

#include "llmroof/comm.h"

const char *bound_name(enum llmroof_bound b)
{
    switch (b) {
    case LLMROOF_BOUND_COMPUTE: return "compute";
    case LLMROOF_BOUND_MEMORY: return "memory";
    case LLMROOF_BOUND_COMM: return "comm";
    }
    return "?";
}

struct llmroof_effs roofline_default_effs(const struct llmroof_gpu *g)
{
    struct llmroof_effs e = { g->compute_eff, g->memory_eff, g->comm_eff, g->step_overhead_s, 0.0, 0.0 };
    return e;
}

struct llmroof_effs roofline_effs(const struct llmroof_gpu *g, const struct llmroof_eff_override *o)
{
    return roofline_effs_engine(g, o ? o->engine : NULL, o);
}

struct llmroof_effs roofline_effs_engine(const struct llmroof_gpu *g, const struct llmroof_engine *en,
                                         const struct llmroof_eff_override *o)
{
    struct llmroof_effs e = roofline_default_effs(g);
    if (en) {
        e.compute *= en->compute_scale;
        e.overhead_s += en->step_overhead_s;
        e.first_token_s = en->first_token_s;
        e.comm_latency_s = en->collective_latency_s;
    }
    if (o) {
        if (o->has_compute)
            e.compute = o->compute;
        if (o->has_memory)
            e.memory = o->memory;
        if (o->has_comm)
            e.comm = o->comm;
        if (o->has_overhead)
            e.overhead_s = o->overhead_s;
    }
    return e;
}

int roofline_check(const struct llmroof_gpu *g, enum llmroof_dtype act, struct llmroof_err *err)
{
    if (!g->has_peak[act])
        return llmroof_err_set(err, LLMROOF_EINPUT, "GPU '%s' has no %s compute path (catalog peak_flops lacks '%s')",
                               g->id, dtype_name(act), dtype_name(act));
    return LLMROOF_OK;
}

void roofline_total(struct llmroof_phase *p)
{
    p->compute_s = p->memory_s = p->comm_s = 0;
    p->bound_s[0] = p->bound_s[1] = p->bound_s[2] = 0;
    double t = 0;
    for (int k = 0; k < LLMROOF_OP_COUNT; k++) {
        const struct llmroof_optime *o = &p->op[k];
        p->compute_s += o->compute_s;
        p->memory_s += o->memory_s;
        p->comm_s += o->comm_s;
        t += o->time_s;
    }
    p->time_s = t + p->overhead_s;
    /* bound_s is filled by the caller that knows how time splits; default split: */
    for (int k = 0; k < LLMROOF_OP_COUNT; k++)
        p->bound_s[p->op[k].bound] += p->op[k].time_s;
    enum llmroof_bound best = LLMROOF_BOUND_COMPUTE;
    for (int c = 1; c < 3; c++)
        if (p->bound_s[c] > p->bound_s[best])
            best = (enum llmroof_bound)c;
    p->bound = best;
}

void roofline_eval(const struct llmroof_gpu *g, enum llmroof_dtype act, const struct llmroof_effs *eff,
                   int tp, const struct llmroof_oplist *ops, struct llmroof_phase *out)
{
    memset(out, 0, sizeof *out);
    const double peak = g->peak_flops[act] * eff->compute;
    const double bw = g->mem_bw_Bps * eff->memory;
    const struct llmroof_link_model link = { g->link_bw_Bps, eff->comm, g->link_latency_s + eff->comm_latency_s,
                                             g->link_hop_latency_s };

    for (int k = 0; k < LLMROOF_OP_COUNT; k++) {
        const struct llmroof_op *op = &ops->op[k];
        struct llmroof_optime *t = &out->op[k];
        out->flops += op->count * op->flops;
        out->bytes += op->count * op->bytes;
        out->comm_bytes += op->count * op->comm_bytes;
        if (op->count <= 0)
            continue;
        if (op_is_collective((enum llmroof_opkind)k)) {
            /* one domain: the intra link; beyond it the hierarchical / network terms of comm.h */
            const struct llmroof_link_model net = { g->net_bw_Bps, eff->comm, g->net_latency_s, 0.0 };
            const int dom = g->domain_gpus > 0 ? g->domain_gpus : g->gpus_per_node;
            double one;
            if (k == LLMROOF_OP_ALL_TO_ALL)
                one = comm_alltoall_s(&link, &net, ops->ep_ranks, dom, op->comm_bytes);
            else if (k == LLMROOF_OP_PP_SEND)
                one = comm_pp_sends_s(&link, &net, dom, ops->stage_gpus, op->count, op->comm_bytes) / op->count;
            else if (tp > dom && g->net_bw_Bps > 0)
                one = k == LLMROOF_OP_ALL_REDUCE ? comm_allreduce_hier_s(&link, &net, tp, dom, op->comm_bytes)
                                                 : comm_allgather_hier_s(&link, &net, tp, dom, op->comm_bytes);
            else
                one = k == LLMROOF_OP_ALL_REDUCE ? comm_allreduce_s(&link, tp, op->comm_bytes)
                                                 : comm_allgather_s(&link, tp, op->comm_bytes);
            t->comm_s = op->count * one;
            t->time_s = t->comm_s;
            t->bound = LLMROOF_BOUND_COMM;
        } else {
            t->compute_s = op->count * op->flops / peak;
            t->memory_s = op->count * op->bytes / bw;
            /* every instance of an op kind is identical, so count*max = max of sums */
            if (t->compute_s >= t->memory_s) {
                t->time_s = t->compute_s;
                t->bound = LLMROOF_BOUND_COMPUTE;
            } else {
                t->time_s = t->memory_s;
                t->bound = LLMROOF_BOUND_MEMORY;
            }
        }
    }
    out->overhead_s = eff->overhead_s;
    roofline_total(out);
}
