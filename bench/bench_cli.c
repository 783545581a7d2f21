/* bench_cli.c - whole-process speed of the llmroof binary.
 *   bench_cli LLMROOF_BIN [RUNS]
 * 1. `llmroof estimate -m llama-2-7b -g a100` from exec to exit, catalog load included (RUNS
 *    runs, default 200), output to /dev/null: median wall time, and the mean CPU time (user +
 *    system, page faults included) that perf stat's task-clock reports; the same for
 *    `llmroof --version`, the process start alone;
 * 2. rows per second of `llmroof sweep` over the whole catalog written to /dev/null. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Wall seconds of one run; its CPU seconds (user + system) in *cpu_s when non-NULL. */
static double run(char *const argv[], double *cpu_s)
{
    double t0 = now_s();
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open("/dev/null", O_WRONLY);
        dup2(fd, 1);
        execv(argv[0], argv);
        _exit(127);
    }
    int st;
    struct rusage r0, r1; /* the waited-for children's totals: the difference is this child's */
    getrusage(RUSAGE_CHILDREN, &r0);
    waitpid(pid, &st, 0);
    double wall = now_s() - t0;
    getrusage(RUSAGE_CHILDREN, &r1);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "bench_cli: %s failed\n", argv[0]);
        exit(1);
    }
    if (cpu_s)
        *cpu_s = (double)(r1.ru_utime.tv_sec - r0.ru_utime.tv_sec) + 1e-6 * (double)(r1.ru_utime.tv_usec - r0.ru_utime.tv_usec) +
                 (double)(r1.ru_stime.tv_sec - r0.ru_stime.tv_sec) + 1e-6 * (double)(r1.ru_stime.tv_usec - r0.ru_stime.tv_usec);
    return wall;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_cli LLMROOF_BIN [RUNS]\n");
        return 2;
    }
    int runs = argc > 2 ? atoi(argv[2]) : 200;
    if (runs < 1 || runs > 100000)
        runs = 200;
    char *est[] = { argv[1], "estimate", "-m", "llama-2-7b", "-g", "a100", NULL };
    char *ver[] = { argv[1], "--version", NULL };
    char *const *cmds[] = { est, ver };
    const char *names[] = { "estimate process", "--version process" };
    double *t = malloc(sizeof(double) * (size_t)runs);
    for (int k = 0; k < 2; k++) {
        double cpu_sum = 0;
        for (int i = 0; i < runs; i++) {
            double cpu;
            t[i] = run(cmds[k], &cpu);
            cpu_sum += cpu;
        }
        qsort(t, (size_t)runs, sizeof *t, cmp);
        printf("%s: median %.2f ms, p90 %.2f ms wall; mean CPU %.2f ms (user + system) over %d runs\n", names[k],
               1e3 * t[runs / 2], 1e3 * t[(int)(runs * 0.9)], 1e3 * cpu_sum / runs, runs);
    }
    free(t);
    /* 23 models x 18 GPUs x 4 TP x 6 batches x 4 prompts x 3 outputs = 119,232 rows */
    char *sw[] = { argv[1], "sweep", "--tp", "1,2,4,8", "--batch", "1,4,16,64,128,256", "--prompt", "128,512,2048,8192",
                   "--output", "128,512,2048", "--format", "jsonl", NULL };
    double best = 1e9;
    for (int i = 0; i < 3; i++) {
        double s = run(sw, NULL);
        if (s < best)
            best = s;
    }
    printf("sweep: 119232 rows to /dev/null in %.3f s = %.0f rows/s (best of 3, process start included)\n", best,
           119232 / best);
    return 0;
}
