/* comm.h - alpha-beta cost of ring collectives (NCCL's performance model; Thakur
 * et al. 2005). N ranks, message M bytes, link bandwidth bw (per direction):
 *   all-reduce  latency + 2(N-1)*hop + 2(N-1)/N * M / (bw*eff)
 *   all-gather  latency + (N-1)*hop  + (N-1)/N  * M / (bw*eff)
 * One rank costs nothing. */
#ifndef LLMROOF_COMM_H
#define LLMROOF_COMM_H

struct llmroof_link_model {
    double bw_Bps;        /* per-GPU unidirectional link bandwidth, bytes/s */
    double eff;           /* achieved fraction of bw, (0,1] */
    double latency_s;     /* fixed cost per collective call, s */
    double hop_latency_s; /* latency per ring step, s */
};

double comm_allreduce_s(const struct llmroof_link_model *l, int ranks, double msg_bytes);
double comm_allgather_s(const struct llmroof_link_model *l, int ranks, double msg_bytes);

/* Several nodes (docs/model.md "Several nodes"). `intra` is the NVLink/xGMI/PCIe link inside
 * a domain of `domain` GPUs, `net` the inter-node network per GPU. */

/* All-reduce over `ranks` > domain GPUs, hierarchical as NCCL's tree/CollNet and the
 * 2D-ring do: intra-domain reduce-scatter, inter-node all-reduce of the 1/g shard
 * (each GPU over its own NIC), intra-domain all-gather (g = GPUs of the group per domain). */
double comm_allreduce_hier_s(const struct llmroof_link_model *intra, const struct llmroof_link_model *net,
                             int ranks, int domain, double msg_bytes);
double comm_allgather_hier_s(const struct llmroof_link_model *intra, const struct llmroof_link_model *net,
                             int ranks, int domain, double msg_bytes);

/* All-to-all of `msg_bytes` per rank over `ranks` GPUs: the (g-1)/n share to peers in the
 * domain goes over the intra link, the (n-g)/n share over the network, both at once:
 *   latency + max((g-1)/n * M / intra, (n-g)/n * M / net). */
double comm_alltoall_s(const struct llmroof_link_model *intra, const struct llmroof_link_model *net,
                       int ranks, int domain, double msg_bytes);

/* `boundaries` pipeline sends of msg_bytes between stages of `stage_gpus` GPUs each: a
 * boundary between two domains goes over the network, the others over the intra link;
 * each send is latency + M / (bw * eff). */
double comm_pp_sends_s(const struct llmroof_link_model *intra, const struct llmroof_link_model *net,
                       int domain, int stage_gpus, double boundaries, double msg_bytes);

#endif
