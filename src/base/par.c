/* par.c - par_for (par.h): a shared counter hands out task indices; each thread takes the next
 * until none are left or the run is ended. The counter and the finished count are C11 atomics,
 * the only state the threads share; everything else a task touches is its own slot. */
/* sched_getaffinity (Linux, glibc; CMakeLists.txt compiles this file with _GNU_SOURCE): the
 * processors this process may run on, which a container or taskset narrows below what sysconf
 * counts */
#include "base/par.h"

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

struct par_run {
    int n;
    void (*fn)(void *ctx, int i);
    void *ctx;
    atomic_int next;  /* the next task index to hand out */
    atomic_int done;  /* tasks finished */
    atomic_bool halt; /* the caller's tick asked to end: hand out no more */
    atomic_int exited; /* the other threads that have returned */
};

/* One task from the counter, or -1 when none is left or the run was ended. */
static int take(struct par_run *r)
{
    if (atomic_load(&r->halt))
        return -1;
    const int i = atomic_fetch_add(&r->next, 1);
    return i < r->n ? i : -1;
}

static void *worker(void *arg)
{
    struct par_run *r = arg;
    for (int i; (i = take(r)) >= 0;) {
        r->fn(r->ctx, i);
        atomic_fetch_add(&r->done, 1);
    }
    atomic_fetch_add(&r->exited, 1);
    return NULL;
}

static int par_stop_fn(void *arg)
{
    return par_stop_asked(arg);
}

void par_stop_init(struct par_stop *p, struct llmroof_stop caller)
{
    p->caller = caller;
    p->owner = pthread_self();
    atomic_init(&p->stopped, false);
}

struct llmroof_stop par_stop_shared(struct par_stop *p)
{
    return (struct llmroof_stop){ p->caller.fn ? par_stop_fn : NULL, p };
}

bool par_stop_asked(struct par_stop *p)
{
    if (!atomic_load(&p->stopped) && pthread_equal(pthread_self(), p->owner) && stop_asked(&p->caller))
        atomic_store(&p->stopped, true);
    return atomic_load(&p->stopped);
}

int par_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
#if defined(__linux__) && defined(_GNU_SOURCE)
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0 && CPU_COUNT(&set) < n)
        n = CPU_COUNT(&set);
#endif
    return n < 1 ? 1 : n > PAR_MAX_THREADS ? PAR_MAX_THREADS : (int)n;
}

int par_for(int n, int threads, void (*fn)(void *ctx, int i), void *ctx, int (*tick)(void *tctx, int done, int n),
            void *tctx)
{
    if (n <= 0)
        return 0;
    if (threads > n)
        threads = n;
    if (threads > PAR_MAX_THREADS)
        threads = PAR_MAX_THREADS;
    struct par_run r = { .n = n, .fn = fn, .ctx = ctx };
    atomic_init(&r.next, 0);
    atomic_init(&r.done, 0);
    atomic_init(&r.halt, false);
    atomic_init(&r.exited, 0);
    pthread_t tid[PAR_MAX_THREADS];
    int started = 0;
    for (int t = 1; t < threads; t++) { /* the caller is the first */
        if (pthread_create(&tid[started], NULL, worker, &r) != 0)
            break; /* the threads started, and the caller, run the rest */
        started++;
    }
    for (int i; (i = take(&r)) >= 0;) {
        fn(ctx, i);
        const int d = atomic_fetch_add(&r.done, 1) + 1;
        if (tick && tick(tctx, d, n))
            atomic_store(&r.halt, true);
    }
    /* no task left to take: the caller goes on ticking every millisecond until the other threads
     * end, so that a stop said meanwhile reaches their tasks (par_stop) at once. A plan's stop had
     * gone unasked while the caller waited: a deadline 4 s before a two-thread rate plan's end let
     * the plan run on and answer (review) */
    if (tick) {
        const struct timespec pause = { 0, 1000000 };
        while (!atomic_load(&r.halt) && atomic_load(&r.exited) < started) {
            nanosleep(&pause, NULL);
            if (tick(tctx, atomic_load(&r.done), n))
                atomic_store(&r.halt, true);
        }
    }
    for (int t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
    return atomic_load(&r.done);
}
