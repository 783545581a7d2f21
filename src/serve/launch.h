/* launch.h - the engine commands that run one planned layout (docs/planning.md, "Launch
 * commands"): vLLM, SGLang and TensorRT-LLM, one command per instance kind (a disaggregated
 * plan has a prefill and a decode kind), with the number of instances of each. Pure string
 * building from the plan's option: no I/O. Flags follow each engine's argument list at the
 * version docs/planning.md names; a setting an engine has no flag for is left out and said
 * in the command's note, never invented. */
#ifndef LLMROOF_LAUNCH_H
#define LLMROOF_LAUNCH_H

#include "serve/plan.h"

#define LAUNCH_MAX 6 /* 3 engines x (aggregated | prefill + decode) */

struct launch_cmd {
    const char *engine;     /* "vllm", "sglang" or "trtllm" (static) */
    const char *role;       /* "serve", "prefill" or "decode" (static) */
    long instances;         /* how many copies of this command the plan runs */
    int gpus_per_instance;  /* GPUs one copy uses */
    char cmd[896];          /* the command line */
    char note[800];         /* what the command leaves out and why; "" when nothing */
};

struct launch_set {
    struct launch_cmd c[LAUNCH_MAX];
    int n;
};

/* Which commands a plan simulated with engine profile en can honestly print: all three when it
 * names none (the generic profile), that engine's alone when it is the profile of a vLLM, SGLang
 * or TensorRT-LLM release whose flags the commands use (another engine's command would carry
 * limits it was not simulated with, at a speed it was not simulated at; an older release's, flags
 * it never had), none for any other profile (vllm-0.2, LMDeploy, TGI, llama.cpp, ...). */
enum { LAUNCH_VLLM = 0, LAUNCH_SGLANG = 1, LAUNCH_TRTLLM = 2, LAUNCH_ALL = 3, LAUNCH_NONE = 4 };
int launch_engine_family(const struct llmroof_engine *en);
/* Whether DeepEP, the all-to-all llmroof costs for expert parallelism, runs on GPU g: NVIDIA
 * Hopper or Blackwell joined by NVLink (its README: SM90, NVSHMEM; SGLang's path needs DeepGEMM) */
bool launch_deepep_runs(const struct llmroof_gpu *g);

/* Commands for option o of a plan made with in. A model without a HuggingFace repository id
 * in the catalog gets its catalog id as MODEL, and a note says so. */
void launch_build(const struct plan_input *in, const struct plan_option *o, struct launch_set *out);

#endif
