/* cmd_serve.h - the options of `llmroof serve` (the server itself is src/api/server.c, a later
 * layer: this module only reads the command line and finds the page's files). */
#ifndef LLMROOF_CMD_SERVE_H
#define LLMROOF_CMD_SERVE_H

#include <stdio.h>

struct serve_opts {
    const char *host;       /* --host: address to bind (default 127.0.0.1) */
    int port;               /* --port: TCP port (default 8080; 0 = any free port) */
    const char *web_dir;    /* --web: the page's directory (default: found by serve_web_dir) */
    const char *data_dir;   /* --data: catalog directory (default: the CLI's search) */
    unsigned timeout_s;     /* --timeout: idle connection timeout in seconds (default 10) */
    double max_sim_tokens;  /* --max-sim-tokens: simulate's requests x output tokens (default 2e7) */
    int max_plan_layouts;   /* --max-plan-layouts: plan's GPUs x TP values (default 32) */
    double max_compute_s;   /* --max-compute: seconds a simulate or plan may compute (default 120) */
};

/* Parses argv ("serve", options...) with no global state. Prints --help to out (returns -1),
 * a usage error to err (returns 2); 0 on success. */
int serve_parse(int argc, char **argv, struct serve_opts *o, FILE *out, FILE *err);

/* 0 when o->data_dir is unset or holds gpus.json and models.json; else 2 with a message on err
 * naming the option (the catalog loader's own message named neither it nor serve). */
int serve_check_data_dir(const struct serve_opts *o, FILE *err);

/* The page's directory into buf: o->web_dir, else $LLMROOF_WEB, else <exe>/../share/llmroof/web
 * (installed), else the source tree's web/, else the install prefix's. NULL (and a message on
 * err) when none holds index.html. */
const char *serve_web_dir(const struct serve_opts *o, char *buf, size_t n, FILE *err);

#endif
