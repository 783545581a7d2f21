/* comm.h - cost of ring collectives (NCCL's performance model; Thakur et al. 2005).
 * N ranks, message M bytes, bus bandwidth B = bw*eff (per direction), s = 2(N-1) ring steps
 * for all-reduce and N-1 for all-gather:
 *   plain alpha-beta (proto COMM_PROTO_NONE)   latency + s*hop + s/N * M / B
 *   NCCL protocols (COMM_PROTO_NVLINK, _PCIE)  min over LL, LL128, Simple of
 *     with NCCL 2.20.3's tuning model (src/graph/tuning.cc, docs/model.md "Collectives"):
 *       latency + dlat_p + s*(hop + dhop_p) + s/N * M / B_p
 *       LL     dlat 0,      dhop 0,                              B_LL    = min(B/4, 87.7 GB/s)
 *       LL128  dlat 7.4 us, dhop 1.3 us (NVLink only),           B_LL128 = 0.92 B (or the GPU's
 *              measured ll128_share x B)
 *       Simple dlat 1.8 us, dhop 2.8 us NVLink, 4.7 us PCIe,     B_Simple = B
 *              (dhop the GPU's measured simple_step_s where its catalog entry gives one)
 *     (latency and hop are the catalog's LL figures, NCCL's 6.6 us + 0.6 us per NVLink step), so
 *     small messages pay LL's latency and large ones get Simple's bandwidth: the bus bandwidth
 *     grows with the message size as nccl-tests shows;
 *   NVLink SHARP (nvls_Bps > 0, all-reduce only, 5 or more ranks): latency + 71 us - 6.6 us +
 *     M / nvls_Bps, the switch reducing in place (measured algbw about 270 GB/s on 8 H100s,
 *     kernels.md; the 71 us from nccl-tests' 8 to 128 MiB rows, COMM_NVLS_LATENCY_S);
 *   a fully connected mesh of `mesh_links` links per GPU (MI300X xGMI: 7) gives a ring of N ranks
 *     min(N-1, links)/links of the GPU's bandwidth (RCCL busbw 47.7 GB/s on 2 MI300X, 312.9 on 8);
 *   an engine's custom all-reduce (custom_latency_s > 0, messages up to 8 MiB): one-shot, every rank
 *     reads the other N-1 buffers, custom + (N-1) * M / B; two-shot (reduce-scatter, all-gather over
 *     peer memory), 2 * custom + 2(N-1)/N * M / B; the faster of these and NCCL's (vLLM's one-shot on
 *     4 H100s: 10, 15, 22, 38 us at 0.5, 1, 2, 4 MB - vLLM PR #24111 - is 5.5 us + 3M/365 GB/s).
 * One rank costs nothing. */
#ifndef LLMROOF_COMM_H
#define LLMROOF_COMM_H

struct llmroof_link_model {
    double bw_Bps;        /* per-GPU unidirectional link bandwidth, bytes/s */
    double eff;           /* achieved fraction of bw, (0,1] */
    double latency_s;     /* fixed cost per collective call, s */
    double hop_latency_s; /* latency per ring step, s */
    int proto;            /* COMM_PROTO_*: protocol choice as NCCL's tuner; NONE = one alpha-beta line */
    double nvls_Bps;      /* NVLink SHARP all-reduce algorithm bandwidth, bytes/s; 0 = none */
    int mesh_links;       /* fully connected mesh: links per GPU sharing bw_Bps; 0 = switched */
    double custom_latency_s; /* engine's custom all-reduce (one-shot/two-shot over peer memory): its
                                fixed cost per call, s; 0 = NCCL only */
    double simple_step_s;    /* NCCL's Simple protocol: cost per ring step above the hop latency, as a
                                published nccl-tests table of this GPU shows it, s; 0 = the tuning
                                figure (COMM_SIMPLE_STEP_NVLINK_S / _PCIE_S) */
    double ll128_share;      /* LL128's bus bandwidth over Simple's, from the same table; 0 = the
                                tuning figure COMM_LL128_SHARE */
};

enum { COMM_PROTO_NONE, COMM_PROTO_NVLINK, COMM_PROTO_PCIE };
/* NCCL 2.20.3 src/graph/tuning.cc: LL's bandwidth cap on Ampere/Hopper */
#define COMM_LL_MAX_BPS 87.7e9
/* Per-step latency of a collective's inter-node steps (NCCL's tuning model, src/graph/tuning.cc
 * hwLat[NCCL_HW_NET]: ring LL 2.7 us per step, tree LL 5.0 us per level; a ring all-reduce over
 * nodes takes 2(nodes - 1) such steps, a tree 2 log2(nodes) levels, and NCCL's tuner takes the
 * faster). Between PCIe-joined groups (bridged pairs) a step is a PCIe hop, the catalog's 2.5 us. */
#define COMM_NET_RING_HOP_S 2.7e-6
/* NCCL's floor on an inter-node ring's intra-node step: "inter-node rings still have to launch
 * nsteps * net overhead", 1 us a step (3 us under Simple) (src/graph/tuning.cc) */
#define COMM_NET_RING_FLOOR_S 1.0e-6
#define COMM_NET_TREE_HOP_S 5.0e-6
#define COMM_PCIE_HOP_S 2.5e-6
/* The share of a PCIe link's bandwidth a collective over PCIe reaches: the catalog's PCIe cards'
 * comm efficiency, from 8-21 GB/s bus bandwidth on 8-GPU PCIe Gen4 servers (NCCL issue #841;
 * docs/sources.md T13). Between the bridged pairs of an H100 NVL or A100 PCIe server the traffic
 * crosses the same slots, so the network takes it rather than the NVLink bridge's share. */
#define COMM_PCIE_EFF 0.45
/* NCCL's Simple protocol per ring step above the hop latency (tuning.cc hwLat: NVLink 0.6 -> 3.4,
 * PCIe 1.0 -> 5.7), where the catalog gives no measured figure (interconnect.simple_step_latency_s) */
#define COMM_SIMPLE_STEP_NVLINK_S 2.8e-6
#define COMM_SIMPLE_STEP_PCIE_S 4.7e-6
/* LL128's bus bandwidth over Simple's (tuning.cc), where the catalog gives no measured share */
#define COMM_LL128_SHARE 0.92
/* NVLink SHARP (NVLS) all-reduce: the fixed cost of a call, with the catalog's algorithm
 * bandwidth (270 GB/s on 8 H100s) as the slope, from nccl-tests' all-reduce on 8 H100 SXM (NCCL
 * 2.18.5, NVLS on; Azure AI-benchmarking-guide, ND H100 v5: busbw 172, 234, 296, 362, 401 GB/s at
 * 8, 16, 32, 64, 128 MiB, i.e. 85, 125, 199, 325, 586 us): each time less M / 270 GB/s leaves
 * 54, 63, 75, 76, 89 us, mean 71.4 (a free slope fits 58.9 us and 253.5 GB/s, slower than the
 * 275 GB/s the NCCL maintainers quote for large messages); the H200 table of the same guide (NCCL
 * 2.20.5) agrees within 4%. NCCL's tuning table gives NVLS 23 us, which put a 16 MiB all-reduce
 * at 85 us against the 125 measured. NVLS runs from 5 GPUs on: at 4 and fewer its bus bandwidth
 * is the ring's (8 x H200: 363 GB/s at 4 GPUs either way, stas00/ml-engineering; 420, 440, 460,
 * 480 GB/s with NVLS at 5, 6, 7, 8 GPUs, NVIDIA/nccl#1455). */
#define COMM_NVLS_LATENCY_S 71.0e-6
#define COMM_NVLS_MIN_RANKS 5
/* custom all-reduce: fixed cost per call (fitted line through vLLM PR #24111's 4 x H100 one-shot
 * times) and the largest message the engines route through it (vLLM's default max_size,
 * TensorRT-LLM's 8 MB workspace above 2 GPUs) */
#define COMM_CUSTOM_AR_LATENCY_S 5.5e-6
#define COMM_CUSTOM_AR_MAX_BYTES 8388608.0

/* The custom all-reduce's fixed cost per call on a GPU whose catalog entry gives one
 * (interconnect.custom_allreduce_latency_s, measured on that GPU: MI300X 7.1 us, docs/catalog.md),
 * else the H100 line's 5.5 us. */
static inline double comm_custom_latency_s(double catalog_s)
{
    return catalog_s > 0 ? catalog_s : COMM_CUSTOM_AR_LATENCY_S;
}

double comm_allreduce_s(const struct llmroof_link_model *l, int ranks, double msg_bytes);
double comm_allgather_s(const struct llmroof_link_model *l, int ranks, double msg_bytes);

/* Several nodes (docs/model.md "Several nodes"). `intra` is the NVLink/xGMI/PCIe link inside
 * a domain of `domain` GPUs, `net` the inter-node network per GPU. */

/* All-reduce and all-gather over `ranks` > domain GPUs (g = GPUs of the group per domain), as
 * NCCL's ring and tree run them: pipelined across nodes, the nccl-tests bus relation over the
 * whole group at the node bus bandwidth min(intra busbw over g, g x NIC bandwidth x eff):
 *   all-reduce: latency + 2(n-1)/n * M / busbw_node; all-gather: latency + (n-1)/n * M / busbw_node
 * (the latency: the intra ring's with no bytes + the network's + a network hop per node step). */
double comm_allreduce_hier_s(const struct llmroof_link_model *intra, const struct llmroof_link_model *net,
                             int ranks, int domain, double msg_bytes);
double comm_allgather_hier_s(const struct llmroof_link_model *intra, const struct llmroof_link_model *net,
                             int ranks, int domain, double msg_bytes);

/* All-to-all of `msg_bytes` per rank over `ranks` GPUs: the (g-1)/n share to peers in the
 * domain goes over the intra link, the (n-g)/n share over the network, both at once:
 *   latency + max((g-1)/n * M / intra, (n-g)/n * M / net). */
double comm_alltoall_s(const struct llmroof_link_model *intra, const struct llmroof_link_model *net,
                       int ranks, int domain, double msg_bytes);

/* The same by DeepEP's normal (prefill) kernels: `msg_bytes` holds `topk` copies of each token;
 * a token goes once to each GPU holding any of its experts, n (1 - (1 - 1/n)^k) of the n ranks
 * (the share f = that / k of the copies moves), crosses the network once per distinct remote
 * node its experts sit on, (nodes-1) * (1 - (1 - 1/nodes)^k) on average, and NVLink forwards it
 * inside the node:
 *   latency + max((g-1)/g * f M / intra, M/k * remote nodes / net)
 * (deepseek-ai/DeepEP README: normal kernels forward from RDMA to NVLink; low-latency kernels,
 * comm_alltoall_s, send every copy to its GPU). Inside one domain: comm_alltoall_s of f M.
 * msg_bytes is the busiest GPU's: recv_factor (>= 1) times the mean, which NVLink forwards to it;
 * the network carries the mean to its node, more only as far as the busy GPU brings tokens no
 * other GPU of its node would have drawn there (comm_alltoall_node_factor). */
double comm_alltoall_nodes_s(const struct llmroof_link_model *intra, const struct llmroof_link_model *net, int ranks,
                             int domain, double msg_bytes, double topk, double groups, double topk_groups,
                             double recv_factor);
/* The busiest GPU's node's inbound over the mean, where that GPU receives recv_factor times a
 * GPU's mean: a token reaches a given GPU with P = fan-out / n and a given node with Pn (the
 * fan-out over nodes); at the busy GPU P' = min(1, recv_factor P), and its node is missed only
 * where that GPU and the node's others all are, (1 - P') (1 - Pn) / (1 - P) (taken independent):
 *   factor = (1 - (1 - P') (1 - Pn) / (1 - P)) / Pn, at least 1.
 * DeepSeek-V3 at EP 16 over 2 nodes (P = 5.25 / 16, Pn = 0.986), the busy GPU at 1.386 times the
 * mean: 1.003. */
double comm_alltoall_node_factor(int ranks, int domain, double topk, double groups, double topk_groups,
                                 double recv_factor);

/* Expected number of `units` (GPUs, or nodes) a token's `topk` experts land on, the experts laid
 * out in order over the units (vLLM's and SGLang's expert placement without a load balancer).
 * Plain top-k (groups <= 1 or topk_groups >= groups): k uniform picks, n (1 - (1 - 1/n)^k).
 * Group-limited routing (DeepSeek-V2/V3: the k experts come from the token's topk_groups best of
 * `groups` equal groups, a group scored by its best experts: DeepSeek-V3 sums its top two), so
 * every chosen group holds at least one of the k (it was chosen for them), and the other
 * k - topk_groups fall over the chosen groups' experts. With n >= groups a group spans u = n /
 * groups units: the chosen groups' first picks land on G = topk_groups units, the rest on a pool
 * of P = G u units, G + (P - G)(1 - (1 - 1/P)^(k - G)); with n < groups a unit holds groups / n
 * of them, and every unit that holds a chosen group is reached: n (1 - C(groups - groups/n,
 * topk_groups) / C(groups, topk_groups)). DeepSeek-V3 at EP 8: 4 GPUs, at EP 16 4 + 4 (1 -
 * (7/8)^4) = 5.655 (a Monte Carlo of the top-2-sum rule with independent scores: 3.96 and 5.72;
 * independent picks over the pool, as until session 72, gave 3.60 and 5.25), not the 5.25 and
 * 6.98 of plain top-8. */
double comm_moe_fanout(double units, double topk, double groups, double topk_groups);

/* `boundaries` pipeline sends of msg_bytes between stages of `stage_gpus` GPUs each: a
 * boundary between two domains goes over the network, the others over the intra link;
 * each send is latency + M / (bw * eff), over one link of a mesh (bw * eff / mesh_links). */
double comm_pp_sends_s(const struct llmroof_link_model *intra, const struct llmroof_link_model *net,
                       int domain, int stage_gpus, double boundaries, double msg_bytes);

#endif
