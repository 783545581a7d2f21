/* comm.c - ring collectives, alpha-beta model (see llmroof/comm.h).
 * The bandwidth term is the nccl-tests "bus bandwidth" relation read backwards:
 * busbw = algbw * 2(N-1)/N for all-reduce and (N-1)/N for all-gather
 * (NVIDIA nccl-tests doc/PERFORMANCE.md), with busbw = link bandwidth * efficiency. */
#include "llmroof/comm.h"

double comm_allreduce_s(const struct llmroof_link_model *l, int ranks, double msg_bytes)
{
    if (ranks <= 1)
        return 0.0;
    double n = (double)ranks;
    return l->latency_s + 2.0 * (n - 1.0) * l->hop_latency_s
         + 2.0 * (n - 1.0) / n * msg_bytes / (l->bw_Bps * l->eff);
}

double comm_allgather_s(const struct llmroof_link_model *l, int ranks, double msg_bytes)
{
    if (ranks <= 1)
        return 0.0;
    double n = (double)ranks;
    return l->latency_s + (n - 1.0) * l->hop_latency_s + (n - 1.0) / n * msg_bytes / (l->bw_Bps * l->eff);
}

/* ------------------------------------------------------------------------ */
/* Several nodes: hierarchical collectives, all-to-all, pipeline sends       */
/* ------------------------------------------------------------------------ */

static double xfer_s(const struct llmroof_link_model *l, double bytes)
{
    return bytes / (l->bw_Bps * l->eff);
}

double comm_allreduce_hier_s(const struct llmroof_link_model *intra, const struct llmroof_link_model *net,
                             int ranks, int domain, double msg_bytes)
{
    if (ranks <= domain || domain < 1)
        return comm_allreduce_s(intra, ranks, msg_bytes);
    const double g = (double)domain, nodes = (double)ranks / g;
    /* reduce-scatter + all-gather inside the domain: (g-1)/g M each way (the two halves
     * of an intra ring all-reduce); all-reduce of M/g across nodes */
    double t = comm_allreduce_s(intra, domain, msg_bytes);
    t += net->latency_s + 2.0 * (nodes - 1.0) * net->hop_latency_s + 2.0 * (nodes - 1.0) / nodes * xfer_s(net, msg_bytes / g);
    return t;
}

double comm_allgather_hier_s(const struct llmroof_link_model *intra, const struct llmroof_link_model *net,
                             int ranks, int domain, double msg_bytes)
{
    if (ranks <= domain || domain < 1)
        return comm_allgather_s(intra, ranks, msg_bytes);
    const double n = (double)ranks, g = (double)domain, nodes = n / g;
    /* the other nodes' (nodes-1)/nodes share over the network, then spread in the domain */
    return net->latency_s + (nodes - 1.0) * net->hop_latency_s + (nodes - 1.0) / nodes * xfer_s(net, msg_bytes / g)
         + comm_allgather_s(intra, domain, msg_bytes);
}

double comm_alltoall_s(const struct llmroof_link_model *intra, const struct llmroof_link_model *net,
                       int ranks, int domain, double msg_bytes)
{
    if (ranks <= 1)
        return 0.0;
    const double n = (double)ranks, g = (double)(domain < ranks ? domain : ranks);
    const double t_in = (g - 1.0) / n * xfer_s(intra, msg_bytes);
    if (g >= n)
        return intra->latency_s + t_in;
    const double t_net = (n - g) / n * xfer_s(net, msg_bytes);
    return net->latency_s + (t_in > t_net ? t_in : t_net);
}

double comm_pp_sends_s(const struct llmroof_link_model *intra, const struct llmroof_link_model *net,
                       int domain, int stage_gpus, double boundaries, double msg_bytes)
{
    if (boundaries <= 0)
        return 0.0;
    /* stages per domain; a domain smaller than a stage puts every boundary on the network */
    const int whole = stage_gpus > 0 && domain >= stage_gpus ? domain / stage_gpus : 1; /* whole stages */
    const double per = (double)whole;
    const double stages = boundaries + 1.0;
    double crossing = (double)(long)((stages + per - 1.0) / per) - 1.0; /* domain boundaries between stages */
    if (crossing > boundaries)
        crossing = boundaries;
    return crossing * (net->latency_s + xfer_s(net, msg_bytes))
         + (boundaries - crossing) * (intra->latency_s + xfer_s(intra, msg_bytes));
}
