/* server.c - see api/server.h. libmicrohttpd parses HTTP and runs one thread per connection;
 * this file decides what each request gets (server_route) and feeds it the request body.
 *
 * Why a thread per connection (MHD_USE_THREAD_PER_CONNECTION) rather than a pool of event
 * loops: a simulation holds its thread for up to a second, and in a pool it would hold every
 * other connection that pool thread owns; with a thread each, an estimate answers while a
 * simulation runs (docs/api.md, "HTTP"). The library is re-entrant (its option scanner keeps
 * no process-wide state), so the connections' threads call it at once on one context, whose
 * catalog is read-only: no lock. */
#include "api/server.h"
#include "api/api_internal.h"

#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <strings.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/parse.h"
#include "base/sbuf.h"
#include "cli/cmd_serve.h"
#include "render/render_json.h"
#include "serve/workload.h"

/* ---- replies -------------------------------------------------------------------------- */

static void reply_set(struct server_reply *r, int status, const char *ctype, char *body, size_t len)
{
    r->status = status;
    r->content_type = ctype;
    r->body = body;
    r->len = len;
}

/* {"error": msg} with msg's trailing newline dropped. */
static void reply_error(struct server_reply *r, int status, const char *msg)
{
    size_t n = strlen(msg);
    while (n && msg[n - 1] == '\n')
        n--;
    char *m = malloc(n + 1);
    cJSON *o = cJSON_CreateObject();
    char *text = NULL;
    if (m && o) {
        memcpy(m, msg, n);
        m[n] = '\0';
        if (cJSON_AddStringToObject(o, "error", m))
            text = rj_print(o, false, false);
    }
    free(m);
    cJSON_Delete(o);
    if (!text) {
        static const char oom[] = "{\"error\":\"llmroof: error: out of memory\"}";
        text = strdup(oom);
        status = 500;
    }
    reply_set(r, status, "application/json", text, text ? strlen(text) : 0);
}

void server_reply_free(struct server_reply *r)
{
    free(r->body);
    free(r->warnings);
    r->body = r->warnings = NULL;
    r->len = 0;
}

/* A line of the library's messages that warns or notes ("llmroof: warning: ...", "llmroof: note:
 * ..."), as against the error and its hints. */
static bool warning_line(const char *line)
{
    return !strncmp(line, "llmroof: warning: ", 18) || !strncmp(line, "llmroof: note: ", 15);
}

/* Splits the library's messages msg into its warnings and notes (*warn, malloc'd, NULL when none)
 * and the rest (*rest, malloc'd; NULL when msg is NULL): a 200 carries the first as headers, which
 * had been dropped (a review: a 5-request closed loop's "times one burst" warning reached the
 * Python binding, not an HTTP client), and a 400's error names the error first, not a warning
 * printed before it. Returns false when out of memory. */
static bool split_messages(const char *msg, char **warn, char **rest)
{
    *warn = *rest = NULL;
    if (!msg)
        return true;
    const size_t n = strlen(msg);
    char *w = malloc(n + 1), *o = malloc(n + 1);
    if (!w || !o) {
        free(w);
        free(o);
        return false;
    }
    size_t nw = 0, no = 0;
    for (const char *p = msg; *p;) {
        const char *e = strchr(p, '\n');
        const size_t len = e ? (size_t)(e - p) + 1 : strlen(p);
        if (warning_line(p)) {
            memcpy(w + nw, p, len);
            nw += len;
        } else {
            memcpy(o + no, p, len);
            no += len;
        }
        p += len;
    }
    w[nw] = o[no] = '\0';
    if (nw)
        *warn = w;
    else
        free(w);
    *rest = o;
    return true;
}

void server_default_limits(struct server_limits *lim)
{
    *lim = (struct server_limits){ 2e7, 20000, 32, 16, 64, 120 };
}

/* ---- the page's files ----------------------------------------------------------------- */

/* Only these names are served: no path from the URL ever reaches the file system. */
static const struct {
    const char *url, *file, *ctype;
} pages[] = {
    { "/", "index.html", "text/html; charset=utf-8" },
    { "/index.html", "index.html", "text/html; charset=utf-8" },
    { "/app.js", "app.js", "text/javascript; charset=utf-8" },
    { "/style.css", "style.css", "text/css; charset=utf-8" },
};

static void serve_file(const struct server_cfg *cfg, const char *file, const char *ctype, struct server_reply *r)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", cfg->web_dir ? cfg->web_dir : ".", file);
    FILE *f = fopen(path, "rb");
    if (!f) {
        reply_error(r, 404, "llmroof: error: the page's file is missing from the web directory");
        return;
    }
    struct sbuf b;
    sbuf_init(&b);
    char chunk[8192];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0 && b.len < (size_t)16 * 1024 * 1024)
        sbuf_appendn(&b, chunk, n);
    bool bad = ferror(f) != 0;
    fclose(f);
    if (bad || sbuf_failed(&b)) {
        sbuf_free(&b);
        reply_error(r, 500, "llmroof: error: cannot read the page's file");
        return;
    }
    size_t len = b.len;
    reply_set(r, 200, ctype, b.data ? b.data : strdup(""), len);
}

/* ---- the API -------------------------------------------------------------------------- */

/* Commands the API serves over HTTP: those that read the catalog and compute. import-hf,
 * validate, calibrate, sweep and check read or write files the request would name. */
static const char *const api_commands[] = { "estimate", "memory", "roofline", "simulate", "plan",
                                            "report",   "list",   "show" };

/* Options that write a file, or read one the request names: refused over HTTP, so the server
 * never touches a path a request chose. Keys are compared with '_' read as '-'. */
static const struct {
    const char *key, *why;
} refused[] = {
    { "svg", "writes a file (POST /api/v1/roofline.svg returns the roofline chart)" },
    { "svg-dir", "writes files" },
    { "requests-out", "writes a file" },
    { "trace-out", "writes a file" },
    { "out", "writes a file" },
    { "output-file", "writes a file" },
    { "trace", "reads a file the request names" },
    { "gpus-file", "reads a file the request names" },
    { "models-file", "reads a file the request names" },
    { "spec-draft-config", "reads a file the request names" },
    { "data", "reads a catalog the request names" },
    { "args", "names files (only list and show take positional arguments over HTTP)" },
    { "format", "is always json (\"json\" is taken)" },
    { "command", "comes from the path (/api/v1/<command>)" },
};

static void key_norm(const char *k, char *buf, size_t n)
{
    snprintf(buf, n, "%s", k);
    for (char *p = buf; *p; p++)
        if (*p == '_')
            *p = '-';
}

/* The top-level field that holds a number cJSON parsed to infinity (1e400), itself or inside its
   list or object; NULL when every number is finite. (JSON has no NaN literal.) */
static bool has_nonfinite(const cJSON *o)
{
    if (cJSON_IsNumber(o))
        return !isfinite(o->valuedouble);
    const cJSON *it;
    cJSON_ArrayForEach(it, o) {
        if (has_nonfinite(it))
            return true;
    }
    return false;
}

static const char *nonfinite_field(const cJSON *req)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, req) {
        if (has_nonfinite(it))
            return it->string;
    }
    return NULL;
}

/* Values in the tree under o (o itself not counted); the count stops once past `most` */
static int count_values(const cJSON *o, int most)
{
    int n = 0;
    for (const cJSON *it = o->child; it && n <= most; it = it->next)
        n += 1 + count_values(it, most - n - 1);
    return n;
}

/* True with the message in msg when the request object holds more than SERVER_MAX_FIELDS
 * top-level fields or SERVER_MAX_VALUES values in all: refused before any per-field work, which
 * had been quadratic in places (75,000 fields of "kN":1 cost 10 s of CPU before their 400). A
 * command takes at most 74 options (simulate), and a list option a few dozen entries. */
static bool too_many_values(const cJSON *req, char *msg, size_t n)
{
    int fields = 0;
    for (const cJSON *f = req->child; f && fields <= SERVER_MAX_FIELDS; f = f->next)
        fields++;
    if (fields > SERVER_MAX_FIELDS) {
        snprintf(msg, n, "llmroof: error: request: the body has more than %d fields, past this server's limit (a "
                         "command takes at most a few dozen options)", SERVER_MAX_FIELDS);
        return true;
    }
    if (count_values(req, SERVER_MAX_VALUES) > SERVER_MAX_VALUES) {
        snprintf(msg, n, "llmroof: error: request: the body holds more than %d values (fields and list entries), "
                         "past this server's limit", SERVER_MAX_VALUES);
        return true;
    }
    return false;
}

static const cJSON *opt_item(const cJSON *req, const char *dash)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, req) {
        char k[64];
        key_norm(it->string, k, sizeof k);
        if (!strcmp(k, dash)) /* null and false are no option (api.c): the default runs, and the
                                 limits count the default (a review: "tp": null passed them) */
            return cJSON_IsNull(it) || cJSON_IsFalse(it) ? NULL : it;
    }
    return NULL;
}


/* A whole-number option in this server's range [1, max] (field as the request spells it, dash
 * its option name): 0 when absent, of another shape (a list of several, an object: the library
 * names them), or within the range, with *v its value; else 400 with msg, the value echoed as
 * sent (a review: 99999999 came back "1e+08", "instances": 0 and "requests": "1e2" got the CLI's
 * ranges, which the library states). A string must be plain digits, as the CLI reads a count. */
static int server_count(const cJSON *req, const char *dash, const char *field, long max, const char *unit, double *v,
                        char *msg, size_t n)
{
    const cJSON *it = opt_item(req, dash);
    if (it && cJSON_IsArray(it) && cJSON_GetArraySize(it) == 1) /* a list of one is its text */
        it = it->child;
    if (!it || !(cJSON_IsNumber(it) || cJSON_IsString(it)))
        return 0;
    bool ok;
    char given[64];
    if (cJSON_IsNumber(it)) {
        *v = it->valuedouble;
        ok = true;
        api_number_text(it->valuedouble, given, sizeof given);
    } else {
        const char *p = it->valuestring;
        ok = *p != '\0' && strspn(p, "0123456789") == strlen(p) && parse_double(p, v);
        snprintf(given, sizeof given, "'%.40s'", p);
    }
    if (ok && *v >= 1 && *v == floor(*v) && *v <= (double)max)
        return 0;
    if (ok && *v == floor(*v) && *v > (double)max)
        snprintf(msg, n, "llmroof: error: request: field '%s': %s is past this server's limit of %ld%s", field, given,
                 max, unit);
    else
        snprintf(msg, n, "llmroof: error: request: field '%s': %s is not a whole number in [1, %ld] (this server's "
                         "limit)", field, given, max);
    return 400;
}

/* The N of a pool option ("prefill_pool": 4 or "4:h100:2", N[:GPU[:TP]], cmd_simulate.c): true
 * with *v set when the request gives the option and N reads as a number. A value that does not
 * is left for the library to refuse, naming the option. */
static bool pool_instances(const cJSON *req, const char *dash, double *v)
{
    const cJSON *it = opt_item(req, dash);
    if (it && cJSON_IsNumber(it)) {
        *v = it->valuedouble;
        return true;
    }
    if (!it || !cJSON_IsString(it))
        return false;
    char field[32];
    const size_t len = strcspn(it->valuestring, ":");
    if (len >= sizeof field)
        return false;
    memcpy(field, it->valuestring, len);
    field[len] = '\0';
    return parse_double(field, v);
}

/* Entries of a list option: a JSON array's size or a string's comma-separated items; "all"
 * counts as `all` entries (the loaded catalog's GPUs). */
static int list_len(const cJSON *it, int absent, int all)
{
    if (!it)
        return absent;
    if (cJSON_IsArray(it))
        return cJSON_GetArraySize(it);
    if (cJSON_IsString(it)) {
        /* each comma-separated item; "all" counts as every GPU wherever it stands */
        int n = 0;
        for (const char *p = it->valuestring;;) {
            size_t k = strcspn(p, ",");
            n += k == 3 && !strncmp(p, "all", 3) ? all : 1;
            if (!p[k])
                break;
            p += k + 1;
        }
        return n;
    }
    return 1;
}

/* The prompt + output tokens one simulated request costs, on average: the means of the workload
 * the run will draw, read by the library's own parser (workload_parse), so that every spec it
 * accepts is counted as it runs. (A named workload was counted at 2048 output tokens whatever its
 * stated means: sharegpt:200000:100 passed the limit, and chat was counted at four times its 495.)
 * The mean rather than a tail bound: the limit stands for the run's time, which grows with the
 * tokens simulated, and N requests draw about N x the mean (the CLI's own estimate of a run,
 * sim_work_tokens, counts the same). Memory is bounded apart from it, by --requests (a record
 * each) and the GPU's KV cache (blocks), not by one long draw. A prompt's tokens count beside the
 * outputs: they cost iterations too (a 120,000-token prompt in 16-token chunks is 7,500 of them;
 * review of session 35), and so does a --shared-prefix on top of a named workload's prompt. *spec
 * is the workload counted; false when the request's workload is not one the run accepts either
 * (the library refuses it, naming the option). */
static bool sim_request_tokens(const cJSON *req, double *tokens, double *prefix_tokens, const char **spec)
{
    *prefix_tokens = 0;
    const cJSON *wl = opt_item(req, "workload");
    *spec = !wl ? "chat" /* cmd_simulate.c's default */ : cJSON_IsString(wl) ? wl->valuestring : NULL;
    struct workload w;
    struct llmroof_err err = { 0 };
    if (!*spec || workload_parse(*spec, &w, &err))
        return false;
    double prompt = 0, out = 0;
    workload_means_any_model(&w, &prompt, &out);
    const bool on_top = workload_prefix_on_top(&w);
    workload_free(&w);
    double prefix = 0;
    const cJSON *sp = opt_item(req, "shared-prefix"); /* TOKENS[:GROUPS] */
    if (on_top && sp && cJSON_IsNumber(sp)) {
        prefix = sp->valuedouble;
    } else if (on_top && sp && cJSON_IsString(sp)) {
        char field[32];
        const size_t len = strcspn(sp->valuestring, ":");
        if (len < sizeof field) {
            memcpy(field, sp->valuestring, len);
            field[len] = '\0';
            if (!parse_double(field, &prefix))
                prefix = 0;
        }
    }
    /* a prefix outside --shared-prefix's range (1 to 1,000,000 tokens) is the library's to refuse,
     * naming the option: counted here, "1e30" had read as 10^30 tokens past this limit (a review) */
    if (!(prefix >= 1 && prefix <= 1e6))
        prefix = 0;
    *prefix_tokens = prefix;
    *tokens = prompt + out + prefix;
    return true;
}

/* 0, or 400 with the message in msg: the request's work past a limit of lim. */
static int check_limits(llmroof_ctx *ctx, const char *cmd, const cJSON *req, const struct server_limits *lim,
                        char *msg, size_t n)
{
    const int all_gpus = (int)api_ctx_gpu_count(ctx);
    if (!strcmp(cmd, "simulate")) {
        double reqs = 250, inst = 1; /* cmd_simulate.c's default --requests */
        /* below one too, in this server's range: the library's own message gives the CLI's, whose
         * 10,000,000 this server never takes (a review: the page said "[1, 10000000]") */
        if (server_count(req, "requests", "requests", lim->max_requests, " requests", &reqs, msg, n))
            return 400;
        int points = 1;
        static const char *const sweeps[] = { "sweep-batched-tokens", "sweep-rate", "sweep-concurrency" };
        for (size_t i = 0; i < sizeof sweeps / sizeof sweeps[0]; i++) {
            const cJSON *sw = opt_item(req, sweeps[i]);
            int k = list_len(sw, 1, all_gpus);
            /* a list with an empty item the library refuses, naming the item (it had read "18 points
             * is past" for 17 values and a doubled comma); the field as the request spells it */
            const bool empty_item = sw && cJSON_IsString(sw) &&
                                    (strstr(sw->valuestring, ",,") || sw->valuestring[0] == ',' ||
                                     (sw->valuestring[0] && sw->valuestring[strlen(sw->valuestring) - 1] == ','));
            if (k > lim->max_sweep_points && !empty_item) {
                char field[32];
                snprintf(field, sizeof field, "%s", sweeps[i]);
                for (char *q = field; *q; q++)
                    *q = *q == '-' ? '_' : *q;
                snprintf(msg, n, "llmroof: error: request: field '%s': %d points is past this server's limit of %d",
                         field, k, lim->max_sweep_points);
                return 400;
            }
            points = k > points ? k : points;
        }
        if (server_count(req, "instances", "instances", lim->max_instances, "", &inst, msg, n))
            return 400;
        /* a disaggregated run simulates both pools' instances, as many as --instances would (before
         * session 47 "prefill_pool": "4096:h100" passed the limit of 64 that "instances": 4096 met) */
        double pool[2] = { 0, 0 };
        const bool has_pool[2] = { pool_instances(req, "prefill-pool", &pool[0]),
                                   pool_instances(req, "decode-pool", &pool[1]) };
        if ((has_pool[0] || has_pool[1]) && pool[0] + pool[1] > (double)lim->max_instances) {
            char g0[40], g1[40];
            api_number_text(pool[0], g0, sizeof g0);
            api_number_text(pool[1], g1, sizeof g1);
            snprintf(msg, n,
                     "llmroof: error: request: fields 'prefill_pool' + 'decode_pool': %s + %s instances is past this "
                     "server's limit of %ld",
                     g0, g1, lim->max_instances);
            return 400;
        }
        /* --capacity-band reruns the whole simulation at the band's low and high service rate:
         * three runs for each point (a review: the limit had counted one) */
        const cJSON *band = opt_item(req, "capacity-band");
        if (band && !cJSON_IsNull(band) && !cJSON_IsFalse(band))
            points *= 3;
        double per = 0, prefix = 0;
        const char *spec = NULL;
        const bool counted = sim_request_tokens(req, &per, &prefix, &spec);
        if (counted && !(per >= 0 && isfinite(per))) {
            /* fail closed: lengths past what a long holds (lognormal:1:1000000000:1:1000000000 draws
             * some above 10^18) averaged to a negative number, which passed the limit */
            snprintf(msg, n,
                     "llmroof: error: request: field 'workload': the mean lengths of workload '%.64s' are not a "
                     "number of tokens this server can count (a P90 far above its median?); past this server's limit "
                     "of %.3g tokens to simulate",
                     spec, lim->max_sim_tokens);
            return 400;
        }
        if (counted && reqs * per * points > lim->max_sim_tokens) {
            /* the shared prefix said apart: chat's means are 495 tokens, not the 2,495 a prefix of
             * 2,000 makes of them (a review) */
            char pre[96] = "";
            if (prefix > 0)
                snprintf(pre, sizeof pre, " + %.0f tokens of 'shared_prefix'", prefix);
            snprintf(msg, n,
                     "llmroof: error: request: fields 'requests' x 'workload'%s: %.0f requests x (%.0f prompt + output "
                     "tokens (the means of workload '%.64s')%s) x %d run%s = %.3g tokens to simulate is past this "
                     "server's limit of %.3g (fewer requests or a shorter workload)",
                     prefix > 0 ? " + 'shared_prefix'" : "", reqs, per - prefix, spec, pre, points,
                     points == 1 ? "" : "s", reqs * per * points, lim->max_sim_tokens);
            return 400;
        }
    } else if (!strcmp(cmd, "plan")) {
        /* the server runs requests side by side, each on the thread that took it: a request's
         * own threads (plan --jobs) would multiply what --max-compute bounds */
        const cJSON *jobs = opt_item(req, "jobs");
        /* taken: what the library reads as one thread (a number, or text as --jobs reads it; a
         * list is text by now, api_request_flatten) or as no option at all (false, null) */
        int64_t one = 0;
        const bool one_thread = !jobs || cJSON_IsNull(jobs) || cJSON_IsFalse(jobs) ||
                                (cJSON_IsNumber(jobs) && jobs->valuedouble == 1) ||
                                (cJSON_IsString(jobs) && parse_int64(jobs->valuestring, 1, 1, &one));
        if (!one_thread) {
            snprintf(msg, n, "llmroof: error: request: field 'jobs': this server runs each request on one thread "
                             "(leave 'jobs' out, or give 1)");
            return 400;
        }
        int layouts = list_len(opt_item(req, "gpus"), 4, all_gpus) * list_len(opt_item(req, "tp"), 4, all_gpus);
        if (layouts > lim->max_plan_layouts) {
            snprintf(msg, n,
                     "llmroof: error: request: fields 'gpus' x 'tp': %d layouts to search is past this server's limit "
                     "of %d (name fewer GPUs or TP values)",
                     layouts, lim->max_plan_layouts);
            return 400;
        }
    }
    return 0;
}

/* Runs a roofline request with the chart written to a file of the server's own choosing (a
 * fresh private directory), returns its text. */
static void roofline_svg(llmroof_ctx *ctx, cJSON *req, unsigned flags, struct server_reply *r)
{
    const char *tmp = getenv("TMPDIR");
    char dir[PATH_MAX], path[PATH_MAX + 16];
    snprintf(dir, sizeof dir, "%s/llmroof-serve-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        reply_error(r, 500, "llmroof: error: cannot make a temporary directory for the chart");
        return;
    }
    snprintf(path, sizeof path, "%s/roofline.svg", dir);
    char *text = NULL, *err = NULL;
    int rc = LLMROOF_API_EFAIL;
    /* a request's own "svg": null or false passes the refusal (no option, docs/api.md): dropped
     * here, or the server's path became a key given twice and the answer a 400 (a review) */
    cJSON_DeleteItemFromObjectCaseSensitive(req, "svg");
    if (cJSON_AddStringToObject(req, "svg", path) && (text = rj_print(req, false, false)))
        rc = api_ctx_call_flags(ctx, text, NULL, &err, flags);
    free(text);
    /* its warnings and notes as every command's (a review: this path had kept a note in the 400's
     * error and dropped it from the 200) */
    char *warn = NULL, *rest = NULL;
    const bool split = split_messages(err, &warn, &rest);
    if (rc) {
        reply_error(r, rc == LLMROOF_API_EINPUT ? 400 : 500,
                    split && rest && rest[0] ? rest : err ? err : "llmroof: error: out of memory");
    } else {
        struct server_cfg here = { 0 };
        here.web_dir = dir;
        serve_file(&here, "roofline.svg", "image/svg+xml", r);
    }
    r->warnings = warn;
    free(rest);
    free(err);
    unlink(path);
    rmdir(dir);
}

/* Whether cmd is a command served over HTTP (or the roofline's SVG); else r holds the 404. */
static bool api_known(const char *cmd, struct server_reply *r)
{
    bool known = !strcmp(cmd, "roofline.svg");
    for (size_t i = 0; i < sizeof api_commands / sizeof api_commands[0]; i++)
        known |= !strcmp(cmd, api_commands[i]);
    if (!known) {
        char msg[256];
        snprintf(msg, sizeof msg, "llmroof: error: request: no command '%.60s' over HTTP (estimate, memory, roofline, "
                                  "roofline.svg, simulate, plan, report, list, show)", cmd);
        reply_error(r, 404, msg);
    }
    return known;
}

static void route_api(llmroof_ctx *ctx, const struct server_cfg *cfg, const char *cmd, const char *body, size_t len,
                      unsigned flags, const struct llmroof_stop *stop, struct server_reply *r)
{
    bool svg = !strcmp(cmd, "roofline.svg");
    if (!api_known(cmd, r))
        return;
    if (len > SERVER_MAX_BODY_BYTES) {
        reply_error(r, 413, "llmroof: error: request: the body is over 1 MiB");
        return;
    }
    size_t bad = 0;
    if (len && !parse_utf8_valid(body, len, &bad)) {
        /* worded as the library's check (api.c check_request_text), the byte named */
        char m[160];
        snprintf(m, sizeof m, "llmroof: error: request: invalid UTF-8 at byte %zu (byte 0x%02x): a request is JSON "
                              "text, which is UTF-8", bad, (unsigned)(unsigned char)body[bad]);
        reply_error(r, 400, m);
        return;
    }
    /* a body of JSON whitespace alone is no body, as an empty one (which reads as {}): three spaces
     * had been "invalid JSON at byte 2" (a review) */
    size_t ws = 0;
    while (ws < len && (body[ws] == ' ' || body[ws] == '\t' || body[ws] == '\r' || body[ws] == '\n'))
        ws++;
    if (ws == len)
        len = 0;
    if (len && parse_json_too_deep(body, len, 16) != SIZE_MAX) {
        reply_error(r, 400, "llmroof: error: request: the body nests deeper than 16 levels");
        return;
    }
    const char *end = NULL;
    /* as the library reads a request: an escaped NUL inside a string ("llama-2-7b\u0000x") becomes
     * U+0001, which api_request_flatten refuses naming the field, where cJSON would cut the string */
    char *copy = len ? malloc(len + 1) : NULL, *mapped = NULL;
    if (copy) {
        memcpy(copy, body, len);
        copy[len] = '\0';
        mapped = strlen(copy) == len ? api_map_nul_escapes(copy) : NULL; /* a raw NUL: invalid JSON below */
    }
    const char *text_in = mapped ? mapped : body;
    char msg[512];
    cJSON *req = len ? cJSON_ParseWithLengthOpts(text_in, len, &end, 0) : cJSON_CreateObject();
    if (end) /* offsets into the body */
        end = body + (end - text_in);
    free(copy);
    const bool crowded = req && cJSON_IsObject(req) && too_many_values(req, msg, sizeof msg);
    if (!req || !cJSON_IsObject(req) || crowded) {
        free(mapped);
        mapped = NULL;
    }
    /* the body's numbers as written (the library sees them only after the reprint below): a seed
     * of 9007199254740993 is refused as such, not as the ...992 a double makes of it. After the
     * parse and the counts above: the library's scan of a number looks ahead in the text, and on a
     * body of 300,000 numbers cost 5 s (counted first, such a body is 400 in milliseconds) */
    if (mapped && api_check_numbers(mapped, msg, sizeof msg)) {
        free(mapped);
        cJSON_Delete(req);
        reply_error(r, 400, msg);
        return;
    }
    free(mapped);
    if (!req) {
        size_t at = end && end >= body && end <= body + len ? (size_t)(end - body) : 0;
        /* as the library says it: a NaN or Infinity with its field (json.dumps writes them) */
        char *text = malloc(len + 1);
        if (text) {
            memcpy(text, body, len);
            text[len] = '\0';
            api_parse_error_message(text, at, msg, sizeof msg);
            free(text);
        } else {
            snprintf(msg, sizeof msg, "llmroof: error: request: invalid JSON at byte %zu", at);
        }
        reply_error(r, 400, msg);
        return;
    }
    size_t tail = end && end >= body && end <= body + len ? (size_t)(end - body) : len;
    while (tail < len && body[tail] && strchr(" \t\r\n", body[tail])) /* strchr finds a NUL too */
        tail++;
    if (tail < len) {
        /* the library refuses text after the document too (api.c: cJSON_ParseWithOpts, NUL required);
           a second object would otherwise be dropped without a word */
        cJSON_Delete(req);
        snprintf(msg, sizeof msg, "llmroof: error: request: invalid JSON at byte %zu: text after the JSON object", tail);
        reply_error(r, 400, msg);
        return;
    }
    if (!cJSON_IsObject(req)) {
        cJSON_Delete(req);
        reply_error(r, 400, "llmroof: error: request: the body must be a JSON object of options");
        return;
    }
    if (crowded) { /* msg holds the limit */
        cJSON_Delete(req);
        reply_error(r, 400, msg);
        return;
    }
    const char *inf_key = nonfinite_field(req);
    if (inf_key) {
        /* 1e400 parses to infinity, which cJSON_PrintUnformatted below would write as null, and null
           means "the default": refuse it here, naming the field, as the library does */
        snprintf(msg, sizeof msg, "llmroof: error: request: field '%.64s': the number is out of range (expected a finite number)",
                 inf_key);
        cJSON_Delete(req);
        reply_error(r, 400, msg);
        return;
    }
    size_t dup_at = 0;
    if (parse_json_dup_key(body, len, &dup_at) == 1) {
        cJSON_Delete(req);
        snprintf(msg, sizeof msg, "llmroof: error: request: a key is given twice (byte %zu)", dup_at);
        reply_error(r, 400, msg);
        return;
    }
    /* lists as the command line gets them ([10000000] -> "10000000", ["csv:/etc/passwd"] ->
     * "csv:/etc/passwd"): the refusals and limits below read option text, and must read what runs */
    int frc = api_request_flatten(req, msg, sizeof msg);
    if (frc) {
        cJSON_Delete(req);
        reply_error(r, frc == LLMROOF_API_EINPUT ? 400 : 500, msg);
        return;
    }
    const cJSON *it;
    cJSON_ArrayForEach(it, req) {
        char k[64];
        key_norm(it->string, k, sizeof k);
        bool catalog_args = !strcmp(k, "args") && (!strcmp(cmd, "list") || !strcmp(cmd, "show"));
        /* false and null are no option (the library gives them none), so they name no file and
         * change no format: "format": null had been refused as if it asked for another format
         * ("command" is no option: the path names it, whatever its value) */
        const bool nothing = ((cJSON_IsNull(it) || cJSON_IsFalse(it)) && strcmp(k, "command") != 0) ||
                             /* the format every answer has: a library request's body sent as it is
                              * had been refused (a review) */
                             (!strcmp(k, "format") && cJSON_IsString(it) && !strcmp(it->valuestring, "json"));
        for (size_t i = 0; i < sizeof refused / sizeof refused[0] && !catalog_args && !nothing; i++)
            if (!strcmp(k, refused[i].key)) {
                snprintf(msg, sizeof msg, "llmroof: error: request: field '%s' %s: not over HTTP", refused[i].key,
                         refused[i].why);
                reply_error(r, 400, msg);
                cJSON_Delete(req);
                return;
            }
        if (!strcmp(k, "workload") && cJSON_IsString(it) && strstr(it->valuestring, "csv:")) {
            reply_error(r, 400, "llmroof: error: request: field 'workload': csv:FILE reads a file the request names: "
                                "not over HTTP");
            cJSON_Delete(req);
            return;
        }
    }
    const char *base = svg ? "roofline" : cmd;
    int status = check_limits(ctx, base, req, &cfg->lim, msg, sizeof msg);
    if (status) {
        reply_error(r, status, msg);
        cJSON_Delete(req);
        return;
    }
    if (!cJSON_AddStringToObject(req, "command", base)) {
        cJSON_Delete(req);
        reply_error(r, 500, "llmroof: error: out of memory");
        return;
    }
    if (svg) {
        roofline_svg(ctx, req, flags, r);
        cJSON_Delete(req);
        return;
    }
    /* numbers as their exact text: cJSON prints 15 significant digits where they compare equal
     * within its epsilon, so a seed of 5000000000000001 had gone on as 5e+15 */
    for (cJSON *nv = req->child, *next; nv; nv = next) {
        next = nv->next;
        if (!cJSON_IsNumber(nv))
            continue;
        char num[64];
        api_number_text(nv->valuedouble, num, sizeof num);
        cJSON *raw = cJSON_CreateRaw(num);
        /* replaced where it stands, its key moved over: replacing by key searched the object from
         * its start for each number, quadratic in the fields (75,000 numbers took 10 s) */
        if (raw) {
            raw->string = nv->string;
            raw->type |= nv->type & cJSON_StringIsConst;
            nv->string = NULL;
        }
        if (!raw || !cJSON_ReplaceItemViaPointer(req, nv, raw)) {
            cJSON_Delete(raw);
            cJSON_Delete(req);
            reply_error(r, 500, "llmroof: error: out of memory");
            return;
        }
    }
    char *text = rj_print(req, false, false);
    cJSON_Delete(req);
    if (!text) {
        reply_error(r, 500, "llmroof: error: out of memory");
        return;
    }
    char *out = NULL, *err = NULL, *warn = NULL, *rest = NULL;
    int rc = api_ctx_call_stop(ctx, text, &out, &err, flags, stop ? stop->fn : NULL, stop ? stop->arg : NULL);
    free(text);
    if (!split_messages(err, &warn, &rest)) {
        free(out);
        free(err);
        reply_error(r, 500, "llmroof: error: out of memory");
        return;
    }
    if (rc == LLMROOF_API_OK || (rc == LLMROOF_API_EFAIL && out && !strcmp(cmd, "plan"))) {
        /* plan: a table where no row is feasible is still the answer (exit 1 on the CLI) */
        if (!out)
            out = strdup("{}\n");
        reply_set(r, 200, "application/json", out, out ? strlen(out) : 0);
        out = NULL;
    } else {
        reply_error(r, rc == LLMROOF_API_EINPUT ? 400 : rc == LLMROOF_API_ESTOPPED ? 503 : 500,
                    rest && rest[0] ? rest : err ? err : "llmroof: error: the command failed");
    }
    r->warnings = warn;
    free(rest);
    free(out);
    free(err);
}

/* "127.0.0.1", "localhost", "::1" or any 127.x.y.z: the name part of a Host value or of an
 * Origin's authority (len bytes, brackets and port already cut) */
static bool loopback_name(const char *s, size_t len)
{
    if ((len == 9 && !strncasecmp(s, "localhost", 9)) || (len == 3 && !strncmp(s, "::1", 3)))
        return true;
    if (len < 4 || strncmp(s, "127.", 4) != 0)
        return false;
    for (size_t i = 4; i < len; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || s[i] == '.'))
            return false;
    return true;
}

/* The host of "name:port", "[v6]:port" or "name" is a loopback name */
static bool loopback_authority(const char *a)
{
    if (*a == '[') {
        const char *e = strchr(a, ']');
        return e && loopback_name(a + 1, (size_t)(e - a - 1));
    }
    const char *colon = strchr(a, ':');
    return loopback_name(a, colon ? (size_t)(colon - a) : strlen(a));
}

/* The port of "name:port", "[v6]:port" or "name" (len bytes; "80", http's, without one) */
static void authority_port(const char *a, size_t len, char *port, size_t size)
{
    const char *end = a + len, *p = a;
    if (*a == '[') {
        const char *e = memchr(a, ']', len);
        p = e ? e + 1 : end;
    }
    const char *colon = memchr(p, ':', (size_t)(end - p));
    if (colon && colon + 1 < end)
        snprintf(port, size, "%.*s", (int)(end - colon - 1), colon + 1);
    else
        snprintf(port, size, "80");
}

/* An Origin's authority: after "scheme://", up to a '/' if any */
static size_t origin_authority(const char *after, const char **a)
{
    *a = after;
    const char *slash = strchr(after, '/');
    return slash ? (size_t)(slash - after) : strlen(after);
}

int server_check_headers(const struct server_cfg *cfg, const char *method, const char *url, const char *host,
                         const char *origin, const char *content_type, struct server_reply *r)
{
    const char *bind = cfg && cfg->host ? cfg->host : "127.0.0.1";
    const size_t skip = bind[0] == '[' ? 1 : 0, blen = strlen(bind); /* "[::1]": the brackets cut */
    if (blen > 2 * skip && loopback_name(bind + skip, blen - 2 * skip)) {
        if (host && !loopback_authority(host)) {
            reply_error(r, 403, "llmroof: error: request: header 'Host' must name this loopback server "
                                "(127.0.0.1, localhost or [::1]): another name is how DNS rebinding reaches it");
            return r->status;
        }
        if (origin) {
            const char *sep = strstr(origin, "://");
            if (!sep || strncmp(origin, "http", 4) != 0 || !loopback_authority(sep + 3)) {
                reply_error(r, 403, "llmroof: error: request: header 'Origin' must be a page of this loopback server: "
                                    "a page of another site may not call its API");
                return r->status;
            }
            /* and of this server, not another on the same host: its port is the Host's (a page
             * of another local web app, 127.0.0.1:9999, had passed; a review) */
            if (host) {
                const char *oa;
                const size_t olen = origin_authority(sep + 3, &oa);
                char op[16], hp[16];
                authority_port(oa, olen, op, sizeof op);
                authority_port(host, strlen(host), hp, sizeof hp);
                if (strcmp(op, hp) != 0) {
                    reply_error(r, 403, "llmroof: error: request: header 'Origin' must be a page of this loopback "
                                        "server, on its port: a page of another local server may not call its API");
                    return r->status;
                }
            }
        }
    }
    /* a path that names no command is 404 whatever its headers (server_route): the media type is
     * checked on a command's (a review: a text/plain POST to /api/v1/sweep got 415, then 404) */
    bool command = false;
    if (url && !strncmp(url, "/api/v1/", 8) && !strchr(url + 8, '/') && strlen(url + 8) <= 64) {
        struct server_reply none = { 0 };
        command = api_known(url + 8, &none);
        server_reply_free(&none);
    }
    if (method && !strcmp(method, "POST") && command &&
        !(content_type && !strncasecmp(content_type, "application/json", 16) &&
          (content_type[16] == '\0' || content_type[16] == ';' || content_type[16] == ' '))) {
        reply_error(r, 415, "llmroof: error: request: header 'Content-Type' must be application/json (a "
                            "cross-site form cannot send it without a preflight this server refuses)");
        return r->status;
    }
    /* the body is read as UTF-8 (RFC 8259): a charset parameter naming another was accepted and
     * its bytes then refused as "not UTF-8" (a review) */
    const char *cs = NULL;
    for (const char *p = content_type; p && *p && !cs; p++)
        if (!strncasecmp(p, "charset=", 8))
            cs = p;
    if (method && !strcmp(method, "POST") && command && cs) {
        cs += 8;
        if (*cs == '"')
            cs++;
        if (strncasecmp(cs, "utf-8", 5) != 0 || (cs[5] && cs[5] != '"' && cs[5] != ';' && cs[5] != ' ')) {
            reply_error(r, 415, "llmroof: error: request: header 'Content-Type': the body is JSON in UTF-8 (charset=utf-8 "
                                "or none)");
            return r->status;
        }
    }
    return 0;
}

int server_check_framing(unsigned content_lengths, unsigned transfer_encodings, const char *transfer_encoding,
                         struct server_reply *r)
{
    if (content_lengths > 1) {
        reply_error(r, 400, "llmroof: error: request: header 'Content-Length' is given more than once: send it once "
                            "(two can disagree on where the body ends)");
        return r->status;
    }
    if (transfer_encodings > 1 || (transfer_encodings && content_lengths)) {
        reply_error(r, 400, transfer_encodings > 1
                                ? "llmroof: error: request: header 'Transfer-Encoding' is given more than once: send "
                                  "it once, as 'chunked'"
                                : "llmroof: error: request: headers 'Transfer-Encoding' and 'Content-Length' are both "
                                  "given, which leaves the body's length ambiguous: send one of them");
        return r->status;
    }
    if (transfer_encodings) {
        /* the value with its optional whitespace (RFC 9110 section 5.5) cut; a list ("gzip, chunked")
         * names a coding this server cannot decode */
        const char *v = transfer_encoding ? transfer_encoding : "";
        v += strspn(v, " \t");
        size_t n = strlen(v);
        while (n && (v[n - 1] == ' ' || v[n - 1] == '\t'))
            n--;
        if (!(n == 7 && !strncasecmp(v, "chunked", 7))) {
            char msg[200];
            snprintf(msg, sizeof msg, "llmroof: error: request: header 'Transfer-Encoding': '%.*s' is not understood "
                                      "(expected chunked, or a Content-Length instead)", n > 60 ? 60 : (int)n, v);
            reply_error(r, 501, msg);
            return r->status;
        }
    }
    return 0;
}

int server_check_host_origin(const char *version, unsigned hosts, unsigned origins, struct server_reply *r)
{
    /* the loopback checks (server_check_headers) read the first Host and Origin: a second one
     * would pass unread, and a proxy in front may act on the other */
    if (hosts > 1) {
        reply_error(r, 400, "llmroof: error: request: header 'Host' is given more than once: send it once "
                            "(RFC 9112 section 3.2)");
        return r->status;
    }
    if (origins > 1) {
        reply_error(r, 400, "llmroof: error: request: header 'Origin' is given more than once: send it once "
                            "(RFC 6454 section 7.3)");
        return r->status;
    }
    /* HTTP/1.0 had no Host; from 1.1 on it is required (RFC 9112 section 3.2: "MUST respond with
     * a 400") */
    if (!hosts && version && strcmp(version, "HTTP/1.0") != 0 && strcmp(version, "HTTP/0.9") != 0) {
        reply_error(r, 400, "llmroof: error: request: header 'Host' is missing: an HTTP/1.1 request must send it "
                            "(RFC 9112 section 3.2)");
        return r->status;
    }
    return 0;
}

void server_route(llmroof_ctx *ctx, const struct server_cfg *cfg, const char *method, const char *url,
                  const char *body, size_t len, unsigned flags, const struct llmroof_stop *stop,
                  struct server_reply *out)
{
    *out = (struct server_reply){ 0 };
    static const char prefix[] = "/api/v1/";
    bool api = !strncmp(url, prefix, sizeof prefix - 1);
    bool get = !strcmp(method, "GET") || !strcmp(method, "HEAD");
    if (api) {
        const char *cmd = url + sizeof prefix - 1;
        /* a path that names no command is 404 whatever the method: a GET had been told to POST
         * to it (405), where a POST then got 404 (a review) */
        if (!*cmd || strchr(cmd, '/') || strlen(cmd) > 64) {
            reply_error(out, 404, "llmroof: error: request: no such path");
            return;
        }
        if (!api_known(cmd, out))
            return;
        if (strcmp(method, "POST") != 0) {
            out->allow = "POST";
            reply_error(out, 405, "llmroof: error: request: the API takes POST with a JSON body");
            return;
        }
        route_api(ctx, cfg, cmd, body, len, flags, stop, out);
        return;
    }
    if (!strcmp(url, "/favicon.ico")) {
        /* a browser asks for it on its own wherever a page names no icon (the page names an inline
         * one): "no content" rather than 404 noise in its console */
        if (!get) {
            out->allow = "GET, HEAD";
            reply_error(out, 405, "llmroof: error: request: /favicon.ico takes GET");
            return;
        }
        reply_set(out, 204, NULL, NULL, 0);
        return;
    }
    for (size_t i = 0; i < sizeof pages / sizeof pages[0]; i++)
        if (!strcmp(url, pages[i].url)) {
            if (!get) {
                out->allow = "GET, HEAD";
                reply_error(out, 405, "llmroof: error: request: the page takes GET");
                return;
            }
            serve_file(cfg, pages[i].file, pages[i].ctype, out);
            return;
        }
    reply_error(out, 404, "llmroof: error: request: no such path");
}

/* ---- libmicrohttpd glue --------------------------------------------------------------- */

struct server_state {
    llmroof_ctx *ctx;
    const struct server_cfg *cfg;
    pthread_mutex_t mu; /* guards busy */
    pthread_cond_t freed; /* a computation ended */
    int busy;           /* API requests computing now */
    int max_busy;       /* simulate and plan compute on at most this many: one per CPU (at least 2) */
    pthread_mutex_t log_mu;     /* guards the three below: libmicrohttpd logs from any thread */
    struct timespec log_window; /* when the current window of SERVER_LOG_WINDOW_S began */
    unsigned log_lines;         /* lines printed in that window */
    unsigned long log_dropped;  /* lines not printed since the last one printed */
    pthread_mutex_t watch_mu;   /* guards the watch list below (the header watchdog) */
    pthread_cond_t watch_wake;  /* the watchdog's tick, or its stop */
    struct wconn **watch;       /* the open connections */
    size_t nwatch, watch_cap;
    bool watch_stop;
};

/* One open connection as the header watchdog sees it (watchdog, below). */
struct wconn {
    MHD_socket fd;
    struct timespec start; /* when its current request could begin: accepted, or its last request done */
    bool in_handler;       /* its request's headers are in: on_request's body deadline and --max-compute bound it */
    bool cut;              /* shut down once already */
    size_t slot;           /* its index in server_state.watch */
};

/* libmicrohttpd's messages, at most SERVER_LOG_LINES_PER_WINDOW lines per SERVER_LOG_WINDOW_S:
 * it logs a line for each connection it refuses ("Server reached connection limit"), so a flood
 * of connections would flood stderr as well (the select() mode had written one line per refused
 * connection). The next line printed says how many were left out. */
#define SERVER_LOG_WINDOW_S 10
#define SERVER_LOG_LINES_PER_WINDOW 5

static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
    struct server_state *st = cls;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    pthread_mutex_lock(&st->log_mu);
    if (now.tv_sec - st->log_window.tv_sec >= SERVER_LOG_WINDOW_S) {
        st->log_window = now;
        st->log_lines = 0;
    }
    const bool print = st->log_lines < SERVER_LOG_LINES_PER_WINDOW;
    unsigned long dropped = 0;
    if (print) {
        st->log_lines++;
        dropped = st->log_dropped;
        st->log_dropped = 0;
    } else {
        st->log_dropped++;
    }
    pthread_mutex_unlock(&st->log_mu);
    if (!print)
        return;
    char line[512];
    vsnprintf(line, sizeof line, fmt, ap);
    size_t n = strlen(line);
    while (n && line[n - 1] == '\n')
        line[--n] = '\0';
    if (dropped)
        fprintf(stderr, "llmroof: serve: %s (and %lu similar messages not shown)\n", line, dropped);
    else
        fprintf(stderr, "llmroof: serve: %s\n", line);
    fflush(stderr);
}

/* How many connections at once: SERVER_MAX_CONNECTIONS, or fewer where the process may open fewer
 * files (each connection is a descriptor; SERVER_FD_RESERVE are kept for the listening socket,
 * the page's files and a chart's temporary file). The soft limit on open files is raised to the
 * hard one first: it is often 1024, which would cap the connections at about 1,000. */
static unsigned connection_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return 1024 - SERVER_FD_RESERVE;
    if (rl.rlim_cur < rl.rlim_max) {
        struct rlimit up = rl;
        up.rlim_cur = rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &up) == 0)
            rl = up;
    }
    if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= (rlim_t)SERVER_MAX_CONNECTIONS + SERVER_FD_RESERVE)
        return SERVER_MAX_CONNECTIONS;
    return rl.rlim_cur > (rlim_t)2 * SERVER_FD_RESERVE ? (unsigned)(rl.rlim_cur - SERVER_FD_RESERVE) : SERVER_FD_RESERVE;
}

/* One request's state: made by on_uri once its request line has come (libmicrohttpd passes it to
 * on_request as *con_cls), freed by on_completed. */
struct conn {
    struct sbuf body;         /* the request body so far */
    bool too_big;             /* over SERVER_MAX_BODY_BYTES: the rest is read and dropped */
    bool seen;                /* on_request has looked at its headers */
    size_t uri_bytes;         /* the request target's length, query included */
    bool nul_in_path;         /* its path holds "%00": libmicrohttpd's decoded path ends there */
    struct timespec start;    /* when its request line came */
};

static struct conn *conn_new(size_t uri_bytes)
{
    struct conn *k = calloc(1, sizeof *k);
    if (k) {
        sbuf_init(&k->body);
        k->uri_bytes = uri_bytes;
        clock_gettime(CLOCK_MONOTONIC, &k->start);
    }
    return k;
}

/* MHD_OPTION_URI_LOG_CALLBACK: called with the raw request target before libmicrohttpd splits off
 * its query, the only place its whole length is seen (the handler's url is the path alone); what
 * it returns is the request's *con_cls, freed by on_completed whatever becomes of the request
 * (libmicrohttpd's documented use, microhttpd.h). NULL (no memory): on_request makes its own. */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *c)
{
    (void)cls;
    (void)c;
    struct conn *k = conn_new(strlen(uri));
    /* "%00" in the path: the decoded path the handler sees ends at the NUL, so /api/v1/estimate%00x
     * had run estimate and /app.js%00.css served app.js (a review); such a path names no file or
     * command: 404 */
    const size_t plen = strcspn(uri, "?");
    for (size_t i = 0; k && i + 2 < plen; i++)
        if (uri[i] == '%' && uri[i + 1] == '0' && uri[i + 2] == '0')
            k->nul_in_path = true;
    return k;
}

/* MHD_get_connection_values' iterator: counts the header lines named Content-Length,
 * Transfer-Encoding, Host and Origin (libmicrohttpd keeps each line; MHD_lookup_connection_value
 * sees the first) and the bytes of all */
struct framing {
    unsigned content_lengths, transfer_encodings;
    unsigned hosts, origins;       /* Host and Origin lines: the checks read the first alone */
    const char *transfer_encoding; /* the first Transfer-Encoding's value */
    size_t header_bytes;           /* every header's name and value */
};

static enum MHD_Result count_framing(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    (void)kind;
    struct framing *f = cls;
    f->header_bytes += (key ? strlen(key) : 0) + (value ? strlen(value) : 0);
    if (key && !strcasecmp(key, "Content-Length")) {
        f->content_lengths++;
    } else if (key && !strcasecmp(key, "Transfer-Encoding")) {
        if (!f->transfer_encodings++)
            f->transfer_encoding = value;
    } else if (key && !strcasecmp(key, "Host")) {
        f->hosts++;
    } else if (key && !strcasecmp(key, "Origin")) {
        f->origins++;
    }
    return MHD_YES;
}

static double since_s(const struct timespec *t0)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - t0->tv_sec) + 1e-9 * (double)(now.tv_nsec - t0->tv_nsec);
}

/* The commands whose work the request's own numbers scale (a simulation's requests and rates, a
 * plan's layouts: seconds to --max-compute) against the ones that answer in milliseconds
 * (estimate, memory, roofline, report, list, show: one pass over fixed-size tables). */
static bool slot_heavy(const char *url)
{
    return !strcmp(url, "/api/v1/simulate") || !strcmp(url, "/api/v1/plan");
}

/* A CPU for one API request: the computations at most one per CPU, since more would only slow
 * every one of them (24 simulations at once made an estimate take 0.35 s). simulate and plan take
 * at most max_busy; the quick commands may take one more, so a CPU's worth of long requests cannot
 * hold a millisecond estimate for --timeout and answer it 503 (six plans of 30-40 s on two CPUs
 * had). A request waits up to --timeout for a slot; false: none came. */
static bool slot_acquire(struct server_state *st, bool heavy)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += (time_t)st->cfg->timeout_s;
    const int cap = st->max_busy + (heavy ? 0 : 1);
    pthread_mutex_lock(&st->mu);
    while (st->busy >= cap && pthread_cond_timedwait(&st->freed, &st->mu, &until) == 0)
        ;
    const bool got = st->busy < cap;
    st->busy += got;
    pthread_mutex_unlock(&st->mu);
    return got;
}

static void slot_release(struct server_state *st)
{
    pthread_mutex_lock(&st->mu);
    st->busy--;
    /* every waiter looks again: a quick request may go where a long one may not */
    pthread_cond_broadcast(&st->freed);
    pthread_mutex_unlock(&st->mu);
}

/* One computing request's stop callback (llmroof_ctx_call_stoppable): the computation ends when
 * it has run past --max-compute, or when its client has gone (closed or reset its socket: an
 * answer nobody reads is not worth a CPU). The socket is looked at every 50 ms at most. A closed
 * socket and a half-closed one read alike (end of file): a client that shuts down its sending side
 * and waits gets a 503 saying so. */
struct watch {
    int fd;                  /* the client's socket; -1: not known */
    struct timespec start;   /* when the computation began */
    struct timespec checked; /* when the socket was last looked at */
    double limit_s;          /* --max-compute */
    bool over, gone;         /* why it stopped */
};

static int watch_stop(void *arg)
{
    struct watch *w = arg;
    if (since_s(&w->start) > w->limit_s) {
        w->over = true;
        return 1;
    }
    if (w->fd >= 0 && since_s(&w->checked) >= 0.05) {
        clock_gettime(CLOCK_MONOTONIC, &w->checked);
        /* a peer that closed reads as end of file (0), one that reset as an error other than
         * "nothing yet"; pipelined bytes (> 0) are a client still there */
        char b;
        const ssize_t n = recv(w->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
            w->gone = true;
            return 1;
        }
    }
    return 0;
}

static enum MHD_Result send_reply(struct MHD_Connection *c, const struct server_reply *r)
{
    struct MHD_Response *resp =
        MHD_create_response_from_buffer(r->len, r->body ? r->body : (void *)"", MHD_RESPMEM_MUST_COPY);
    if (!resp)
        return MHD_NO;
    if (r->content_type) /* NULL: no body (204) */
        MHD_add_response_header(resp, "Content-Type", r->content_type);
    MHD_add_response_header(resp, "Cache-Control", "no-store");
    MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
    if (r->allow)
        MHD_add_response_header(resp, "Allow", r->allow);
    if (r->retry_after_s > 0) {
        char secs[16];
        snprintf(secs, sizeof secs, "%u", r->retry_after_s);
        MHD_add_response_header(resp, "Retry-After", secs);
    }
    /* one header a warning or note, its control characters (none expected) as spaces: a header
     * value holds no line break; at most 32 of them, each cut at 1000 bytes */
    int nwarn = 0;
    for (const char *p = r->warnings; p && *p && nwarn < 32; nwarn++) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char line[1001];
        const size_t keep = len < sizeof line - 1 ? len : sizeof line - 1;
        for (size_t i = 0; i < keep; i++)
            line[i] = (unsigned char)p[i] < 0x20 || p[i] == 0x7f ? ' ' : p[i];
        line[keep] = '\0';
        if (keep)
            MHD_add_response_header(resp, "X-Llmroof-Warning", line);
        p += len + (e ? 1 : 0);
    }
    enum MHD_Result ok = MHD_queue_response(c, (unsigned)r->status, resp);
    MHD_destroy_response(resp);
    return ok;
}

/* MHD_OPTION_NOTIFY_CONNECTION: each connection joins the watch list when accepted and leaves it
 * when closed; libmicrohttpd notifies the close before it closes the socket (daemon.c), so the
 * watchdog never shuts a descriptor down after its number went to a newer connection. */
static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode toe)
{
    struct server_state *st = cls;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        struct wconn *w = ci ? calloc(1, sizeof *w) : NULL;
        *socket_context = NULL;
        if (!w)
            return; /* unwatched: the idle timeout alone bounds it */
        w->fd = ci->connect_fd;
        clock_gettime(CLOCK_MONOTONIC, &w->start);
        pthread_mutex_lock(&st->watch_mu);
        if (st->nwatch == st->watch_cap) {
            const size_t cap = st->watch_cap ? 2 * st->watch_cap : 64;
            struct wconn **v = realloc(st->watch, cap * sizeof(struct wconn *));
            if (!v) {
                pthread_mutex_unlock(&st->watch_mu);
                free(w);
                return;
            }
            st->watch = v;
            st->watch_cap = cap;
        }
        w->slot = st->nwatch;
        st->watch[st->nwatch++] = w;
        pthread_mutex_unlock(&st->watch_mu);
        *socket_context = w;
    } else if (toe == MHD_CONNECTION_NOTIFY_CLOSED && *socket_context) {
        struct wconn *w = *socket_context;
        pthread_mutex_lock(&st->watch_mu);
        struct wconn *last = st->watch[--st->nwatch];
        st->watch[w->slot] = last;
        last->slot = w->slot;
        pthread_mutex_unlock(&st->watch_mu);
        free(w);
        *socket_context = NULL;
    }
}

/* The watch entry of connection c (NULL: unwatched); its fields are read and written under
 * watch_mu */
static struct wconn *watched(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return ci ? ci->socket_context : NULL;
}

static void watch_set(struct server_state *st, struct MHD_Connection *c, bool in_handler)
{
    struct wconn *w = watched(c);
    if (!w)
        return;
    pthread_mutex_lock(&st->watch_mu);
    w->in_handler = in_handler;
    if (!in_handler)
        clock_gettime(CLOCK_MONOTONIC, &w->start);
    pthread_mutex_unlock(&st->watch_mu);
}

/* The header watchdog: libmicrohttpd's --timeout is an idle timeout, and a client that sends its
 * request line and then a header line every few seconds is never idle, so it had held its thread
 * (and with enough of them every connection slot: a review of session 65 locked a server out for
 * as long as 160 such clients trickled) for as long as it liked. A request whose headers have not
 * all come within --timeout of the connection's accept (or of its previous request's end) has its
 * socket shut down, which ends libmicrohttpd's read and closes the connection; the body has its
 * own deadline (on_request) and the computation --max-compute. Looks every 250 ms. */
static void *watchdog(void *arg)
{
    struct server_state *st = arg;
    pthread_mutex_lock(&st->watch_mu);
    while (!st->watch_stop) {
        struct timespec until; /* on the monotonic clock (watch_wake's, server_run): a step of the
                                  wall clock neither stalls nor hurries the watchdog */
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_nsec += 250000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec += 1;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&st->watch_wake, &st->watch_mu, &until);
        for (size_t i = 0; i < st->nwatch; i++) {
            struct wconn *w = st->watch[i];
            if (!w->in_handler && !w->cut && since_s(&w->start) > (double)st->cfg->timeout_s) {
                shutdown(w->fd, SHUT_RDWR);
                w->cut = true;
            }
        }
    }
    pthread_mutex_unlock(&st->watch_mu);
    return NULL;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
    struct server_state *st = cls;
    struct conn *k = *con_cls;
    if (!k && !(k = *con_cls = conn_new(0)))
        return MHD_NO;
    if (!k->seen) {
        watch_set(st, c, true); /* its headers are in: the watchdog leaves it to the deadlines below */
        /* the headers have come, the body not yet: a request refused here is answered before its
         * body is read, and libmicrohttpd then closes the connection (what follows the headers is
         * not read as another request) */
        k->seen = true;
        struct server_reply r = { 0 };
        struct framing f = { 0, 0, 0, 0, NULL, 0 };
        MHD_get_connection_values(c, MHD_HEADER_KIND, count_framing, &f);
        char msg[160];
        if (server_check_framing(f.content_lengths, f.transfer_encodings, f.transfer_encoding, &r) ||
            server_check_host_origin(version, f.hosts, f.origins, &r)) {
            /* r holds the answer */
        } else if (k->nul_in_path) {
            reply_error(&r, 404, "llmroof: error: request: the path holds an encoded NUL byte (%00): no such file or "
                                 "command");
        } else if (k->uri_bytes > SERVER_MAX_URI_BYTES) {
            snprintf(msg, sizeof msg, "llmroof: error: request: the request target (path and query) is %zu bytes, "
                                      "over this server's limit of %zu", k->uri_bytes, SERVER_MAX_URI_BYTES);
            reply_error(&r, 414, msg);
        } else if (f.header_bytes > SERVER_MAX_HEADER_BYTES) {
            snprintf(msg, sizeof msg, "llmroof: error: request: the headers are %zu bytes (names and values), over "
                                      "this server's limit of %zu", f.header_bytes, SERVER_MAX_HEADER_BYTES);
            reply_error(&r, 431, msg);
        }
        const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
        double clen = 0;
        if (!r.status && cl && parse_double(cl, &clen) && clen > SERVER_MAX_BODY_BYTES) {
            k->too_big = true;
            /* not worth reading (over 64 MiB), or not sent yet: a client that asked
             * "Expect: 100-continue" (curl does above 1 MiB) waits for the go-ahead, so the 413
             * goes now instead of after the whole body (a review); MHD closes */
            const char *ex = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Expect");
            if (clen > 64.0 * SERVER_MAX_BODY_BYTES || (ex && strcasecmp(ex, "100-continue") == 0))
                reply_error(&r, 413, "llmroof: error: request: the body is over 1 MiB");
        }
        if (!r.status)
            return MHD_YES;
        enum MHD_Result ok = send_reply(c, &r);
        server_reply_free(&r);
        return ok;
    }
    if (*upload_size) {
        /* the idle timeout alone lets a byte every few seconds hold the thread for ever: the whole
         * body must come within --timeout (review of session 35) */
        if (since_s(&k->start) > (double)st->cfg->timeout_s)
            return MHD_NO; /* closes the connection */
        if (!k->too_big) {
            if (k->body.len + *upload_size > SERVER_MAX_BODY_BYTES) {
                k->too_big = true;
                sbuf_free(&k->body);
                sbuf_init(&k->body);
            } else {
                sbuf_appendn(&k->body, upload, *upload_size);
            }
        }
        *upload_size = 0;
        return MHD_YES;
    }
    struct server_reply r = { 0 };
    if (k->too_big) {
        reply_error(&r, 413, "llmroof: error: request: the body is over 1 MiB");
    } else if (sbuf_failed(&k->body)) {
        reply_error(&r, 500, "llmroof: error: out of memory");
    } else if (!strncmp(url, "/api/", 5) && MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Encoding") &&
               strcasecmp(MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Encoding"), "identity") != 0) {
        /* a compressed body had been refused as "not UTF-8" (a review): the header is named */
        reply_error(&r, 415, "llmroof: error: request: header 'Content-Encoding' is not taken: send the JSON body "
                             "uncompressed");
    } else if (!strncmp(url, "/api/", 5) && !strcmp(method, "POST") &&
               MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, NULL, NULL) > 0) {
        /* options in the URL had been ignored without a word, the body's taken (a review) */
        reply_error(&r, 400, "llmroof: error: request: the URL has a query string: the API takes its options in the "
                             "JSON body, not the URL");
    } else if (!server_check_headers(st->cfg, method, url, MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host"),
                                     MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Origin"),
                                     MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type"), &r)) {
        /* the page's files take no slot */
        const bool api = !strncmp(url, "/api/", 5);
        const bool run = !api || slot_acquire(st, slot_heavy(url));
        const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        struct watch w = { ci ? ci->connect_fd : -1, { 0, 0 }, { 0, 0 }, st->cfg->lim.max_compute_s, false, false };
        clock_gettime(CLOCK_MONOTONIC, &w.start);
        w.checked = w.start;
        const struct llmroof_stop stop = { watch_stop, &w };
        if (run)
            server_route(st->ctx, st->cfg, method, url, k->body.data ? k->body.data : "", k->body.len, 0, &stop, &r);
        else {
            /* every computing slot stayed taken while this request waited: a client learns when to
             * come back (a review: the message said retry, not when) */
            char msg[200];
            snprintf(msg, sizeof msg, "llmroof: error: the server was computing as many requests as it has CPUs "
                                      "for the whole %u s this request may wait (--timeout); retry in a second "
                                      "(Retry-After)", st->cfg->timeout_s);
            reply_error(&r, 503, msg);
            r.retry_after_s = 1;
        }
        if (api && run)
            slot_release(st);
        if (w.gone) {
            /* the peer closed its side: a client that left reads nothing of this, but one that only
             * half-closed (nc -N, a shutdown(SHUT_WR) after its request) learns why it has no answer */
            server_reply_free(&r);
            reply_error(&r, 503, "llmroof: error: request: the client closed its side of the connection while the "
                                 "answer was computed: the computation was stopped (keep the connection open)");
        }
        if (w.over) {
            char msg[200];
            snprintf(msg, sizeof msg, "llmroof: error: request: the computation ran past this server's limit of %g s "
                                      "(--max-compute); ask for less work (fewer requests, GPUs or TP values)",
                     st->cfg->lim.max_compute_s);
            server_reply_free(&r);
            reply_error(&r, 503, msg);
        }
    }
    enum MHD_Result ok = send_reply(c, &r);
    server_reply_free(&r);
    return ok;
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode why)
{
    (void)why;
    /* a kept-alive connection's next request has --timeout for its headers from now */
    watch_set(cls, c, false);
    struct conn *k = *con_cls;
    if (k) {
        sbuf_free(&k->body);
        free(k);
        *con_cls = NULL;
    }
}

int server_run(llmroof_ctx *ctx, const struct server_cfg *cfg)
{
    /* SIGINT and SIGTERM are blocked before MHD starts its threads (which inherit the mask)
     * and taken here with sigwait: a clean stop without a handler or a global flag. */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    sigset_t old;
    pthread_sigmask(SIG_BLOCK, &stop, &old);
    signal(SIGPIPE, SIG_IGN); /* a client that hangs up must not end the server */

    struct server_state st = { ctx,   cfg, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 2,
                               PTHREAD_MUTEX_INITIALIZER, { 0, 0 }, 0, 0, PTHREAD_MUTEX_INITIALIZER,
                               PTHREAD_COND_INITIALIZER, NULL, 0, 0, false };
    clock_gettime(CLOCK_MONOTONIC, &st.log_window);
    const long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    if (ncpu > 2)
        st.max_busy = ncpu > 1024 ? 1024 : (int)ncpu;
    struct sockaddr_in sa = { 0 };
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)cfg->port);
    if (inet_pton(AF_INET, cfg->host, &sa.sin_addr) != 1) {
        fprintf(stderr, "llmroof: error: serve: option '--host': '%s' is not an IPv4 address (e.g. 127.0.0.1, 0.0.0.0)\n",
                cfg->host);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        return 2;
    }
    /* poll(), not select(): select() takes no descriptor of FD_SETSIZE (1024) or more, and
     * libmicrohttpd refused every connection past about 1,020 open ones, logging a line for each
     * (epoll is not offered with a thread per connection). Past the connection limit a new
     * connection is closed at once, and the others go on being served. */
    const unsigned max_conns = connection_limit();
    struct MHD_Daemon *d = MHD_start_daemon(
        MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | MHD_USE_ERROR_LOG,
        (uint16_t)cfg->port, NULL, NULL, on_request, &st, MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, &st,
        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa, MHD_OPTION_CONNECTION_TIMEOUT,
        (unsigned)cfg->timeout_s, MHD_OPTION_CONNECTION_LIMIT, max_conns, MHD_OPTION_NOTIFY_COMPLETED, on_completed,
        &st, MHD_OPTION_URI_LOG_CALLBACK, on_uri, NULL, MHD_OPTION_CONNECTION_MEMORY_LIMIT, SERVER_CONN_MEMORY_BYTES,
        MHD_OPTION_NOTIFY_CONNECTION, on_connection, &st, MHD_OPTION_END);
    if (!d) {
        fprintf(stderr, "llmroof: error: serve: cannot listen on %s:%d: %s\n", cfg->host, cfg->port, strerror(errno));
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        return 1;
    }
    pthread_t dog;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&st.watch_wake, &ca);
    pthread_condattr_destroy(&ca);
    if (pthread_create(&dog, NULL, watchdog, &st) != 0) {
        fprintf(stderr, "llmroof: error: serve: cannot start the header watchdog thread\n");
        MHD_stop_daemon(d);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        return 1;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    unsigned port = info ? info->port : (unsigned)cfg->port;
    fprintf(stderr, "llmroof: serving http://%s:%u/ (page from %s; Ctrl-C stops)\n", cfg->host, port,
            cfg->web_dir ? cfg->web_dir : "nowhere");
    fflush(stderr);
    int sig = 0;
    while (sigwait(&stop, &sig) != 0)
        ;
    pthread_mutex_lock(&st.mu);
    const int busy = st.busy;
    pthread_mutex_unlock(&st.mu);
    if (busy > 0) {
        /* libmicrohttpd joins every connection's thread, and a computing one runs to its end (a
         * long plan held SIGTERM for over a minute): stop at once, its answers abandoned */
        fprintf(stderr, "llmroof: stopped (%s; %d request%s abandoned)\n", sig == SIGINT ? "SIGINT" : "SIGTERM", busy,
                busy == 1 ? "" : "s");
        fflush(stderr);
        _exit(0);
    }
    pthread_mutex_lock(&st.watch_mu);
    st.watch_stop = true;
    pthread_cond_signal(&st.watch_wake);
    pthread_mutex_unlock(&st.watch_mu);
    pthread_join(dog, NULL);
    MHD_stop_daemon(d);
    free(st.watch);
    fprintf(stderr, "llmroof: stopped (%s)\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return 0;
}

int server_main(int argc, char **argv)
{
    struct serve_opts o;
    int rc = serve_parse(argc, argv, &o, stdout, stderr);
    if (rc)
        return rc < 0 ? 0 : rc;
    char web[PATH_MAX];
    const char *dir = serve_web_dir(&o, web, sizeof web, stderr);
    if (!dir || serve_check_data_dir(&o, stderr))
        return 2;
    char *err = NULL;
    llmroof_ctx *ctx = llmroof_ctx_new(o.data_dir, &err);
    if (!ctx) {
        fputs(err ? err : "llmroof: error: cannot load the catalog\n", stderr);
        llmroof_free(err);
        return 2;
    }
    struct server_cfg cfg = { o.host, o.port, dir, o.timeout_s, { 0, 0, 0, 0, 0, 0 } };
    server_default_limits(&cfg.lim);
    cfg.lim.max_sim_tokens = o.max_sim_tokens;
    cfg.lim.max_plan_layouts = o.max_plan_layouts;
    cfg.lim.max_compute_s = o.max_compute_s;
    rc = server_run(ctx, &cfg);
    llmroof_ctx_free(ctx);
    return rc;
}
