/* render_json_internal.h - what the JSON renderers share (render_json.c, render_json_catalog.c,
 * render_json_serve.c); not installed. Each function's comment is at its definition. */
#ifndef LLMROOF_RENDER_JSON_INTERNAL_H
#define LLMROOF_RENDER_JSON_INTERNAL_H

#include "render/render_json.h"

#include <cjson/cJSON.h>

#include "render/rj_add.h"

char *rj_finish(cJSON *root);
cJSON *rj_new_doc(const char *schema);
cJSON *rj_add_layout(cJSON *o, const struct llmroof_shard *sh);
void rj_add_draft_layer(cJSON *o, const struct llmroof_draft_head *h);

#endif
