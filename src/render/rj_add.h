/* rj_add.h - cJSON's adds, checked: an add that fails (out of memory) marks the object it was
 * adding to, and rj_print (render_json.c) refuses a tree that holds a mark, so a document short of
 * a field is never printed as an answer (a review made the Nth malloc fail: 450 of 492 points had
 * returned success with a field missing). cJSON reads its types through `type & 0xFF` and two
 * flags below 0x400 (IsReference, StringIsConst), so RJ_ADD_FAILED is a bit it never reads.
 * An object whose own creation failed is NULL: the add that attaches it (or the Add*ToObject
 * that made it) fails and marks its parent. */
#ifndef LLMROOF_RJ_ADD_H
#define LLMROOF_RJ_ADD_H

#include <cjson/cJSON.h>
#include <stdbool.h>

#define RJ_ADD_FAILED 0x4000

static inline cJSON *rj_mark(cJSON *parent, cJSON *added)
{
    if (!added && parent)
        parent->type |= RJ_ADD_FAILED;
    return added;
}
static inline cJSON *rj_num(cJSON *o, const char *k, double v) { return rj_mark(o, cJSON_AddNumberToObject(o, k, v)); }
static inline cJSON *rj_str(cJSON *o, const char *k, const char *v) { return rj_mark(o, cJSON_AddStringToObject(o, k, v)); }
static inline cJSON *rj_bool(cJSON *o, const char *k, bool v) { return rj_mark(o, cJSON_AddBoolToObject(o, k, v)); }
static inline cJSON *rj_null(cJSON *o, const char *k) { return rj_mark(o, cJSON_AddNullToObject(o, k)); }
static inline cJSON *rj_raw(cJSON *o, const char *k, const char *v) { return rj_mark(o, cJSON_AddRawToObject(o, k, v)); }
static inline cJSON *rj_obj(cJSON *o, const char *k) { return rj_mark(o, cJSON_AddObjectToObject(o, k)); }
static inline cJSON *rj_arr(cJSON *o, const char *k) { return rj_mark(o, cJSON_AddArrayToObject(o, k)); }
/* item attached under k (or appended to an array), which then owns it; false, with the parent
 * marked, when item is NULL or the attach fails, and item is freed: it belongs to nothing (so a
 * caller fills an item before attaching it, never after) */
static inline bool rj_item(cJSON *o, const char *k, cJSON *item)
{
    if (item && cJSON_AddItemToObject(o, k, item))
        return true;
    cJSON_Delete(item);
    rj_mark(o, NULL);
    return false;
}
static inline bool rj_push(cJSON *arr, cJSON *item)
{
    if (item && cJSON_AddItemToArray(arr, item))
        return true;
    cJSON_Delete(item);
    rj_mark(arr, NULL);
    return false;
}

#endif
