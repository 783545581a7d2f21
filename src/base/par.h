/* par.h - independent tasks on several threads, with results that do not depend on how many.
 *
 * par_for runs fn(ctx, i) once for every i in [0, n) on up to `threads` threads, the caller's
 * among them, and returns when all have run. Each task writes only its own slot of the caller's
 * arrays, so the results are the same, bit for bit, whatever the thread count or the order the
 * tasks ran in; whatever the caller does with them afterwards (errors reported in index order,
 * a best option chosen) it does on its own thread. Callbacks a caller was given (progress, stop)
 * are called only on the caller's thread: `tick`, when given, after each task the caller ran,
 * with the count finished so far; returning nonzero ends the run early (tasks not yet started
 * are skipped, and par_for returns how many ran). Threads are POSIX threads; where one cannot
 * be started the others, and the caller, take its share. No state outlives the call. */
#ifndef LLMROOF_PAR_H
#define LLMROOF_PAR_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "base/stop.h"

/* The most threads a command starts (docs/performance.md, "Threads"). */
#define PAR_MAX_THREADS 64

/* Runs fn(ctx, i) for i in [0, n); returns the number of tasks that ran (n unless tick ended it).
 * tick (NULL: none) is called on the caller's thread alone with the tasks finished so far: after
 * each task the caller runs, and, once none is left to take, every millisecond until the other
 * threads end (done may then repeat, and be 0 where they took every task); nonzero ends the run:
 * no task is handed out after it. */
int par_for(int n, int threads, void (*fn)(void *ctx, int i), void *ctx, int (*tick)(void *tctx, int done, int n),
            void *tctx);

/* A caller's stop shared with par_for's tasks (a plan's simulations ask theirs every few
 * thousand events): the caller's callback is asked only on the thread that set this up, the
 * caller's, as par.h promises; once it says stop, a flag every task reads says so too. Tasks on
 * other threads read the flag alone, so they see a stop when the caller's thread next asks (its
 * own tasks' asks, or par_for's tick). Lives while the tasks run; no state outlives it. */
struct par_stop {
    struct llmroof_stop caller; /* the caller's (fn NULL: never asked) */
    pthread_t owner;            /* the caller's thread */
    atomic_bool stopped;
};

/* Sets p up on the caller's thread. */
void par_stop_init(struct par_stop *p, struct llmroof_stop caller);
/* The stop to hand the tasks: asks the caller's on the caller's thread, else reads the flag
 * (fn NULL where the caller gave none). */
struct llmroof_stop par_stop_shared(struct par_stop *p);
/* Whether a stop was asked (for a tick: on the caller's thread it asks the caller's callback). */
bool par_stop_asked(struct par_stop *p);

/* The processors this process may run on: those online (sysconf), fewer where its CPU affinity
 * says so (Linux: taskset, a container's cpuset), 1 where the system does not say. */
int par_cpus(void);

#endif
