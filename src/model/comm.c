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
