/* sim_spec.c - speculative decoding's expected acceptance: a chain of k drafts (Leviathan et al.
 * 2023) or a draft tree (EAGLE-2's dynamic draft tree, Li et al. 2024, as SGLang's
 * --speculative-eagle-topk and --speculative-num-draft-tokens build it). Pure arithmetic. */
#include "serve/sim.h"

#include "model/ckpt.h"

#include <math.h>
#include <stdlib.h>

double sim_spec_state_copies(const struct sim_spec *sp)
{
    if (sp->kind == SIM_SPEC_NONE)
        return 0.0;
    return sp->tokens > 0 ? (double)(sp->tokens - 1) : (double)sp->k;
}

long sim_spec_verify_tokens(const struct sim_spec *sp)
{
    if (sp->kind == SIM_SPEC_NONE)
        return 1;
    return sp->tokens > 0 ? sp->tokens : sp->k + 1L;
}

double sim_spec_tokens_per_step(int k, double alpha)
{
    /* expected accepted drafts + the target's own token: sum_{i=0..k} alpha^i */
    if (k < 1)
        return 1.0;
    if (alpha <= 0)
        return 1.0;
    return (1.0 - pow(alpha, (double)k + 1.0)) / (1.0 - alpha);
}

/* A node of the draft tree: its value (the probability that it and every ancestor are
 * accepted) and its depth; `order` breaks ties in the order of generation. */
struct tnode {
    double v;
    int depth;
    int order;
};

static int by_value(const void *pa, const void *pb)
{
    const struct tnode *a = pa, *b = pb;
    if (a->v != b->v)
        return a->v > b->v ? -1 : 1;
    if (a->depth != b->depth)
        return a->depth < b->depth ? -1 : 1;
    return (a->order > b->order) - (a->order < b->order);
}

int sim_spec_tree_tail(int depth, int topk, int tokens, double alpha, double *tail)
{
    if (depth < 1 || depth > SIM_SPEC_TREE_MAX_DEPTH || topk < 1 || topk > SIM_SPEC_TREE_MAX_TOPK || tokens < 2 ||
        !(alpha >= 0 && alpha < 1))
        return -1;
    for (int d = 0; d <= depth; d++)
        tail[d] = d == 0 ? 1.0 : 0.0;
    /* the candidates: topk children of the root, then topk children of each of the topk
     * frontier nodes per further step */
    const int cap = topk + (depth - 1) * topk * topk;
    if (tokens - 1 > cap)
        return -1;
    struct tnode *pool = malloc(sizeof *pool * (size_t)cap);
    struct tnode *front = malloc(sizeof *front * (size_t)topk * (size_t)topk);
    if (!pool || !front) {
        free(pool);
        free(front);
        return -2;
    }
    /* q[r]: the rank-r candidate is the target's token (Sequoia's positional acceptance vector,
     * Chen et al. 2024 section 3.1, with every entry alpha: the r-th candidate is accepted with
     * probability alpha when the r - 1 before it were not) */
    double q[SIM_SPEC_TREE_MAX_TOPK];
    for (int r = 0; r < topk; r++)
        q[r] = alpha * pow(1.0 - alpha, (double)r);
    int n = 0, nf = 1;
    front[0] = (struct tnode){ 1.0, 0, 0 };
    for (int d = 1; d <= depth; d++) {
        int first = n;
        for (int f = 0; f < nf; f++)
            for (int r = 0; r < topk; r++) {
                pool[n] = (struct tnode){ front[f].v * q[r], d, n };
                n++;
            }
        /* EAGLE-2 expands the topk nodes of the new layer with the highest value */
        int cand = n - first;
        for (int i = 0; i < cand; i++)
            front[i] = pool[first + i];
        qsort(front, (size_t)cand, sizeof *front, by_value);
        nf = cand < topk ? cand : topk;
    }
    /* EAGLE-2's reranking: the tokens - 1 candidates of highest value are verified (with the
     * target's own position, `tokens` per sequence); a child's value never exceeds its parent's,
     * so the chosen set holds every chosen node's ancestors */
    qsort(pool, (size_t)n, sizeof *pool, by_value);
    for (int i = 0; i < tokens - 1; i++)
        tail[pool[i].depth] += pool[i].v;
    free(pool);
    free(front);
    return 0;
}

double sim_spec_expected_tokens(const struct sim_spec *sp)
{
    if (sp->kind == SIM_SPEC_NONE)
        return 1.0;
    return sp->tokens > 0 ? sim_spec_tree_tokens_per_step(sp->k, sp->topk, sp->tokens, sp->alpha)
                          : sim_spec_tokens_per_step(sp->k, sp->alpha);
}

double sim_spec_tree_tokens_per_step(int depth, int topk, int tokens, double alpha)
{
    double tail[SIM_SPEC_TREE_MAX_DEPTH + 1];
    if (sim_spec_tree_tail(depth, topk, tokens, alpha, tail))
        return 1.0;
    double s = 0;
    for (int d = 0; d <= depth; d++)
        s += tail[d];
    return s;
}

struct llmroof_spec_decode sim_spec_decode(const struct sim_spec *sp, const struct llmroof_draft_head *head)
{
    const bool tree = sp->tokens > 0;
    struct llmroof_spec_decode d = { 0 };
    d.drafter = sp->kind == SIM_SPEC_DRAFT ? LLMROOF_DRAFTER_MODEL
              : sp->kind == SIM_SPEC_MEDUSA ? LLMROOF_DRAFTER_MEDUSA
                                            : LLMROOF_DRAFTER_HEAD;
    d.method = sim_spec_name(sp->kind);
    d.draft = sp->draft;
    d.steps = sp->k;
    d.accept = sp->alpha;
    d.topk = tree ? sp->topk : 0;
    d.verify = (int)sim_spec_verify_tokens(sp);
    /* the simulator's expected acceptance: its mean tokens per step over a long run */
    d.tokens_per_step = sim_spec_expected_tokens(sp);
    d.eagle3_vocab = sp->kind == SIM_SPEC_EAGLE3 ? sp->draft_vocab : 0;
    d.eagle = sp->kind == SIM_SPEC_EAGLE || sp->kind == SIM_SPEC_EAGLE3;
    if (d.eagle && head)
        d.head = *head;
    return d;
}

struct llmroof_dtypes sim_spec_drafter_dtypes(const struct sim_spec *sp, const struct llmroof_draft_head *head,
                                             const struct llmroof_dtypes *target)
{
    const bool apart = sp->kind == SIM_SPEC_EAGLE || sp->kind == SIM_SPEC_EAGLE3 || sp->kind == SIM_SPEC_MEDUSA;
    const bool model = sp->kind == SIM_SPEC_DRAFT && sp->draft;
    return ckpt_drafter_dtypes(target, model ? sp->draft : NULL, apart, head);
}

struct llmroof_dtypes sim_drafter_dtypes(const struct sim_config *c)
{
    return sim_spec_drafter_dtypes(&c->spec, &c->spec_head, &c->setup.dt);
}
