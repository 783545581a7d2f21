/* cli_spec.h - the speculative-decoding options that simulate, estimate and plan share: --spec,
 * --spec-k, --spec-accept and --spec-tree, parsed, checked and resolved against the catalog
 * once for both (docs/metrics.md "Speculative decoding"). */
#ifndef LLMROOF_CLI_SPEC_H
#define LLMROOF_CLI_SPEC_H

#include <stdbool.h>

#include "cli/cli.h"
#include "serve/sim.h"

/* Option ids, apart from the commands' own (small) and the setup options' (CLI_SETUP_BASE). */
#define CLI_SPEC_BASE 900
enum { OPT_SPEC = CLI_SPEC_BASE, OPT_SPECK, OPT_SPECA, OPT_SPECT, OPT_SPECV, OPT_SPECC };
#define CLI_OPT_SPEC \
    { OPT_SPEC, "spec", 0, "METHOD", "speculative decoding: eagle, eagle3, mtp, medusa or draft:MODEL", false }, \
    { OPT_SPECK, "spec-k", 0, "K", "tokens proposed per step (default 3)", false }, \
    { OPT_SPECA, "spec-accept", 0, "A", "each draft token's acceptance given the ones before it, in [0, 1) (required with --spec): k 3 at 0.7 yields 2.53 tokens a step, vLLM's logged rate 0.51, SGLang's accept length 2.53", false }, \
    { OPT_SPECT, "spec-tree", 0, "TOPK:TOKENS", "a draft tree of --spec-k steps: TOPK candidates per node, TOKENS verified per step", false }, \
    { OPT_SPECV, "spec-draft-vocab", 0, "V", "eagle3: the draft head's vocabulary, its draft_vocab_size (default 32000, at most the model's)", false }, \
    { OPT_SPECC, "spec-draft-config", 0, "FILE", "eagle, eagle3: the draft head's config.json: its layer's heads, KV heads, head_dim, MLP width and draft vocabulary", false }

struct cli_spec_opts {
    const char *method;                    /* --spec, NULL: none */
    bool have_k, have_accept, have_tree, have_vocab; /* which of the other options were given */
    const char *config;                    /* --spec-draft-config FILE, NULL: none */
    struct llmroof_draft_head head;        /* its layer shape after cli_spec_resolve; heads 0: none */
    struct sim_spec spec;                  /* k, alpha, topk, tokens as given; kind and draft after
                                              cli_spec_resolve */
};
/* The simulator's defaults (sim_default_config: k 3, no method). */
void cli_spec_defaults(struct cli_spec_opts *o);
/* Handles the ids above: returns 0 or 2 after printing the error, 1 when id is not one of them. */
int cli_spec_opt(struct cli *c, struct cli_spec_opts *o, int id, const char *arg);
/* Before the catalog: an option of the family without --spec, --spec without --spec-accept.
 * Returns 0 or 2 after printing the error naming the option. */
int cli_spec_check(struct cli *c, const struct cli_spec_opts *o);
/* After the catalog, with --spec given: the method into o->spec.kind (draft:MODEL looked up into
 * o->spec.draft) and checked against the target m: an MTP module needs the model's, a draft is
 * not the target and shares its vocabulary, a tree holds the tokens it verifies; a
 * --spec-draft-config read into o->head against m (catalog_draft_head_from_hf), its vocabulary the
 * head's where --spec-draft-vocab is absent; a method the engine en (NULL: none) states it never ran
 * (its profile's "spec_methods") refused. Returns 0 or 2 after printing the error. */
int cli_spec_resolve(struct cli *c, struct cli_spec_opts *o, const struct llmroof_model *m, const struct llmroof_engine *en);
/* After cli_spec_resolve: one verification pass (a tree's tokens, the chain's --spec-k + 1) must fit
 * the token budget `budget`, which `whose` names in the message ("--max-batched-tokens", or where
 * it came from). Returns 0 or 2 after printing the error naming the option. */
int cli_spec_check_budget(struct cli *c, const struct cli_spec_opts *o, long budget, const char *whose);
/* Whether --spec names a draft model (draft:MODEL): its lookup needs the whole catalog. */
bool cli_spec_needs_catalog(const struct cli_spec_opts *o);
/* The resolved options as estimate's speculative decode (model/estimate.h): the drafter, the
 * positions verified and the expected tokens per step from the simulator's acceptance model
 * (sim_spec_tokens_per_step, or sim_spec_tree_tokens_per_step for a tree). */
struct llmroof_spec_decode cli_spec_decode(const struct cli_spec_opts *o);

#endif
