/* server.h - `llmroof serve`: an HTTP front end over the JSON API (docs/api.md, "HTTP").
 *
 * HTTP itself is libmicrohttpd's (Debian's libmicrohttpd-dev): this module only routes a parsed
 * request (method, path, body) to llmroof_ctx_call or to a file of the page, so the routing is
 * a pure function (server_route) that the fuzz target and the unit tests call without sockets. */
#ifndef LLMROOF_SERVER_H
#define LLMROOF_SERVER_H

#include <stddef.h>

#include "base/stop.h"
#include "llmroof/api.h"

#define SERVER_MAX_BODY_BYTES ((size_t)1 << 20) /* 1 MiB: larger bodies get 413 */
/* 8 KiB: a longer request target (path and query) gets 414 with a JSON body. The page's own URLs
 * carry its state in a few hundred bytes; 8 KiB is Apache's LimitRequestLine and nginx's buffer. */
#define SERVER_MAX_URI_BYTES ((size_t)8 << 10)
/* 32 KiB: request headers longer in all (names and values) get 431 with a JSON body; about what
 * libmicrohttpd's default memory per connection let through before it was raised (below). */
#define SERVER_MAX_HEADER_BYTES ((size_t)32 << 10)
/* libmicrohttpd's memory per connection (MHD_OPTION_CONNECTION_MEMORY_LIMIT, 32 KiB by default):
 * the request line and headers must fit in it, or libmicrohttpd itself answers 414 or 431 with
 * its own HTML. 256 KiB lets a request target or headers up to about 250 KB reach the server,
 * which answers those past SERVER_MAX_URI_BYTES or SERVER_MAX_HEADER_BYTES in JSON. The pool is
 * mapped, not touched, so a connection costs the bytes it sent (at most 1 GiB for the 4096
 * connections allowed). */
#define SERVER_CONN_MEMORY_BYTES ((size_t)256 << 10)
/* Connections at once (MHD_OPTION_CONNECTION_LIMIT); past it a new connection is closed at once.
 * Each is a thread (libmicrohttpd's thread per connection) and a descriptor; fewer where the
 * process may open fewer files (server.c, connection_limit). An idle one is closed after
 * --timeout, so idle connections hold the server full only while a client keeps opening them. */
#define SERVER_MAX_CONNECTIONS 4096u
/* Descriptors kept back from the connections: the listening socket, the standard streams, the
 * page's files, a chart's temporary file. */
#define SERVER_FD_RESERVE 64u

/* Top-level fields of a request body: more is 400 before any per-field work. The largest command
 * (simulate) takes 74 options, each once; a body of thousands of fields is no request. */
#define SERVER_MAX_FIELDS 256
/* Values in all (fields, list entries, anything nested): more is 400 likewise. A list option holds
 * a few dozen entries (16 sweep points, the catalog's 36 GPUs). */
#define SERVER_MAX_VALUES 4096

/* Per-request work limits: a request past one gets 400 naming the limit (docs/api.md). */
struct server_limits {
    double max_sim_tokens;   /* simulate: requests x output tokens per request (default 2e7) */
    long max_requests;       /* simulate: --requests (default 20000) */
    int max_plan_layouts;    /* plan: GPUs x TP values searched (default 32) */
    int max_sweep_points;    /* simulate: entries of a --sweep-* list (default 16) */
    long max_instances;      /* simulate: --instances and pool sizes (default 64) */
    double max_compute_s;    /* simulate, plan: seconds one request may compute; past it 503
                                (default 120) */
};

/* What server_run needs. */
struct server_cfg {
    const char *host;          /* address to bind, "127.0.0.1" by default */
    int port;                  /* TCP port; 0 = any free one (printed) */
    const char *web_dir;       /* the page's files (index.html, app.js, style.css) */
    unsigned timeout_s;        /* idle connection timeout, and the most a body may take to arrive
                                  or a request wait for a CPU, seconds (default 10) */
    struct server_limits lim;
};

/* One routed request's answer. body is owned by the reply (server_reply_free). */
struct server_reply {
    int status;                /* HTTP status */
    const char *content_type;  /* static string */
    const char *allow;         /* 405: the Allow header's value; NULL otherwise */
    unsigned retry_after_s;    /* 503 for want of a CPU: the Retry-After header's seconds; 0: none */
    char *body;                /* response bytes (malloc'd), may be NULL with len 0 */
    size_t len;                /* bytes of body */
    char *warnings;            /* the command's warnings and notes, a line each (malloc'd), sent as
                                  X-Llmroof-Warning headers, one a line; NULL: none */
};

void server_default_limits(struct server_limits *lim);

/* The request's headers against cross-site use (review of session 35): a server bound to a
 * loopback address answers only requests whose Host names a loopback host (DNS rebinding sends
 * another name) and whose Origin, when a browser sends one, is a loopback page; a POST to the API
 * must say Content-Type: application/json, which a cross-site page cannot send without a CORS
 * preflight that this server never approves. NULL headers are absent. Returns 0 when the request
 * may proceed, else fills r (403 or 415) and returns its status. */
int server_check_headers(const struct server_cfg *cfg, const char *method, const char *url, const char *host,
                         const char *origin, const char *content_type, struct server_reply *r);

/* The request's framing headers (RFC 9112 section 6): Content-Length given more than once (even
 * with equal values), Transfer-Encoding given more than once or beside Content-Length, leave the
 * body's length to the reader's choice, which a proxy in front may make otherwise (request
 * smuggling): 400 naming the header. A transfer coding other than chunked, which libmicrohttpd
 * cannot decode (it waited for the connection's end), is 501 (RFC 9112 section 6.1). The counts
 * are of the header lines; transfer_encoding is the first one's value (NULL: none). Returns 0
 * when the body's length is plain, else fills r and returns its status. */
int server_check_framing(unsigned content_lengths, unsigned transfer_encodings, const char *transfer_encoding,
                         struct server_reply *r);

/* Host and Origin given once each (RFC 9112 section 3.2, RFC 6454 section 7.3): the loopback
 * checks above read the first of each, so a second would pass unread; and Host present in an
 * HTTP/1.1 request (version as libmicrohttpd gives it, "HTTP/1.1"; HTTP/1.0 may omit it). The
 * counts are of the header lines. Returns 0 when they are fine, else fills r (400) and returns
 * its status. */
int server_check_host_origin(const char *version, unsigned hosts, unsigned origins, struct server_reply *r);

/* Routes one request: GET of the page's files (GET /favicon.ico: 204, no icon), POST
 * /api/v1/<command>. `flags` are the api_ctx_call_flags flags (0 in the server; the fuzz target passes parse-only ones). stop
 * (NULL: never) is asked while a simulate or plan computes (llmroof_ctx_call_stoppable); a
 * stopped computation's reply is 503 with the library's message. Never fails: out of memory is
 * a 500 reply. */
void server_route(llmroof_ctx *ctx, const struct server_cfg *cfg, const char *method, const char *url,
                  const char *body, size_t len, unsigned flags, const struct llmroof_stop *stop,
                  struct server_reply *out);
void server_reply_free(struct server_reply *r);

/* Runs the server until SIGINT or SIGTERM (blocked in the calling thread and waited for with
 * sigwait, so no handler and no global flag). Prints "llmroof: serving http://HOST:PORT/" on
 * stderr. Returns 0 after a clean stop, 1 when the server could not start. */
int server_run(llmroof_ctx *ctx, const struct server_cfg *cfg);

/* `llmroof serve [options]`: argv[0] is "serve". Returns the exit status. */
int server_main(int argc, char **argv);

#endif
