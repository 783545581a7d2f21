/* render_plan.c - see llmroof/render_plan.h */
#include "llmroof/render_plan.h"

#include <stdio.h>

void render_plan(const struct plan_input *in, const struct plan_result *r, enum table_format f, struct table_sel *sel,
                 struct sbuf *out)
{
    char col[48];
    if (f == TABLE_TEXT || f == TABLE_MD) {
        sbuf_printf(out, "%splan: %s for %ld users, p%d TTFT <= %g ms and TPOT <= %g ms, %d GPUs per node, think %g-%g s, "
                         "%s%s\n\n",
                    f == TABLE_MD ? "## " : "", in->model->id, in->users, in->percentile, in->ttft_slo_s * 1e3,
                    in->tpot_slo_s * 1e3, in->gpus_per_node, in->sim.think_min_s, in->sim.think_max_s,
                    in->fast ? "analytic (--fast: means, not percentiles)" : "simulated", "");
    }
    struct table t;
    table_init(&t, "");
    table_col(&t, "gpu", 0);
    table_col(&t, "tp", 0);
    table_col(&t, "instances_per_node", 0);
    table_col(&t, "users_per_instance", 0);
    table_col(&t, "users_per_node", 0);
    table_col(&t, "nodes", 0);
    table_col(&t, "gpus", 0);
    snprintf(col, sizeof col, "ttft_p%d_ms", in->percentile);
    table_col(&t, col, 0);
    snprintf(col, sizeof col, "tpot_p%d_ms", in->percentile);
    table_col(&t, col, 1);
    table_col(&t, "binding", 0);
    table_col(&t, "cost_per_hour", 2);
    table_col(&t, "note", 0);
    for (int i = 0; i < r->noptions; i++) {
        const struct plan_option *o = &r->options[i];
        table_row(&t);
        table_str(&t, o->gpu->id);
        table_num(&t, o->tp);
        if (o->instances_per_node)
            table_num(&t, o->instances_per_node);
        else
            table_empty(&t);
        if (!o->feasible) {
            for (int k = 0; k < 8; k++)
                table_empty(&t);
            table_str(&t, o->reason);
            continue;
        }
        table_num(&t, (double)o->users_per_instance);
        table_num(&t, (double)o->users_per_node);
        table_num(&t, (double)o->nodes);
        table_num(&t, (double)o->gpus);
        table_num(&t, o->ttft_s * 1e3);
        table_num(&t, o->tpot_s * 1e3);
        table_str(&t, plan_binding_name(o->binding));
        if (o->has_cost)
            table_num(&t, o->cost_per_hour);
        else
            table_empty(&t);
        table_str(&t, i == r->best ? "best" : "");
    }
    if (table_sel_wants(sel, f, "options"))
        table_render(&t, f, out);
    table_free(&t);
    if (f == TABLE_CSV) {
        table_init(&t, "");
        table_col(&t, "observation", 0);
        for (int i = 0; i < r->nobs; i++) {
            table_row(&t);
            table_str(&t, r->obs[i]);
        }
        if (table_sel_wants(sel, f, "observations"))
            table_render(&t, f, out);
        table_free(&t);
        return;
    }
    sbuf_append(out, f == TABLE_MD ? "\n### Observations\n\n" : "\nObservations\n");
    for (int i = 0; i < r->nobs; i++)
        sbuf_printf(out, "- %s\n", r->obs[i]);
}
