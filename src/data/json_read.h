/* json_read.h - private to src/data: the JSON reading helpers shared by the catalog, the
 * HuggingFace importer and the validation-map/uncertainty readers. Not installed. */
#ifndef LLMROOF_DATA_JSON_READ_H
#define LLMROOF_DATA_JSON_READ_H

#include "data/catalog.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* Parsing context of one entry. */
struct json_ectx {
    const char *fname;   /* file name for messages */
    const char *text;    /* whole file text */
    size_t len;
    const char *kind;    /* "gpus" or "models" */
    int index;           /* entry index in the array */
    char id[LLMROOF_ID_MAX]; /* entry id once known */
    struct llmroof_err *err;
    const char *path;    /* while a nested object is read, its prefix ("host."): messages name
                            its members "host.cpu", not "cpu"; NULL at the entry's top level */
};

/* obj's member `key` (the first one of that name), or NULL: cJSON_GetObjectItemCaseSensitive,
 * with the first byte compared before strcmp. Lookups with a call to strcmp per member were a
 * quarter of loading the catalog (issue 24). */
static inline const cJSON *json_item(const cJSON *obj, const char *key)
{
    /* an array's elements have no names (cJSON stops there too); every member of an object
     * read by cJSON or the fast reader has one, so the first child tells */
    if (!obj || !key || !obj->child || !obj->child->string)
        return NULL;
    for (const cJSON *c = obj->child; c; c = c->next)
        if (c->string[0] == key[0] && strcmp(c->string, key) == 0)
            return c;
    return NULL;
}
/* Line and column (1-based) of byte offset `off`. */
void json_linecol(const char *text, size_t off, int *line, int *col);
/* Offset of `"key"` followed by ':' at or after `from`, or SIZE_MAX (for messages only). */
size_t json_find_key(const char *text, size_t len, size_t from, const char *key);
/* Offset of the entry whose "id" is `id`, or SIZE_MAX. */
size_t json_find_entry(const char *text, size_t len, const char *id);
/* Reports an error at `field` of the current entry ("interconnect.kind"). */
int json_ferr(struct json_ectx *c, const char *field, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Every member of obj must be in the NULL-terminated `allowed`. */
int json_check_known(struct json_ectx *c, const cJSON *obj, const char *prefix, const char *const *allowed);
int json_get_string(struct json_ectx *c, const cJSON *obj, const char *key, bool required, char *out, size_t cap);
/* A finite number in [lo, hi]; lo_open makes the lower bound exclusive. */
int json_get_number(struct json_ectx *c, const cJSON *obj, const char *key, const char *field, bool required,
                    double lo, bool lo_open, double hi, double *out, bool *present);
int json_get_long(struct json_ectx *c, const cJSON *obj, const char *key, bool required, long lo, long hi,
                  long *out, bool *present);
int json_get_bool(struct json_ectx *c, const cJSON *obj, const char *key, bool required, bool *out);
/* A string that must be one of the NULL-terminated `names`: *out is its index. Absent: *out =
 * dflt, or an error naming `field` when dflt < 0 (required). */
int json_get_choice(struct json_ectx *c, const cJSON *obj, const char *key, const char *field,
                    const char *const *names, int dflt, int *out);
/* The start every catalog entry shares: an object, a valid "id" (copied into id and c->id),
 * and no field outside `fields`. */
int json_entry_head(struct json_ectx *c, const cJSON *e, const char *const *fields, char *id, size_t cap);
/* Lowercase letters, digits, '-', '.', '_'; not empty. */
bool json_valid_id(const char *s);
/* The whole document (UTF-8, depth, no trailing text); NULL after setting err. Caller frees. */
/* What cJSON accepts but RFC 8259 does not: a \\u escape without four hex digits, the escape
 * \\u0000 (a C string cannot hold it: cJSON would cut "llama-7b\\u0000x" to "llama-7b"), a number
 * with a leading zero or no digit after '.' or the exponent. The offset of the first, with *why,
 * or SIZE_MAX. */
size_t json_lexical_error(const char *t, size_t n, const char **why);
cJSON *json_parse(const char *text, size_t len, const char *fname, struct llmroof_err *err);
/* json_parse, and the document must be an object; NULL after setting err. Caller frees. */
cJSON *json_parse_object(const char *text, size_t len, const char *fname, struct llmroof_err *err);
/* A parsed document whose nodes are cJSON's: read with the getters below and cJSON's
 * accessors, never modified, released with json_doc_free (never cJSON_Delete). */
struct json_block;
struct json_doc {
    cJSON *root;               /* the document's value */
    cJSON *owned;              /* the tree when cJSON built it (json_parse), else NULL */
    struct json_block *blocks; /* the fast reader's nodes, else NULL */
    char *strings;             /* the fast reader's keys and strings, else NULL */
};
/* As json_parse (same checks, same messages), by a one-pass reader where it can: the same
 * tree, built without a malloc per node. On error doc is empty. */
int json_doc_parse(const char *text, size_t len, const char *fname, struct json_doc *doc, struct llmroof_err *err);
void json_doc_free(struct json_doc *doc); /* a no-op on an empty (zeroed) doc */
/* The entries of a catalog document {"key": [...]} (and "schema", as json_parse_array_doc
 * allows) one at a time, by the fast reader: each entry's nodes last until the next call.
 * json_entries_open returns NULL, and json_entries_next returns NULL with json_entries_ok
 * false, where the document is not one the fast reader takes or is not valid: the caller
 * then reads it with json_parse_array_doc, whose messages are the only ones. Only after
 * json_entries_next has returned NULL with json_entries_ok true is the whole document
 * known to be valid and its entries complete. */
struct json_entries;
struct json_entries *json_entries_open(const char *text, size_t len, const char *key);
const cJSON *json_entries_next(struct json_entries *it);
bool json_entries_ok(const struct json_entries *it);
void json_entries_close(struct json_entries *it); /* NULL: a no-op */
/* A top-level object holding only `key`, an array: *doc (caller frees with json_doc_free)
 * and *arr inside it. On error doc is empty. */
int json_parse_array_doc(const char *text, size_t len, const char *fname, const char *key, struct json_doc *doc,
                         const cJSON **arr, struct llmroof_err *err);

#endif
