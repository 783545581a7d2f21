/* cli_spec.c - the speculative-decoding options of simulate, estimate and plan (see cli/cli_spec.h). */
#include "cli/cli_spec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/parse.h"
#include "model/arch.h"

void cli_spec_defaults(struct cli_spec_opts *o)
{
    struct sim_config d;
    sim_default_config(&d);
    memset(o, 0, sizeof *o);
    o->spec = d.spec;
}

int cli_spec_opt(struct cli *c, struct cli_spec_opts *o, int id, const char *arg)
{
    switch (id) {
    case OPT_SPEC: o->method = arg; return 0;
    case OPT_SPECK: {
        long v;
        o->have_k = true;
        int rc = cli_long(c, "spec-k", arg, 1, 64, &v);
        o->spec.k = (int)v;
        return rc;
    }
    case OPT_SPECA: {
        double a;
        o->have_accept = true;
        if (!parse_double(arg, &a) || !(a >= 0 && a < 1))
            return cli_usage_error(c, "option '--spec-accept': '%s' is not an acceptance rate in [0, 1)", CLI_CLIP(arg));
        o->spec.alpha = a;
        return 0;
    }
    case OPT_SPECT: {
        /* "TOPK:TOKENS": a draft tree (SGLang --speculative-eagle-topk, --speculative-num-draft-tokens) */
        char buf[64];
        snprintf(buf, sizeof buf, "%s", arg);
        char *colon = strchr(buf, ':');
        int64_t tk, tt;
        if (colon)
            *colon = '\0';
        if (!colon || !parse_int64(buf, 1, SIM_SPEC_TREE_MAX_TOPK, &tk) || !parse_int64(colon + 1, 2, 4096, &tt))
            return cli_usage_error(c, "option '--spec-tree': '%s' is not TOPK:TOKENS (topk in [1, %d], tokens verified "
                                      "per step in [2, 4096], e.g. 4:16)", arg, SIM_SPEC_TREE_MAX_TOPK);
        o->have_tree = true;
        o->spec.topk = (int)tk;
        o->spec.tokens = (int)tt;
        return 0;
    }
    case OPT_SPECC:
        o->config = arg;
        return cli_check_input(c, "spec-draft-config", arg);
    case OPT_SPECV: {
        long v;
        o->have_vocab = true;
        int rc = cli_long(c, "spec-draft-vocab", arg, 1, 100000000, &v);
        o->spec.draft_vocab = v;
        return rc;
    }
    }
    return 1;
}

int cli_spec_check(struct cli *c, const struct cli_spec_opts *o)
{
    if ((o->have_k || o->have_accept || o->have_tree || o->have_vocab || o->config) && !o->method)
        /* name the option given (the first of them), not the whole family */
        return cli_usage_error(c, "option '%s' describes speculative decoding: add --spec METHOD (eagle, eagle3, mtp, "
                                  "medusa or draft:MODEL)",
                               o->have_k        ? "--spec-k"
                               : o->have_accept ? "--spec-accept"
                               : o->have_tree   ? "--spec-tree"
                               : o->have_vocab  ? "--spec-draft-vocab"
                                                : "--spec-draft-config");
    if (o->have_vocab && strcmp(o->method, "eagle3") != 0)
        return cli_usage_error(c, "option '--spec-draft-vocab' sizes an EAGLE-3 head's own vocabulary: it needs --spec "
                                  "eagle3, not '%s' (EAGLE, MTP and Medusa heads draft over the model's vocabulary; a "
                                  "draft model has its own)",
                               CLI_CLIP(o->method));
    if (o->config && strcmp(o->method, "eagle3") != 0 && strcmp(o->method, "eagle") != 0)
        return cli_usage_error(c, "option '--spec-draft-config' shapes an EAGLE head's own decoder layer: it needs "
                                  "--spec eagle or eagle3, not '%s' (an MTP module is a layer of the model, Medusa's "
                                  "heads have no attention, a draft model is a catalog model)",
                               CLI_CLIP(o->method));
    if (o->method && !o->have_accept)
        return cli_usage_error(c, "option '--spec' needs the acceptance rate: add --spec-accept A (in [0, 1))");
    return 0;
}

int cli_spec_check_budget(struct cli *c, const struct cli_spec_opts *o, long budget, const char *whose)
{
    if (o->have_tree && budget < o->spec.tokens)
        return cli_usage_error(c, "option '--spec-tree': %d tokens verified per step need a budget of as many; %s is "
                                  "%ld", o->spec.tokens, whose, budget);
    if (!o->have_tree && budget < o->spec.k + 1L)
        return cli_usage_error(c, "option '--spec-k': %d proposals need a budget of %d tokens per step; %s is %ld",
                               o->spec.k, o->spec.k + 1, whose, budget);
    return 0;
}

bool cli_spec_needs_catalog(const struct cli_spec_opts *o)
{
    return o->method && strncmp(o->method, "draft:", 6) == 0;
}

/* --spec-draft-config: the head's config.json into o->head, checked against the target m and the
 * method (an EAGLE-3 config for eagle3, an EAGLE one for eagle) and --spec-draft-vocab */
static int read_config(struct cli *c, struct cli_spec_opts *o, const struct llmroof_model *m)
{
    struct llmroof_err err = { 0 };
    char *text;
    size_t len;
    const char *name = cli_input_name(o->config);
    /* a config.json is a few hundred bytes (SpecForge's are under 2 KB) */
    if (cli_read_input(c, "option '--spec-draft-config'", o->config, (size_t)1024 * 1024, &text, &len, &err))
        return cli_usage_error(c, "option '--spec-draft-config': %s", err.msg);
    const int rc = catalog_draft_head_from_hf(text, len, name, m, &o->head, &err);
    free(text);
    if (rc)
        return cli_usage_error(c, "option '--spec-draft-config': %s", err.msg);
    const bool e3 = o->spec.kind == SIM_SPEC_EAGLE3;
    if (o->head.eagle3 != e3)
        return cli_usage_error(c, "option '--spec-draft-config': %s: field 'architectures' %s, but --spec is %s; use "
                                  "--spec %s", CLI_CLIP(name),
                               o->head.eagle3 ? "names an EAGLE-3 head (an ...Eagle3 class or draft_vocab_size)"
                                              : "names no EAGLE-3 head (no ...Eagle3 class, no draft_vocab_size)",
                               o->method, o->head.eagle3 ? "eagle3" : "eagle");
    /* the flag and the config's vocabulary (draft_vocab_size, else vocab_size: an EAGLE-3 head
     * without the first drafts over the second) must agree where both are given; the message names
     * the field the vocabulary came from */
    if (e3 && o->have_vocab && o->head.vocab > 0 && o->head.vocab != o->spec.draft_vocab)
        return cli_usage_error(c, "option '--spec-draft-vocab': %ld tokens, but %s: field %s is %ld; give one of "
                                  "them, or the same value", o->spec.draft_vocab, CLI_CLIP(name),
                               o->head.vocab_drafted ? "'draft_vocab_size'"
                                                     : "'vocab_size' (no draft_vocab_size: the head drafts over it)",
                               o->head.vocab);
    return 0;
}

/* Whether engine e's profile states that it runs method `bit` (cli_engine_ids_with takes a plain
 * predicate: one per method) */
static bool runs(const struct llmroof_engine *e, unsigned bit)
{
    return e->spec_methods_stated && (e->spec_methods & bit);
}
static bool runs_draft(const struct llmroof_engine *e) { return runs(e, LLMROOF_SPECM_DRAFT); }
static bool runs_medusa(const struct llmroof_engine *e) { return runs(e, LLMROOF_SPECM_MEDUSA); }
static bool runs_eagle(const struct llmroof_engine *e) { return runs(e, LLMROOF_SPECM_EAGLE); }
static bool runs_eagle3(const struct llmroof_engine *e) { return runs(e, LLMROOF_SPECM_EAGLE3); }
static bool runs_mtp(const struct llmroof_engine *e) { return runs(e, LLMROOF_SPECM_MTP); }

/* A method the engine's profile states its releases never ran is refused, as --ep on an engine
 * without expert parallelism: its cost would be a design the engine does not have (EAGLE-3 under
 * vLLM 0.4, a review). A profile without "spec_methods" is not checked. */
static int engine_runs_method(struct cli *c, const struct cli_spec_opts *o, const struct llmroof_engine *en)
{
    static bool (*const pred[5])(const struct llmroof_engine *) = { runs_draft, runs_medusa, runs_eagle, runs_eagle3,
                                                                    runs_mtp };
    static const char *const says[5] = { "draft model", "Medusa heads", "EAGLE head", "EAGLE-3 head",
                                         "MTP drafting" };
    const enum sim_spec_kind k = o->spec.kind;
    const int bit = k == SIM_SPEC_DRAFT ? 0 : k == SIM_SPEC_MEDUSA ? 1 : k == SIM_SPEC_EAGLE ? 2 :
                    k == SIM_SPEC_EAGLE3 ? 3 : k == SIM_SPEC_MTP ? 4 : -1;
    if (!en || !en->spec_methods_stated || bit < 0 || (en->spec_methods & (1u << bit)))
        return 0;
    char id[LLMROOF_ID_MAX], has[96] = "", ok[512];
    snprintf(id, sizeof id, "%s", en->id); /* listing the engines may reload the catalog it lives in */
    for (int i = 0; i < 5; i++)
        if (en->spec_methods & (1u << i)) {
            const size_t n = strlen(has);
            snprintf(has + n, sizeof has - n, "%s%s", n ? ", " : "", llmroof_spec_method_names[i]);
        }
    cli_engine_ids_with(c, pred[bit], ok, sizeof ok);
    return cli_usage_error(c, "option '--spec %s': engine '%s' runs no %s (its profile's \"spec_methods\"%s%s); "
                              "%s%s%sor leave the option out", CLI_CLIP(o->method), id, says[bit],
                           has[0] ? ": " : " is empty: no speculative decoding", has,
                           ok[0] ? "pick one that does (" : "", ok, ok[0] ? ") " : "");
}

int cli_spec_resolve(struct cli *c, struct cli_spec_opts *o, const struct llmroof_model *m, const struct llmroof_engine *en)
{
    static const struct { const char *name; enum sim_spec_kind kind; } kinds[] = {
        { "eagle", SIM_SPEC_EAGLE }, { "eagle3", SIM_SPEC_EAGLE3 }, { "mtp", SIM_SPEC_MTP },
        { "medusa", SIM_SPEC_MEDUSA } };
    struct sim_spec *sp = &o->spec;
    sp->kind = SIM_SPEC_NONE;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(o->method, kinds[i].name) == 0)
            sp->kind = kinds[i].kind;
    if (sp->kind == SIM_SPEC_NONE && strncmp(o->method, "draft:", 6) == 0) {
        if (!o->method[6])
            return cli_usage_error(c, "option '--spec': 'draft:' names no draft model (expected draft:MODEL, a catalog "
                                      "model id)");
        sp->kind = SIM_SPEC_DRAFT;
        /* the option named, as every other --spec error (a bare "unknown model" had not said which) */
        if (!(sp->draft = catalog_find_model(&c->cat, o->method + 6))) {
            const char *sug[3];
            const size_t ns = catalog_suggest_models(&c->cat, o->method + 6, sug, 3);
            return cli_usage_error(c, "option '--spec': unknown draft model '%s' (see 'llmroof list models')%s%s%s%s%s",
                                   CLI_CLIP(o->method + 6), ns ? "; did you mean " : "", ns ? sug[0] : "",
                                   ns > 1 ? ", " : "", ns > 1 ? sug[1] : "", ns ? "?" : "");
        }
    } else if (sp->kind == SIM_SPEC_NONE) {
        return cli_usage_error(c, "option '--spec': '%s' is not eagle, eagle3, mtp, medusa or draft:MODEL", o->method);
    }
    int erc = engine_runs_method(c, o, en);
    if (erc)
        return erc;
    /* vLLM's and TGI's Medusa take one argmax per head, a chain (vLLM v1/spec_decode/medusa.py,
     * TGI's MedusaHead): a tree of candidates they never build would read EAGLE-2's tree
     * acceptance (a review: 3.60 tokens a step where the chain gives 2.53) */
    if (o->have_tree && sp->kind == SIM_SPEC_MEDUSA && en &&
        (strncmp(en->id, "vllm", 4) == 0 || strncmp(en->id, "tgi", 3) == 0))
        return cli_usage_error(c, "option '--spec-tree': engine '%s' runs Medusa's heads as a chain (one candidate "
                                  "a head), no tree; drop --spec-tree",
                               en->id);
    if (o->config) {
        int rc = read_config(c, o, m);
        if (rc)
            return rc;
    }
    if (sp->kind == SIM_SPEC_EAGLE3) {
        if (!o->have_vocab)
            sp->draft_vocab = o->head.vocab > 0 ? o->head.vocab : SIM_SPEC_EAGLE3_VOCAB;
        /* the head maps its tokens onto the target's (d2t): it cannot draft more than those */
        if (o->have_vocab && sp->draft_vocab > m->vocab)
            return cli_usage_error(c, "option '--spec-draft-vocab': %ld tokens is more than %s's vocabulary of %ld; an "
                                      "EAGLE-3 head drafts over a subset of the model's tokens",
                                   sp->draft_vocab, m->id, m->vocab);
        if (sp->draft_vocab > m->vocab)
            sp->draft_vocab = m->vocab; /* a model of fewer than 32,000 tokens: the head over all */
    }
    const struct llmroof_model *d = sp->draft;
    if (sp->kind == SIM_SPEC_MTP && m->mtp_layers < 1)
        return cli_usage_error(c, "option '--spec': mtp drafts with the model's multi-token-prediction layers, and %s "
                                  "has none (catalog field mtp_layers); use eagle, eagle3, medusa or draft:MODEL", m->id);
    if (d && (d == m || strcmp(d->id, m->id) == 0))
        return cli_usage_error(c, "option '--spec': the draft '%s' is the target model itself; a draft is a smaller "
                                  "model that shares its vocabulary", d->id);
    /* a draft proposes tokens for a larger target to verify: one as large or larger saves nothing
     * (the 8B target itself was refused, a 70B draft for it accepted; a review) */
    if (d && arch_params(d).total >= arch_params(m).total)
        return cli_usage_error(c, "option '--spec': the draft '%s' (%.1f B parameters) is not smaller than the target "
                                  "'%s' (%.1f B); a draft is a smaller model that shares its vocabulary",
                               d->id, arch_params(d).total / 1e9, m->id, arch_params(m).total / 1e9);
    if (d && d->vocab != m->vocab)
        return cli_usage_error(c, "option '--spec': the draft '%s' has a vocabulary of %ld tokens and the target '%s' "
                                  "%ld; a draft's tokens must be the target's (same tokenizer)", d->id, d->vocab, m->id,
                               m->vocab);
    const int ksteps = sp->k, ktop = sp->topk;
    if (o->have_tree && ksteps > SIM_SPEC_TREE_MAX_DEPTH)
        return cli_usage_error(c, "option '--spec-tree': a draft tree is at most %d steps deep, and --spec-k asks %d",
                               SIM_SPEC_TREE_MAX_DEPTH, ksteps);
    /* a chain verifies its root and each of its k drafts: a count of its own would draft passes
     * never verified, or verify drafts never made (SGLang sets speculative_num_draft_tokens to
     * steps + 1 for topk 1, server_args.py, with a warning); a reviewer's --spec-k 16 --spec-tree
     * 1:2 had charged 16 draft passes for 2 verified tokens */
    if (o->have_tree && ktop == 1 && sp->tokens != ksteps + 1)
        return cli_usage_error(c, "option '--spec-tree': a chain (topk 1) of %d steps (--spec-k) verifies %d tokens a "
                                  "step, its root and each draft, not %d: use 1:%d or another --spec-k",
                               ksteps, ksteps + 1, sp->tokens, ksteps + 1);
    if (o->have_tree && sp->tokens > 1 + ktop + (ksteps - 1) * ktop * ktop)
        return cli_usage_error(c, "option '--spec-tree': a tree of %d steps (--spec-k) with topk %d holds at most %d "
                                  "tokens to verify (1 + topk + (steps - 1) x topk^2); got %d",
                               ksteps, ktop, 1 + ktop + (ksteps - 1) * ktop * ktop, sp->tokens);
    return 0;
}

struct llmroof_spec_decode cli_spec_decode(const struct cli_spec_opts *o)
{
    return sim_spec_decode(&o->spec, &o->head);
}
