/* render_plan.h - the planner's options table, best choices and observations.
 * JSON: render_json_plan in render_json.h. */
#ifndef LLMROOF_RENDER_PLAN_H
#define LLMROOF_RENDER_PLAN_H

#include "serve/plan.h"
#include "base/sbuf.h"
#include "render/table.h"

void render_plan(const struct plan_input *in, const struct plan_result *r, enum table_format f, struct table_sel *sel,
                 struct sbuf *out);

#endif
