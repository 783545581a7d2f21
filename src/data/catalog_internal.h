/* catalog_internal.h - what the catalog's files share (catalog.c, catalog_gpu.c,
 * catalog_model.c, catalog_engine.c, catalog_suggest.c); not installed, not for callers
 * outside src/data/catalog*.c. Each function's comment is at its definition. */
#ifndef LLMROOF_CATALOG_INTERNAL_H
#define LLMROOF_CATALOG_INTERNAL_H

#include "data/json_read.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

/* Catalog files are small; 64 MiB bounds memory on a hostile input. */
#define CATALOG_MAX_BYTES ((size_t)64 * 1024 * 1024)

/* Loads go two ways. The fast load reads a file entry by entry (json_entries) into one
 * scratch entry, parses and checks every entry as the checked load does, and keeps only the
 * entry a command picked (or all): an `estimate` needs one model, one GPU and one engine, and
 * building the 118 entries of the shipped catalog (about 470 KiB of structs) cost it more
 * fresh pages than anything else (issue 24). Whatever the fast load does not accept - an
 * error of any kind, a document its reader leaves to cJSON - it hands over untouched, and
 * the checked load (the whole document, then each entry in order) runs and reports. So every
 * message is the checked load's, every file is checked whole whatever is picked, and what is
 * added is the same either way. */
#define NOT_HANDLED (-1)

/* Models and engines load by one rule (GPUs add aliases, catalog_gpu.c): every entry parses and
 * no id repeats within the file, nor - unless `replace` - in the catalog, before anything
 * is added; an entry whose id is already loaded replaces it. */
struct plain_kind {
    const char *key;                                          /* top-level array: "models" */
    size_t size;                                              /* bytes of one entry */
    size_t id_offset;                                         /* offsetof(entry, id) */
    int (*parse)(struct json_ectx *c, const cJSON *e, void *out);  /* fills one entry */
    /* entries with aliases (engines): offsetof their aliases[LLMROOF_ALIASES_MAX][LLMROOF_ID_MAX]
     * and their int count; ids and aliases are then one namespace, and such files take the
     * checked load (a few dozen entries) */
    bool has_aliases;
    size_t aliases_offset, n_aliases_offset;
};

/* How a kind of entry adds a file's text to the catalog (add_gpus, add_models, add_engines). */
typedef int (*add_text_fn)(struct llmroof_catalog *cat, const char *text, size_t len, const char *fname,
                           bool replace, const char *pick, struct llmroof_err *err);

/* catalog.c */
bool catalog_arch_name_ok(const char *s);
int catalog_arch_err(struct json_ectx *c, const char *field, const char *got);
bool catalog_grow(void **arr, size_t *cap, size_t need, size_t elem);
int catalog_parse_arch_list(struct json_ectx *c, const cJSON *e, const char *field,
                            char out[LLMROOF_ARCHS_MAX][LLMROOF_ARCH_MAX], int *n);
int catalog_parse_aliases(struct json_ectx *c, const cJSON *e, char (*out)[LLMROOF_ID_MAX], int *n);
int catalog_add_plain(const struct plain_kind *k, void **entries, size_t *n_entries, size_t *cap, const char *text,
                      size_t len, const char *fname, bool replace, const char *pick, struct llmroof_err *err);
int catalog_add_file(struct llmroof_catalog *cat, const char *path, bool replace, const char *pick, add_text_fn add,
                     struct llmroof_err *err);

#endif
