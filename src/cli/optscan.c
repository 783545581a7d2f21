/* optscan.c - the re-entrant option scanner of optscan.h. */
#include "cli/optscan.h"

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

void optscan_init(struct optscan *s, int argc, char **argv, const struct optscan_def *defs, int ndefs,
                  bool stop_at_positional)
{
    memset(s, 0, sizeof *s);
    s->argc = argc;
    s->argv = argv;
    s->defs = defs;
    s->ndefs = ndefs;
    s->stop_at_positional = stop_at_positional;
    s->ind = 1;
}

static int find_short(const struct optscan *s, int ch);

/* The long option "name" (len bytes) names: an exact match, else the one option it is a
 * prefix of (getopt_long accepts "--mode" for "--model"); -1 when none, -2 when ambiguous. */
static int find_long(const struct optscan *s, const char *name, size_t len)
{
    int found = -1, matches = 0;
    for (int i = 0; i < s->ndefs; i++) {
        const char *n = s->defs[i].name;
        if (!n || strncmp(n, name, len) != 0)
            continue;
        if (n[len] == '\0')
            return i;
        if (s->exact_names)
            continue;
        found = i;
        matches++;
    }
    return matches == 1 ? found : matches > 1 ? -2 : -1;
}

int optscan_candidates(const struct optscan *s, const char *text, int *out, int max)
{
    const char *name = text + (text[0] == '-' && text[1] == '-' ? 2 : 0);
    const char *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    int n = 0;
    for (int i = 0; i < s->ndefs; i++)
        if (s->defs[i].name && strncmp(s->defs[i].name, name, len) == 0) {
            if (n < max)
                out[n] = i;
            n++;
        }
    return n;
}

/* Whether element el, about to be read as the value of the option before it, is an option
 * instead: "--gpu" (any "--NAME"), or "-g" with a letter that is a short option here. A value
 * that merely starts with '-' ("-1", a negative number) is a value; "--" alone stays one too.
 * "-m -g a100" read "-g" as the model and then refused "a100" as an unexpected argument. */
static bool looks_like_option(const struct optscan *s, const char *el)
{
    if (el[0] != '-' || el[1] == '\0')
        return false;
    if (el[1] == '-')
        return el[2] != '\0';
    return find_short(s, (unsigned char)el[1]) >= 0;
}

static int find_short(const struct optscan *s, int ch)
{
    for (int i = 0; i < s->ndefs; i++)
        if (s->defs[i].short_name && s->defs[i].short_name == ch)
            return i;
    return -1;
}

/* The next letter of the short-option bundle argv[ind] at offset sub. */
static struct optscan_hit next_short(struct optscan *s)
{
    const char *el = s->argv[s->ind];
    struct optscan_hit h = { OPTSCAN_OPTION, -1, NULL, el, 0 };
    int ch = (unsigned char)el[s->sub];
    int idx = find_short(s, ch);
    s->sub++;
    bool last = el[s->sub] == '\0';
    if (idx < 0 || !s->defs[idx].has_arg) {
        if (last) {
            s->sub = 0;
            s->ind++;
        }
        if (idx < 0) {
            h.kind = OPTSCAN_UNKNOWN;
            h.short_name = ch;
        }
        h.idx = idx;
        return h;
    }
    h.idx = idx;
    const char *rest = el + s->sub; /* "-mllama": the rest of the element is the value */
    s->sub = 0;
    s->ind++;
    if (!last) {
        h.value = rest;
    } else if (s->ind < s->argc && !looks_like_option(s, s->argv[s->ind])) {
        h.value = s->argv[s->ind++]; /* "-m llama" */
    } else {
        h.kind = OPTSCAN_NO_VALUE;
        h.value = s->ind < s->argc ? s->argv[s->ind] : NULL; /* the option in the value's place */
    }
    return h;
}

struct optscan_hit optscan_next(struct optscan *s)
{
    struct optscan_hit h = { OPTSCAN_END, -1, NULL, NULL, 0 };
    if (s->sub)
        return next_short(s);
    if (s->ind >= s->argc)
        return h;
    const char *el = s->argv[s->ind];
    if (s->opts_done || el[0] != '-' || el[1] == '\0') { /* a positional argument ("-" is one) */
        if (s->stop_at_positional) {
            s->opts_done = true;
            return h; /* s->ind stays on it */
        }
        s->ind++;
        h.kind = OPTSCAN_POSITIONAL;
        h.value = h.text = el;
        return h;
    }
    if (el[1] != '-') {
        s->sub = 1;
        return next_short(s);
    }
    s->ind++;
    if (el[2] == '\0') { /* "--": the rest is positional */
        s->opts_done = true;
        return optscan_next(s);
    }
    h.text = el;
    const char *name = el + 2;
    const char *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    int idx = find_long(s, name, len);
    if (idx < 0) {
        h.kind = idx == -2 ? OPTSCAN_AMBIGUOUS : OPTSCAN_UNKNOWN;
        return h;
    }
    if (eq && !s->defs[idx].has_arg) {
        h.kind = OPTSCAN_FLAG_VALUE;
        h.idx = idx;
        h.value = eq + 1;
        return h;
    }
    h.kind = OPTSCAN_OPTION;
    h.idx = idx;
    if (!s->defs[idx].has_arg)
        return h;
    if (eq) {
        h.value = eq + 1; /* "--model=llama" */
    } else if (s->ind < s->argc && !s->attached_values && !looks_like_option(s, s->argv[s->ind])) {
        h.value = s->argv[s->ind++]; /* "--model llama" */
    } else {
        h.kind = OPTSCAN_NO_VALUE;
        h.value = s->ind < s->argc && !s->attached_values ? s->argv[s->ind] : NULL;
    }
    return h;
}
