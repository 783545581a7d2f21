/* comm.c - ring collectives, alpha-beta model (see llmroof/comm.h).
 * The bandwidth term is the nccl-tests "bus bandwidth" relation read backwards:
 * busbw = algbw * 2(N-1)/N for all-reduce and (N-1)/N for all-gather
 * (NVIDIA nccl-tests doc/PERFORMANCE.md), with busbw = link bandwidth * efficiency. */
#include "model/comm.h"

#include <math.h>
#include <stdbool.h>

/* Bus bandwidth of n ranks: a ring over a full mesh uses the links to the other n-1 ranks only. */
static double bus_bw(const struct llmroof_link_model *l, double n)
{
    double busbw = l->bw_Bps * l->eff;
    if (l->mesh_links > 0) {
        double used = n - 1.0 < l->mesh_links ? n - 1.0 : (double)l->mesh_links;
        busbw *= used / (double)l->mesh_links;
    }
    return busbw;
}

/* One NCCL protocol of a ring of `steps` steps: its fixed cost (no bytes) and the bandwidth its
 * bytes move at, given the ring's bus bandwidth. NCCL's other protocols cost more per step than
 * LL by a fixed amount (tuning.cc: NVLink 0.6 -> 1.9 LL128, -> 3.4 Simple; PCIe 1.0 -> 5.7
 * Simple), added to the catalog's LL figure; Simple's per step as the GPU's published nccl-tests
 * table measures it where the catalog has it (8 x A100 SXM4: 100.5 us at 8 GPUs, not the tuner's
 * 56), and LL128's bandwidth share likewise (8 x A100 SXM4: 0.53, not 0.92). Returns false for a
 * protocol the link does not run (LL128 off NVLink). */
enum { RING_LL, RING_LL128, RING_SIMPLE, RING_PROTOS };
static bool ring_proto(const struct llmroof_link_model *l, int p, double steps, double busbw, double *fixed_s,
                       double *bw_Bps)
{
    const bool nvlink = l->proto == COMM_PROTO_NVLINK;
    const double hop = steps * l->hop_latency_s;
    switch (p) {
    case RING_LL:
        *fixed_s = l->latency_s + hop;
        *bw_Bps = busbw / 4.0 < COMM_LL_MAX_BPS ? busbw / 4.0 : COMM_LL_MAX_BPS;
        return true;
    case RING_LL128:
        *fixed_s = l->latency_s + 7.4e-6 + hop + steps * 1.3e-6;
        *bw_Bps = (l->ll128_share > 0 ? l->ll128_share : COMM_LL128_SHARE) * busbw;
        return nvlink;
    default: {
        const double sstep = l->simple_step_s > 0 ? l->simple_step_s
                             : nvlink             ? COMM_SIMPLE_STEP_NVLINK_S
                                                  : COMM_SIMPLE_STEP_PCIE_S;
        *fixed_s = l->latency_s + 1.8e-6 + hop + steps * sstep;
        *bw_Bps = busbw;
        return true;
    }
    }
}

/* A ring collective of `steps` steps moving steps/n * M per rank (llmroof/comm.h): the fastest
 * protocol, as NCCL's tuner picks it from the same table. */
static double ring_s(const struct llmroof_link_model *l, double n, double steps, double msg_bytes)
{
    const double busbw = bus_bw(l, n);
    const double share = steps / n * msg_bytes;
    if (l->proto == COMM_PROTO_NONE)
        return l->latency_s + steps * l->hop_latency_s + share / busbw;
    double best = INFINITY;
    for (int p = 0; p < RING_PROTOS; p++) {
        double fixed, bw;
        if (ring_proto(l, p, steps, busbw, &fixed, &bw) && fixed + share / bw < best)
            best = fixed + share / bw;
    }
    return best;
}

double comm_allreduce_s(const struct llmroof_link_model *l, int ranks, double msg_bytes)
{
    if (ranks <= 1)
        return 0.0;
    const double n = (double)ranks;
    double t = ring_s(l, n, 2.0 * (n - 1.0), msg_bytes);
    /* NVLS only from COMM_NVLS_MIN_RANKS GPUs: below, NCCL's NVLS bus bandwidth is the ring's */
    if (l->nvls_Bps > 0 && ranks >= COMM_NVLS_MIN_RANKS) {
        /* NVLink SHARP: each rank sends M to the switch and reads the reduced M back */
        double nvls = l->latency_s + (COMM_NVLS_LATENCY_S - 6.6e-6) + msg_bytes / l->nvls_Bps;
        if (nvls < t)
            t = nvls;
    }
    if (l->custom_latency_s > 0 && msg_bytes <= COMM_CUSTOM_AR_MAX_BYTES) {
        /* the engine's own kernels over peer memory (llmroof/comm.h) */
        const double b = bus_bw(l, n);
        double one = l->custom_latency_s + (n - 1.0) * msg_bytes / b;
        double two = 2.0 * l->custom_latency_s + 2.0 * (n - 1.0) / n * msg_bytes / b;
        if (one < t)
            t = one;
        if (two < t)
            t = two;
    }
    return t;
}

double comm_allgather_s(const struct llmroof_link_model *l, int ranks, double msg_bytes)
{
    if (ranks <= 1)
        return 0.0;
    const double n = (double)ranks;
    return ring_s(l, n, n - 1.0, msg_bytes);
}

/* ------------------------------------------------------------------------ */
/* Several nodes: hierarchical collectives, all-to-all, pipeline sends       */
/* ------------------------------------------------------------------------ */

static double xfer_s(const struct llmroof_link_model *l, double bytes)
{
    return bytes / (l->bw_Bps * l->eff);
}

/* Bus bandwidth of a collective spanning nodes of g GPUs each: NCCL runs one ring (or tree) per
 * channel, each entering and leaving a node through a different GPU's NIC, so a node's g NICs
 * carry the inter-node share together and the pipelined ring moves at the slower of the
 * intra-node bus bandwidth and g NICs (nccl-tests doc/PERFORMANCE.md: bus bandwidth is bounded
 * by the slowest link, across nodes the network; ml-engineering network/README.md: multi-node
 * all-reduce busbw of H100 nodes near their 8 x 400 Gb/s of NICs). */
static double node_bus_bw(const struct llmroof_link_model *intra, const struct llmroof_link_model *net, double g)
{
    const double in = bus_bw(intra, g), out = g * net->bw_Bps * net->eff;
    return in < out ? in : out;
}

/* A collective over nodes, NCCL pipelining the intra- and inter-node parts of its ring/tree:
 * `share` bytes per rank (2(n-1)/n * M for an all-reduce, (n-1)/n * M for an all-gather) at the
 * node bus bandwidth, not the intra-node collective plus the network phase one after another.
 * Per protocol, the larger-of-two fixed costs NCCL's tuner model gives (src/graph/tuning.cc):
 * - ring: the ring runs through all R = g x nodes ranks, so an all-reduce takes 2(R-1) steps, of
 *   which 2(nodes-1) cross the network (an all-gather R-1 and nodes-1): 2(R-nodes) intra-node
 *   steps at the intra ring's per-step cost, which an inter-node ring floors at 1 us (3 us under
 *   Simple: "inter-node rings still have to launch nsteps * net overhead"), plus the network
 *   steps at the net's per-step latency. It had counted one node's 2(g-1) intra steps, 14 where
 *   16 GPUs over two nodes take 28 (a review's TP-16 decode all-reduce, 31.1 us a call);
 * - tree (an all-reduce over a network, not PCIe): 2(g-1) intra-node steps and 2 log2(nodes)
 *   network levels;
 * each network step at its protocol's NET latency in NCCL's table (hwLat[NCCL_HW_NET]: ring LL /
 * LL128 / Simple 2.7 / 4.0 / 9.6 us, tree 5.0 / 8.5 / 50 us; the link's own hop latency for LL's
 * ring, scaled alike), with the network's latency, and the bytes at the node bus bandwidth capped
 * by the protocol's own rate on the intra-node links, for the tree as for the ring (NCCL caps the
 * tree's bandwidth by GPU generation: here the tree wins on fixed cost alone, tens of us, and its
 * Simple level's 50 us leaves large messages to the ring). The fastest protocol and algorithm, as
 * NCCL's tuner picks: a spanning all-reduce pays Simple's fixed cost for large messages too (it
 * paid LL's before, and 16 GPUs over two A100 nodes then all-reduced 16 MiB faster than 8 in
 * one). NCCL's versions differ by tens of us a call: newer ones count 2N network steps for a
 * ring all-reduce (2(N-1) here) and round the tree's levels down (up here); older ones scale LL's
 * intra-node latency by 1.8 across nodes where newer ones floor it at 1 us (taken here). */
static double span_fixed_s(const struct llmroof_link_model *intra, int p, double steps, double ibus, double floor_s,
                           double *bw_Bps)
{
    double fixed, fixed0, bw0;
    if (!ring_proto(intra, p, steps, ibus, &fixed, bw_Bps))
        return INFINITY;
    ring_proto(intra, p, 0.0, ibus, &fixed0, &bw0);
    if (steps > 0.0 && (fixed - fixed0) / steps < floor_s)
        fixed = fixed0 + steps * floor_s;
    return fixed;
}

static double span_s(const struct llmroof_link_model *intra, const struct llmroof_link_model *net, int domain,
                     double nodes, bool reduce, double share)
{
    const double g = (double)domain, k = reduce ? 2.0 : 1.0;
    const double ring_isteps = k * (g * nodes - nodes), tree_isteps = 2.0 * (g - 1.0);
    const double ring_nsteps = k * (nodes - 1.0) * net->hop_latency_s;
    const bool network = net->proto != COMM_PROTO_PCIE, tree = reduce && network && nodes > 1.0;
    const double tree_nsteps = 2.0 * ceil(log2(nodes)) * COMM_NET_TREE_HOP_S;
    const double nbw = node_bus_bw(intra, net, g), ibus = bus_bw(intra, g);
    if (g <= 1.0) /* one GPU per node: no ring inside it */
        return net->latency_s + (tree && tree_nsteps < ring_nsteps ? tree_nsteps : ring_nsteps) + share / nbw;
    if (intra->proto == COMM_PROTO_NONE) {
        const double hop = intra->hop_latency_s, rhop = network && hop < COMM_NET_RING_FLOOR_S ? COMM_NET_RING_FLOOR_S : hop;
        double lat = ring_isteps * rhop + ring_nsteps;
        if (tree && tree_isteps * hop + tree_nsteps < lat)
            lat = tree_isteps * hop + tree_nsteps;
        return intra->latency_s + lat + net->latency_s + share / nbw;
    }
    /* NCCL's NET step latency per protocol over its LL figure (tuning.cc hwLat[NCCL_HW_NET]) */
    static const double ring_net[RING_PROTOS] = { 1.0, 4.0 / 2.7, 9.6 / 2.7 }, tree_net[RING_PROTOS] = { 1.0, 8.5 / 5.0, 50.0 / 5.0 };
    double best = INFINITY;
    for (int p = 0; p < RING_PROTOS; p++) {
        const double floor_s = !network ? 0.0 : p == RING_SIMPLE ? 3.0 * COMM_NET_RING_FLOOR_S : COMM_NET_RING_FLOOR_S;
        double bw;
        double fixed = span_fixed_s(intra, p, ring_isteps, ibus, floor_s, &bw) + ring_nsteps * (network ? ring_net[p] : 1.0);
        if (tree) {
            const double t = span_fixed_s(intra, p, tree_isteps, ibus, 0.0, &bw) + tree_nsteps * tree_net[p];
            fixed = t < fixed ? t : fixed;
        }
        const double t = fixed + net->latency_s + share / (bw < nbw ? bw : nbw);
        if (t < best)
            best = t;
    }
    return best;
}

double comm_allreduce_hier_s(const struct llmroof_link_model *intra, const struct llmroof_link_model *net,
                             int ranks, int domain, double msg_bytes)
{
    if (ranks <= domain || domain < 1)
        return comm_allreduce_s(intra, ranks, msg_bytes);
    const double n = (double)ranks, nodes = n / (double)domain;
    return span_s(intra, net, domain, nodes, true, 2.0 * (n - 1.0) / n * msg_bytes);
}

double comm_allgather_hier_s(const struct llmroof_link_model *intra, const struct llmroof_link_model *net,
                             int ranks, int domain, double msg_bytes)
{
    if (ranks <= domain || domain < 1)
        return comm_allgather_s(intra, ranks, msg_bytes);
    const double n = (double)ranks, nodes = n / (double)domain;
    return span_s(intra, net, domain, nodes, false, (n - 1.0) / n * msg_bytes);
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

double comm_moe_fanout(double units, double topk, double groups, double topk_groups)
{
    if (!(units > 1.0) || !(topk > 0.0))
        return units > 0.0 ? (units < 1.0 ? units : 1.0) : 0.0;
    double pool = units; /* the units the token's experts can sit on */
    if (groups > 1.0 && topk_groups > 0.0 && topk_groups < groups) {
        /* every chosen group takes one of the picks (routing chose it for its best experts: the
         * sum of its top two in DeepSeek-V3), where k covers them; the rest fall over the pool */
        const bool each = topk >= topk_groups;
        if (units >= groups) {
            pool = topk_groups * units / groups;
            if (each && pool > topk_groups)
                return topk_groups + (pool - topk_groups) * (1.0 - pow(1.0 - 1.0 / pool, topk - topk_groups));
            if (each)
                return pool;
        } else {
            /* the chance that none of a unit's groups/units groups is among the chosen: drawn
             * without replacement, prod over i < topk_groups of (groups - per - i) / (groups - i) */
            const double per = groups / units;
            double none = 1.0;
            for (int i = 0; i < (int)topk_groups && none > 0.0; i++) {
                const double q = (groups - per - i) / (groups - i);
                none *= q > 0.0 ? q : 0.0;
            }
            pool = units * (1.0 - none);
            if (each)
                return pool; /* every unit that holds a chosen group is reached */
        }
    }
    if (pool <= 1.0)
        return pool;
    return pool * (1.0 - pow(1.0 - 1.0 / pool, topk));
}

double comm_alltoall_node_factor(int ranks, int domain, double topk, double groups, double topk_groups,
                                 double recv_factor)
{
    const double n = (double)ranks, g = (double)(domain < ranks ? domain : ranks);
    if (!(recv_factor > 1.0) || g >= n || !(topk > 0))
        return 1.0;
    const double nodes = n / g;
    const double P = comm_moe_fanout(n, topk, groups, topk_groups) / n;
    const double Pn = comm_moe_fanout(nodes, topk, groups, topk_groups) / nodes;
    if (!(P < 1.0) || !(Pn > 0.0))
        return 1.0;
    const double hot = recv_factor * P < 1.0 ? recv_factor * P : 1.0;
    const double f = (1.0 - (1.0 - hot) * (1.0 - Pn) / (1.0 - P)) / Pn;
    return f > 1.0 ? f : 1.0;
}

double comm_alltoall_nodes_s(const struct llmroof_link_model *intra, const struct llmroof_link_model *net, int ranks,
                             int domain, double msg_bytes, double topk, double groups, double topk_groups,
                             double recv_factor)
{
    if (ranks <= 1)
        return 0.0;
    const double n = (double)ranks, g = (double)(domain < ranks ? domain : ranks);
    if (topk <= 0)
        return comm_alltoall_s(intra, net, ranks, domain, msg_bytes);
    /* The normal kernels send a token once to each GPU that holds any of its k experts and reduce
     * a GPU's expert outputs there before the combine sends them back (DeepEP's intranode
     * dispatch and combine, is_token_in_rank): k uniform picks over n GPUs land on n (1 - (1 -
     * 1/n)^k) of them (with-replacement form; DeepSeek-V3 at EP 8, 256 experts: 5.25 of 8, so
     * 4.59 other GPUs against the k = 8 copies charged before, 4.63 without replacement), fewer
     * under group-limited routing (comm_moe_fanout: 3.60 of 8). The message keeps k copies per
     * token: the share that moves is that count over k. */
    const double per_gpu = comm_moe_fanout(n, topk, groups, topk_groups) / topk;
    if (g >= n)
        return comm_alltoall_s(intra, net, ranks, domain, msg_bytes * per_gpu);
    /* a token's k copies land on D of the nodes (comm_moe_fanout over nodes: uniform routing
     * nodes (1 - (1 - 1/nodes)^k); the groups a node holds under group-limited routing, which
     * DeepSeek-V3 trained as node-limited routing, at most topk_groups nodes), each node alike,
     * so (nodes - 1) D / nodes of them other than the sender's; it crosses the network once to
     * each, then NVLink forwards it once to each destination GPU */
    const double nodes = n / g;
    const double remote = (nodes - 1.0) * comm_moe_fanout(nodes, topk, groups, topk_groups) / nodes;
    /* a skewed GPU draws its extra tokens through its node's NICs only where no other GPU of the
     * node would have (DeepEP's internode dispatch sends a token once per node, to the GPU of the
     * sender's local rank, which forwards it over NVLink: csrc/kernels/internode.cu), so the
     * network carries the mean message times the node's factor, not the GPU's (a review: F 1.5 at
     * EP 16 over 2 nodes had added 38% to the network time, where a token reaches the other node
     * 98.6% of the time already) */
    const double rf = recv_factor > 1.0 ? recv_factor : 1.0;
    const double t_net = msg_bytes / rf * comm_alltoall_node_factor(ranks, domain, topk, groups, topk_groups, rf) /
                         topk * remote / (net->bw_Bps * net->eff);
    const double t_in = (g - 1.0) / g * xfer_s(intra, msg_bytes * per_gpu);
    return net->latency_s + (t_in > t_net ? t_in : t_net);
}

double comm_pp_sends_s(const struct llmroof_link_model *intra, const struct llmroof_link_model *net,
                       int domain, int stage_gpus, double boundaries, double msg_bytes)
{
    /* a send goes to one peer: over a mesh, one of its links */
    const double per_link = intra->mesh_links > 0 ? (double)intra->mesh_links : 1.0;
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
         + (boundaries - crossing) * (intra->latency_s + per_link * xfer_s(intra, msg_bytes));
}
