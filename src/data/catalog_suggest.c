/* catalog_suggest.c - names as people write them: the other names a lookup resolves to one entry
 * (a name folded, a repository, nvidia-smi's), and "did you mean": the catalog's ids nearest a
 * mistyped name, by folded edit distance, substrings and words (docs/catalog.md). */
#include "data/catalog_internal.h"
#include "base/parse.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* ------------------------------------------------------------------------ */
/* Lookup and suggestions                                                   */
/* ------------------------------------------------------------------------ */

/* Suggestions compare names the way a person reads them: "Llama_3.1_8B", "llama3.1-8b" and
 * "llama-3.1-8b" are one name. A name is folded to its letters and digits, lowercased (bytes
 * of UTF-8 sequences kept); a folded name longer than SUGGEST_FOLD_MAX bytes is suggested
 * nothing (no catalog name is that long, and a 300-byte paste is not a typo). */
#define SUGGEST_FOLD_MAX PARSE_OSA_MAX /* a folded name is always one parse_osa_distance compares */

/* Folds the len bytes at s onto the n bytes already in out (SUGGEST_FOLD_MAX + 1 bytes); returns
 * the new length, or SIZE_MAX when too long. */
static size_t fold_append(const char *s, size_t len, char *out, size_t n)
{
    for (const unsigned char *p = (const unsigned char *)s; p < (const unsigned char *)s + len && *p; p++) {
        bool ascii_alnum = (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z');
        if (*p < 0x80 && !ascii_alnum)
            continue;
        if (n == SUGGEST_FOLD_MAX)
            return SIZE_MAX;
        out[n++] = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
    }
    out[n] = '\0';
    return n;
}

/* Folds s into out (SUGGEST_FOLD_MAX + 1 bytes); returns its length, or SIZE_MAX when too long. */
static size_t fold_name(const char *s, char *out)
{
    return fold_append(s, strlen(s), out, 0);
}

static bool has_substring(const char *hay, size_t lh, const char *needle, size_t ln)
{
    for (size_t i = 0; ln && i + ln <= lh; i++)
        if (memcmp(hay + i, needle, ln) == 0)
            return true;
    return false;
}

/* Score of folded candidate c for folded query q, lower is better, < 0 no match. The tiers,
 * each a band of 20 ordered by how many characters differ:
 *   0       the same name once folded (TensorRT_LLM for tensorrt-llm)
 *   10      one edit (a typo: vlm for vllm, h100x for h100)
 *   20..39  q starts c: a name cut short (H100-SXM for h100-sxm5-80gb, llamacpp)
 *   40, 50  two or three edits, allowed from 8 and 12 folded characters on
 *   60..79  c starts q, c at least a third of q: a version or suffix added (sglang-0.4,
 *           qwen3-8b-instruct)
 *   80..99  q inside c, q at least 3 characters (4090 for rtx-4090)
 *   100..119 c inside q, c at least 4 characters and half of q (meta-llama-3-8b)
 * The edit allowance is a quarter of the query, 1 to 3: one edit in "vlm" is "vllm", two
 * would also be "calm". name_like: c is a display name or repository, not a typed id: the
 * same name, a cut-short one, or one with a suffix (of 6 characters or more: Qwen/Qwen3-8B
 * in Qwen/Qwen3-8B-Instruct) count; an id's typos are not a display name's. */
static int fold_score(const char *q, size_t lq, const char *c, size_t lc, bool name_like)
{
    if (lq == 0 || lc == 0)
        return -1;
    if (lq == lc && memcmp(q, c, lq) == 0)
        return 0;
    size_t limit = lq / 4;
    limit = limit < 1 ? 1 : limit > 3 ? 3 : limit;
    size_t gap = lq > lc ? lq - lc : lc - lq;
    int d = name_like || gap > limit ? -1 : parse_osa_distance(q, lq, c, lc);
#define BAND(base, k) ((base) + (int)((k) < 19 ? (k) : 19))
    if (d == 1)
        return 10;
    if (lq >= (name_like ? 3u : 2u) && lq < lc && memcmp(q, c, lq) == 0)
        return BAND(20, lc - lq);
    if (d >= 2 && (size_t)d <= limit)
        return d == 2 ? 40 : 50;
    if (lc >= (name_like ? 6u : 3u) && lc < lq && lq <= 3 * lc && memcmp(q, c, lc) == 0)
        return BAND(60, lq - lc);
    if (name_like)
        return -1;
    if (lq >= 3 && lq < lc && has_substring(c, lc, q, lq))
        return BAND(80, lc - lq);
    if (lc >= 4 && lc < lq && 2 * lc >= lq && has_substring(q, lq, c, lc))
        return BAND(100, lq - lc);
#undef BAND
    return -1;
}

/* The query as folded, plus (for engines) the form with a family's short name spelled out, and
 * the query as typed, lowercased, whose words (runs of ASCII letters and digits) a candidate may
 * hold all of. */
struct suggest_query {
    char q[2][SUGGEST_FOLD_MAX + 1];
    size_t lq[2];
    int n;
    char raw[SUGGEST_FOLD_MAX + 1];
    int words;
};

/* The next word of s from *p (a run of ASCII letters and digits), lowercased into w; false at
 * the end. */
static bool ascii_alnum(char ch)
{
    return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

static bool next_word(const char *s, size_t *p, char *w, size_t size)
{
    size_t i = *p, n = 0;
    while (s[i] && !ascii_alnum(s[i]))
        i++;
    if (!s[i])
        return false;
    while (s[i] && ascii_alnum(s[i])) {
        if (n + 1 < size)
            w[n++] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] - 'A' + 'a' : s[i]);
        i++;
    }
    w[n] = '\0';
    *p = i;
    return true;
}

/* Every word of the query is a word of cand: "a100-80gb" names a100-sxm4-80gb and a100-pcie-80gb,
 * which the folded distances missed for a100-sxm4-40gb, one digit away ("a10080gb" against
 * "a10040gb"): the words carry the meaning, a memory size among them (a review). */
static bool words_within(const struct suggest_query *sq, const char *cand)
{
    if (sq->words < 2)
        return false;
    char w[SUGGEST_FOLD_MAX + 1], v[SUGGEST_FOLD_MAX + 1];
    size_t p = 0;
    while (next_word(sq->raw, &p, w, sizeof w)) {
        bool found = false;
        size_t r = 0;
        while (!found && next_word(cand, &r, v, sizeof v))
            found = strcmp(w, v) == 0;
        if (!found)
            return false;
    }
    return true;
}

/* Short forms people type for an engine whose ids spell the name out: "trt" for TensorRT
 * (TensorRT-LLM's own tools are trtllm-build and trtllm-serve). Replaces the folded query's
 * start; the catalog's engine ids cannot say this by themselves. */
static const struct {
    const char *shortname, *full;
} engine_short_names[] = {
    { "trt", "tensorrt" },
};

static bool suggest_query_init(struct suggest_query *sq, const char *name, bool engines)
{
    sq->n = 0;
    sq->lq[0] = fold_name(name, sq->q[0]);
    if (sq->lq[0] == SIZE_MAX || sq->lq[0] == 0)
        return false;
    sq->n = 1;
    snprintf(sq->raw, sizeof sq->raw, "%s", name);
    sq->words = 0;
    char w[SUGGEST_FOLD_MAX + 1];
    for (size_t p = 0; next_word(sq->raw, &p, w, sizeof w);)
        sq->words++;
    for (size_t i = 0; engines && i < sizeof engine_short_names / sizeof engine_short_names[0]; i++) {
        size_t ls = strlen(engine_short_names[i].shortname), lf = strlen(engine_short_names[i].full);
        if (strncmp(sq->q[0], engine_short_names[i].shortname, ls) == 0 &&
            strncmp(sq->q[0], engine_short_names[i].full, lf) != 0 && sq->lq[0] - ls + lf <= SUGGEST_FOLD_MAX) {
            memcpy(sq->q[1], engine_short_names[i].full, lf);
            memcpy(sq->q[1] + lf, sq->q[0] + ls, sq->lq[0] - ls + 1);
            sq->lq[1] = sq->lq[0] - ls + lf;
            sq->n = 2;
            break;
        }
    }
    return true;
}

/* Best score of candidate name cand for the query; an expanded short name costs 1, a display
 * name or repository 2. */
static int suggest_score(const struct suggest_query *sq, const char *cand, bool name_like)
{
    char c[SUGGEST_FOLD_MAX + 1];
    size_t lc = fold_name(cand, c);
    if (lc == SIZE_MAX)
        return -1;
    /* all the query's words in an id or alias: before a one-edit neighbour (10); not in a display
     * name or repository, whose longer spellings hold the words of their variants too
     * ("meta-llama/Llama-2-7b-chat-hf" holds every word of Llama-2-7B's repository) */
    int best = !name_like && words_within(sq, cand) ? 5 : -1;
    for (int i = 0; i < sq->n; i++) {
        int s = fold_score(sq->q[i], sq->lq[i], c, lc, name_like);
        if (s >= 0) {
            s += i + (name_like ? 2 : 0);
            if (best < 0 || s < best)
                best = s;
        }
    }
    return best;
}

static void insert_best(const char **out, int *scores, size_t *n, size_t max, const char *id, int score)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp(out[i], id) == 0) {
            if (score < scores[i])
                scores[i] = score;
            else
                return;
            /* re-sort below */
            for (size_t a = i; a > 0 && (scores[a] < scores[a - 1]); a--) {
                const char *t = out[a]; out[a] = out[a - 1]; out[a - 1] = t;
                int s = scores[a]; scores[a] = scores[a - 1]; scores[a - 1] = s;
            }
            return;
        }
    size_t pos = *n;
    while (pos > 0 && (scores[pos - 1] > score || (scores[pos - 1] == score && strcmp(out[pos - 1], id) > 0)))
        pos--;
    if (pos >= max)
        return;
    size_t last = *n < max ? *n : max - 1;
    for (size_t i = last; i > pos; i--) {
        out[i] = out[i - 1];
        scores[i] = scores[i - 1];
    }
    out[pos] = id;
    scores[pos] = score;
    if (*n < max)
        (*n)++;
}

/* One candidate name of entry id: scored and kept among the best max. */
#define SUGGEST_TRY(sq, cand, name_like, id)                                                                           \
    do {                                                                                                               \
        int s_ = suggest_score((sq), (cand), (name_like));                                                             \
        if (s_ >= 0)                                                                                                   \
            insert_best(out, scores, &n, max, (id), s_);                                                               \
    } while (0)

/* The query, and max capped at the 16 scores the callers keep; false: nothing to suggest. */
static bool suggest_begin(struct suggest_query *sq, const char *name, bool engine, size_t *max)
{
    if (*max > 16)
        *max = 16;
    return *max > 0 && suggest_query_init(sq, name, engine);
}

size_t catalog_suggest_gpus(const struct llmroof_catalog *cat, const char *name, const char **out, size_t max)
{
    int scores[16];
    size_t n = 0;
    struct suggest_query sq;
    if (!suggest_begin(&sq, name, false, &max))
        return 0;
    for (size_t i = 0; i < cat->n_gpus; i++) {
        const struct llmroof_gpu *g = &cat->gpus[i];
        SUGGEST_TRY(&sq, g->id, false, g->id);
        for (int a = 0; a < g->n_aliases; a++)
            SUGGEST_TRY(&sq, g->aliases[a], false, g->id);
        SUGGEST_TRY(&sq, g->name, true, g->id);
    }
    return n;
}

size_t catalog_suggest_engines(const struct llmroof_catalog *cat, const char *name, const char **out, size_t max)
{
    int scores[16];
    size_t n = 0;
    struct suggest_query sq;
    if (!suggest_begin(&sq, name, true, &max))
        return 0;
    for (size_t i = 0; i < cat->n_engines; i++) {
        const struct llmroof_engine *e = &cat->engines[i];
        SUGGEST_TRY(&sq, e->id, false, e->id);
        SUGGEST_TRY(&sq, e->name, true, e->id); /* "vLLM (V1 engine, 0.14+ ...)" answers vllm-v1 */
        for (int a = 0; a < e->n_aliases; a++)
            SUGGEST_TRY(&sq, e->aliases[a], false, e->id); /* "vllm-0.9.1" is near "vllm-0.9" */
    }
    return n;
}

size_t catalog_suggest_models(const struct llmroof_catalog *cat, const char *name, const char **out, size_t max)
{
    int scores[16];
    size_t n = 0;
    struct suggest_query sq;
    if (!suggest_begin(&sq, name, false, &max))
        return 0;
    for (size_t i = 0; i < cat->n_models; i++) {
        const struct llmroof_model *m = &cat->models[i];
        SUGGEST_TRY(&sq, m->id, false, m->id);
        SUGGEST_TRY(&sq, m->name, true, m->id);
        if (m->hf_id[0]) { /* "meta-llama/Llama-2-7b-hf", whole or after the owner */
            const char *slash = strchr(m->hf_id, '/');
            SUGGEST_TRY(&sq, m->hf_id, true, m->id);
            if (slash)
                SUGGEST_TRY(&sq, slash + 1, true, m->id);
        }
    }
    return n;
}
#undef SUGGEST_TRY

/* ------------------------------------------------------------------------ */
/* Names people type or copy                                                */
/* ------------------------------------------------------------------------ */

/* catalog_find_gpu and catalog_find_model take, after an id or alias, the names a person types or
 * copies from a model hub or nvidia-smi (docs/catalog.md "Names llmroof resolves"), compared
 * folded as the suggestions compare them, when one entry alone has the name. Words (runs between
 * '-', '_' and ' ') that say nothing of the cost may be left out before folding; a word that
 * does - a quantization (FP8, AWQ), a version (v0.2) - never is, so "Llama-3.1-70B-Instruct-FP8"
 * stays unknown rather than taken for the 16-bit model. */
enum drop_words {
    DROP_TUNE = 1,   /* Instruct, Chat, it: an instruction or chat fine-tune has its base model's shapes */
    DROP_HF = 2,     /* a last word hf: "meta-llama/Llama-2-7b-hf" is Llama-2-7B in transformers' format */
    DROP_VENDOR = 4, /* a first word NVIDIA or AMD, and GeForce, Instinct, Tesla: nvidia-smi's and
                        rocm-smi's names ("NVIDIA GeForce RTX 4090", "AMD Instinct MI300X") */
    DROP_MEMORY = 8, /* a last word NNGB or NNGiB ("L40S 48GB"): the entry's memory must be NN */
    DROP_META = 16,  /* a repository's owner ("meta-llama/") and a first word Meta: Meta's Llama 3 and
                        3.1 repositories were first named Meta-Llama-3-8B and Meta-Llama-3.1-8B-Instruct
                        (since renamed Llama-3.1-8B-Instruct), names still in scripts and papers */
};

static bool word_sep(char ch)
{
    return ch == '-' || ch == '_' || ch == ' ';
}

static bool word_is(const char *w, size_t n, const char *word)
{
    return strlen(word) == n && strncasecmp(w, word, n) == 0;
}

/* NN of a word "NNGB" or "NNGiB" (any case), else 0. */
static long memory_word_GB(const char *w, size_t n)
{
    size_t d = 0;
    long v = 0;
    while (d < n && d < 6 && w[d] >= '0' && w[d] <= '9')
        v = 10 * v + (w[d++] - '0');
    return d > 0 && (word_is(w + d, n - d, "gb") || word_is(w + d, n - d, "gib")) ? v : 0;
}

/* Whether the word w (n bytes, the index-th of the name, the last when last) is one of drop. */
static bool word_dropped(const char *w, size_t n, size_t index, bool last, unsigned drop)
{
    if ((drop & DROP_TUNE) && (word_is(w, n, "instruct") || word_is(w, n, "chat") || word_is(w, n, "it")))
        return true;
    if ((drop & DROP_HF) && last && index > 0 && word_is(w, n, "hf"))
        return true;
    if ((drop & DROP_META) && index == 0 && !last && word_is(w, n, "meta"))
        return true;
    if ((drop & DROP_VENDOR) && ((index == 0 && (word_is(w, n, "nvidia") || word_is(w, n, "amd"))) ||
                                 word_is(w, n, "geforce") || word_is(w, n, "instinct") || word_is(w, n, "tesla")))
        return true;
    return (drop & DROP_MEMORY) && last && index > 0 && memory_word_GB(w, n) > 0;
}

/* Folds s into out (SUGGEST_FOLD_MAX + 1 bytes) without the words of drop; *memory_GB (may be
 * NULL) the NN of a memory word left out, else 0. The folded length, or SIZE_MAX when too long. */
static size_t fold_words(const char *s, unsigned drop, char *out, long *memory_GB)
{
    size_t n = 0, index = 0;
    const char *p = s;
    if (drop & DROP_META) { /* the repository's name, after its owner */
        const char *slash = strrchr(s, '/');
        p = slash ? slash + 1 : s;
    }
    out[0] = '\0';
    if (memory_GB)
        *memory_GB = 0;
    while (*p) {
        while (word_sep(*p))
            p++;
        const char *w = p;
        while (*p && !word_sep(*p))
            p++;
        const char *rest = p;
        while (word_sep(*rest))
            rest++;
        if (p == w)
            break;
        if (word_dropped(w, (size_t)(p - w), index++, !*rest, drop)) {
            if ((drop & DROP_MEMORY) && memory_GB && !*rest)
                *memory_GB = memory_word_GB(w, (size_t)(p - w));
            continue;
        }
        if ((n = fold_append(w, (size_t)(p - w), out, n)) == SIZE_MAX)
            return SIZE_MAX;
    }
    return n;
}

/* Whether name folds to q (lq bytes) once the words of drop are left out. */
static bool folds_to(const char *name, unsigned drop, const char *q, size_t lq)
{
    char c[SUGGEST_FOLD_MAX + 1];
    return fold_words(name, drop, c, NULL) == lq && memcmp(c, q, lq) == 0;
}

/* An entry's names, as the resolution reads them (GPU or model). */
struct entry_names {
    const char *id, *name;
    const char (*aliases)[LLMROOF_ID_MAX]; /* GPUs' aliases; NULL: none */
    int n_aliases;
    const char *hf_id;   /* a model's repository, "owner/name"; "" none */
    double memory_bytes; /* a GPU's memory; 0: not a GPU */
};

/* One way of reading a query: the words left out of it, and out of the entries' names. */
struct reading {
    unsigned query_drop, names_drop;
};

/* A model's names as they stand, then without the fine-tune words (on both sides: "Qwen/Qwen2.5-7B"
 * is the base repository of Qwen2.5-7B-Instruct), then the query's repository name also without a
 * first word Meta ("meta-llama/Meta-Llama-3.1-8B-Instruct" is Llama-3.1-8B-Instruct). A GPU's with the vendor's words left out, then
 * also the memory word of the query. */
static const struct reading model_readings[] = { { 0, 0 }, { DROP_TUNE, DROP_TUNE }, { DROP_TUNE | DROP_META, DROP_TUNE } };
static const struct reading gpu_readings[] = { { DROP_VENDOR, DROP_VENDOR }, { DROP_VENDOR | DROP_MEMORY, DROP_VENDOR } };

/* Whether memory_bytes is NN GB: NN GiB or NN decimal GB, rounded (the catalog writes "80 GB" as
 * 80 GiB and H100 NVL's 94 GB as 94 GiB, vendors' GB are decimal). */
static bool memory_is_GB(double memory_bytes, long GB)
{
    return memory_bytes > 0 && (lround(memory_bytes / 1073741824.0) == GB || lround(memory_bytes / 1e9) == GB);
}

/* Whether entry e has a name that folds to q (lq bytes) in reading r; memory_GB, when not 0, must
 * be its memory. A repository is read whole and after its owner, each also without a last "hf". */
static bool entry_has(const struct entry_names *e, unsigned drop, const char *q, size_t lq, long memory_GB)
{
    if (memory_GB && !memory_is_GB(e->memory_bytes, memory_GB))
        return false;
    if (folds_to(e->id, drop, q, lq) || folds_to(e->name, drop, q, lq))
        return true;
    for (int a = 0; a < e->n_aliases; a++)
        if (folds_to(e->aliases[a], drop, q, lq))
            return true;
    if (!e->hf_id[0])
        return false;
    const char *repo = strchr(e->hf_id, '/');
    return folds_to(e->hf_id, drop, q, lq) || folds_to(e->hf_id, drop | DROP_HF, q, lq) ||
           (repo && (folds_to(repo + 1, drop, q, lq) || folds_to(repo + 1, drop | DROP_HF, q, lq)));
}

typedef void (*names_fn)(const struct llmroof_catalog *cat, size_t i, struct entry_names *out);

/* The index of the entry (of n, named by names) that name finds: `exact` (an id or alias, or
 * SIZE_MAX), else the one entry that has name in the first reading that finds any; SIZE_MAX when
 * none does, or when two entries answer the same reading (the suggestions list them). *how (may
 * be NULL): how it was found. */
static size_t resolve(const struct llmroof_catalog *cat, size_t n, names_fn names, const struct reading *readings,
                      size_t n_readings, const char *name, size_t exact, enum llmroof_match *how)
{
    char q[SUGGEST_FOLD_MAX + 1], prev[SUGGEST_FOLD_MAX + 1] = "";
    size_t found = SIZE_MAX, lprev = SIZE_MAX;
    struct entry_names e;
    if (how)
        *how = exact != SIZE_MAX ? LLMROOF_MATCH_ID : LLMROOF_MATCH_NONE;
    if (exact != SIZE_MAX)
        return exact;
    for (size_t r = 0; r < n_readings && found == SIZE_MAX; r++) {
        long memory_GB;
        size_t lq = fold_words(name, readings[r].query_drop, q, &memory_GB);
        /* nothing left, too long, or the previous reading again (a query without such words) */
        if (lq == 0 || lq == SIZE_MAX ||
            (r > 0 && lq == lprev && !memory_GB && readings[r].names_drop == readings[r - 1].names_drop &&
             memcmp(q, prev, lq) == 0))
            continue;
        for (size_t i = 0; i < n; i++) {
            names(cat, i, &e);
            if (!entry_has(&e, readings[r].names_drop, q, lq, memory_GB))
                continue;
            if (found != SIZE_MAX)
                return SIZE_MAX; /* two entries: the name is no one's */
            found = i;
        }
        memcpy(prev, q, lq + 1);
        lprev = lq;
    }
    if (found == SIZE_MAX || !how)
        return found;
    /* the first reading's query against the id and aliases alone: "llama3.1-70b" and "NVIDIA
     * A100-SXM4-80GB" spell an id; a display name, a repository, a word left out beyond the
     * vendor's name another name */
    names(cat, found, &e);
    size_t lq = fold_words(name, readings[0].query_drop, q, NULL);
    bool spelling = folds_to(e.id, readings[0].names_drop, q, lq);
    for (int a = 0; !spelling && a < e.n_aliases; a++)
        spelling = folds_to(e.aliases[a], readings[0].names_drop, q, lq);
    *how = spelling ? LLMROOF_MATCH_SPELLING : LLMROOF_MATCH_NAME;
    return found;
}

static void gpu_names(const struct llmroof_catalog *cat, size_t i, struct entry_names *out)
{
    const struct llmroof_gpu *g = &cat->gpus[i];
    *out = (struct entry_names){ g->id, g->name, g->aliases, g->n_aliases, "", g->memory_bytes };
}

static void model_names(const struct llmroof_catalog *cat, size_t i, struct entry_names *out)
{
    const struct llmroof_model *m = &cat->models[i];
    *out = (struct entry_names){ m->id, m->name, NULL, 0, m->hf_id, 0 };
}

const struct llmroof_gpu *catalog_match_gpu(const struct llmroof_catalog *cat, const char *name,
                                            enum llmroof_match *how)
{
    const struct llmroof_gpu *g = catalog_find_gpu_exact(cat, name);
    size_t i = resolve(cat, cat->n_gpus, gpu_names, gpu_readings, sizeof gpu_readings / sizeof gpu_readings[0], name,
                       g ? (size_t)(g - cat->gpus) : SIZE_MAX, how);
    return i == SIZE_MAX ? NULL : &cat->gpus[i];
}

const struct llmroof_model *catalog_match_model(const struct llmroof_catalog *cat, const char *name,
                                                enum llmroof_match *how)
{
    const struct llmroof_model *m = catalog_find_model_exact(cat, name);
    size_t i = resolve(cat, cat->n_models, model_names, model_readings, sizeof model_readings / sizeof model_readings[0],
                       name, m ? (size_t)(m - cat->models) : SIZE_MAX, how);
    return i == SIZE_MAX ? NULL : &cat->models[i];
}
