/* cli_progress.c - progress of long runs on stderr (issue 24): the library reports through a
 * callback (struct sim_config.progress, struct plan_input.progress) and prints nothing; this
 * reporter writes one line, rewritten in place, to the command's error stream when that stream
 * is a terminal and --quiet was not given. Piped, redirected or through the library API (whose
 * streams are in memory), nothing is written. The line appears only once a run has taken a
 * second (LLMROOF_PROGRESS_DELAY_S, for tests: another delay), so short runs stay silent on a
 * terminal too. (isatty and clock_gettime are POSIX: the build sets _POSIX_C_SOURCE.) */
#include "cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

bool cli_progress_start(struct cli *c, struct cli_progress *p, const char *what, bool quiet)
{
    p->c = c;
    p->what = what;
    p->start_s = now_s();
    p->shown = false;
    const char *d = getenv("LLMROOF_PROGRESS_DELAY_S");
    char *end = NULL;
    p->delay_s = d ? strtod(d, &end) : 1.0;
    if (!d || end == d || *end != '\0' || !(p->delay_s >= 0 && p->delay_s <= 3600))
        p->delay_s = 1.0;
    const int fd = c->errf ? fileno(c->errf) : -1;
    return !quiet && fd >= 0 && isatty(fd);
}

void cli_progress_report(void *ctx, long done, long total)
{
    struct cli_progress *p = ctx;
    if (!p->shown && now_s() - p->start_s < p->delay_s)
        return;
    if (done >= total) {
        if (p->shown) /* clear the line for what follows */
            fprintf(p->c->errf, "\r%*s\r", 72, "");
        p->shown = false;
        fflush(p->c->errf);
        return;
    }
    fprintf(p->c->errf, "\rllmroof %s: %3.0f%% (%ld of %ld %s)", p->c->cmd ? p->c->cmd : "", 100.0 * (double)done / (double)total,
            done, total, p->what);
    fflush(p->c->errf);
    p->shown = true;
}
