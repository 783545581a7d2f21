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

#endif
