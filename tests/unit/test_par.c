/* test_par.c - par_for (base/par.h): every task once, at any thread count; the caller's tick ends
 * a run early; the threads really run at once. */
#include "helpers.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "base/par.h"

struct slots {
    int runs[1000];
    int n;
};

static void count_one(void *ctx, int i)
{
    struct slots *s = ctx;
    s->runs[i]++; /* each task its own slot: no two threads write one */
}

static void every_task_runs_once_at_any_thread_count(void **state)
{
    (void)state;
    static struct slots s;
    const int ns[] = { 0, 1, 5, 1000 }, ts[] = { -1, 0, 1, 2, 3, 8, PAR_MAX_THREADS, PAR_MAX_THREADS + 10 };
    for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++)
        for (size_t b = 0; b < sizeof ts / sizeof ts[0]; b++) {
            memset(&s, 0, sizeof s);
            assert_int_equal(par_for(ns[a], ts[b], count_one, &s, NULL, NULL), ns[a]);
            for (int i = 0; i < 1000; i++)
                assert_int_equal(s.runs[i], i < ns[a] ? 1 : 0);
        }
    assert_true(par_cpus() >= 1 && par_cpus() <= PAR_MAX_THREADS);
}

static int stop_after_three(void *ctx, int done, int n)
{
    int *calls = ctx;
    ++*calls;
    assert_true(done >= 1 && done <= n);
    return done >= 3;
}

static void the_callers_tick_ends_the_run(void **state)
{
    (void)state;
    static struct slots s;
    /* one thread: the caller runs tasks 0, 1, 2, ticks after each and stops at the third */
    memset(&s, 0, sizeof s);
    int calls = 0;
    assert_int_equal(par_for(100, 1, count_one, &s, stop_after_three, &calls), 3);
    assert_int_equal(calls, 3);
    for (int i = 0; i < 100; i++)
        assert_int_equal(s.runs[i], i < 3);
    /* four threads: the others may finish the tasks they took, no task twice, most skipped; the
     * count returned is the tasks that ran */
    memset(&s, 0, sizeof s);
    calls = 0;
    const int ran = par_for(1000, 4, count_one, &s, stop_after_three, &calls);
    int set = 0;
    for (int i = 0; i < 1000; i++) {
        assert_true(s.runs[i] <= 1);
        set += s.runs[i];
    }
    assert_int_equal(ran, set);
    assert_true(ran >= 3);
}

/* Task 0 waits for task 1 to start: only a second thread running task 1 meanwhile lets it go on
 * (on one thread task 1 would start only after task 0 gave up: the test would fail). */
struct meet {
    atomic_int started1;
    int met;
};

static void wait_for_one(void *ctx, int i)
{
    struct meet *m = ctx;
    if (i == 1) {
        atomic_store(&m->started1, 1);
        return;
    }
    const struct timespec pause = { 0, 1000000 }; /* 1 ms */
    for (int k = 0; k < 20000 && !atomic_load(&m->started1); k++) /* up to 20 s (valgrind) */
        nanosleep(&pause, NULL);
    m->met = atomic_load(&m->started1);
}

static void the_threads_run_at_once(void **state)
{
    (void)state;
    struct meet m = { 0 };
    atomic_init(&m.started1, 0);
    assert_int_equal(par_for(2, 2, wait_for_one, &m, NULL, NULL), 2);
    assert_int_equal(m.met, 1);
}

/* A stop said while the caller has no task left must reach the other threads' tasks: task A
 * (on the caller's thread) ends at once; task B (on the other) waits, reading the shared stop,
 * for the stop the caller's callback says only at its second question. The first question is
 * the tick after task A; the second comes only from the caller's ticks while it waits (par_for
 * had joined the threads without asking: a plan's stop went unheard until its slowest row
 * ended). */
struct tail {
    struct par_stop stop;
    pthread_t caller;
    atomic_int started;
    int asked;
    atomic_int saw; /* task B saw the stop */
};

static int stop_at_second_question(void *arg)
{
    struct tail *t = arg;
    return ++t->asked >= 2;
}

static void wait_for_stop_off_caller(void *ctx, int i)
{
    (void)i;
    struct tail *t = ctx;
    const struct timespec pause = { 0, 1000000 }; /* 1 ms */
    atomic_fetch_add(&t->started, 1);
    for (int k = 0; k < 20000 && atomic_load(&t->started) < 2; k++) /* both tasks on their threads */
        nanosleep(&pause, NULL);
    if (pthread_equal(pthread_self(), t->caller))
        return;
    const struct llmroof_stop s = par_stop_shared(&t->stop);
    for (int k = 0; k < 20000; k++) { /* up to 20 s (valgrind) */
        if (stop_asked(&s)) {
            atomic_store(&t->saw, 1);
            return;
        }
        nanosleep(&pause, NULL);
    }
}

static int tick_stop(void *ctx, int done, int n)
{
    (void)done;
    (void)n;
    struct tail *t = ctx;
    return par_stop_asked(&t->stop);
}

static void a_stop_reaches_the_other_threads_after_the_callers_last_task(void **state)
{
    (void)state;
    static struct tail t;
    memset(&t, 0, sizeof t);
    t.caller = pthread_self();
    atomic_init(&t.started, 0);
    atomic_init(&t.saw, 0);
    par_stop_init(&t.stop, (struct llmroof_stop){ stop_at_second_question, &t });
    assert_int_equal(par_for(2, 2, wait_for_stop_off_caller, &t, tick_stop, &t), 2);
    assert_int_equal(atomic_load(&t.started), 2);
    assert_int_equal(atomic_load(&t.saw), 1);
    assert_true(t.asked >= 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_task_runs_once_at_any_thread_count),
        cmocka_unit_test(the_callers_tick_ends_the_run),
        cmocka_unit_test(the_threads_run_at_once),
        cmocka_unit_test(a_stop_reaches_the_other_threads_after_the_callers_last_task),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
