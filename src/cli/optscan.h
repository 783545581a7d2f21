/* optscan.h - a re-entrant command-line option scanner.
 *
 * It reads the syntax of GNU getopt_long (long options "--name value" and "--name=value",
 * unique prefixes of long names, short options "-m value", "-mvalue" and bundles "-hx", "--"
 * ending the options) but keeps its whole state in the caller's struct: getopt_long's
 * process-wide optind/optarg/optopt would make two command lines parsed at once in two
 * threads corrupt each other (docs/api.md promises that separate contexts may run at once). */
#ifndef LLMROOF_CLI_OPTSCAN_H
#define LLMROOF_CLI_OPTSCAN_H

#include <stdbool.h>

struct optscan_def {
    const char *name; /* long name without "--"; NULL: short only */
    int short_name;   /* single-letter alias or 0 */
    bool has_arg;     /* takes a value */
};

struct optscan {
    int argc;                        /* argv[0..argc) is scanned from argv[1] */
    char **argv;                     /* not modified (getopt_long permutes it; this does not) */
    const struct optscan_def *defs;  /* the options known */
    int ndefs;
    bool stop_at_positional;         /* the first positional argument ends the options (getopt's '+') */
    bool attached_values;            /* a long option's value only as "--name=value", never the next
                                        element (a JSON request's argv: "svg": true must not take
                                        the next option as its file name) */
    bool exact_names;                /* long options by their whole name only, no unique prefix (a JSON
                                        request: "sv" must not reach --svg past the server's refusals
                                        and limits, which name options whole) */
    int ind;                         /* next element of argv to read */
    int sub;                         /* inside a bundle of short options: offset of the next letter; 0: none */
    bool opts_done;                  /* "--" or (stop_at_positional) a positional argument seen */
};

enum optscan_kind {
    OPTSCAN_END,        /* nothing left */
    OPTSCAN_OPTION,     /* defs[idx], value in .value (NULL for a flag) */
    OPTSCAN_POSITIONAL, /* .value is a positional argument */
    OPTSCAN_UNKNOWN,    /* .text is the unknown option (short_name: the unknown letter, else 0) */
    OPTSCAN_NO_VALUE,   /* .text names an option (defs[idx]) that needs a value and has none; .value
                           is the next element when that is an option, left unread ("-m -g a100":
                           '-g'), else NULL (the option ends the line) */
    OPTSCAN_FLAG_VALUE, /* defs[idx] is a flag given a value ("--help=x"): .value */
    OPTSCAN_AMBIGUOUS,  /* .text is a prefix of several long names ("--mod"): optscan_candidates */
};

struct optscan_hit {
    enum optscan_kind kind;
    int idx;             /* OPTSCAN_OPTION: index into defs */
    const char *value;   /* the option's value or the positional argument */
    const char *text;    /* the argv element the hit came from, for messages */
    int short_name;      /* OPTSCAN_UNKNOWN of a short option: its letter */
};

/* Starts a scan of argv[1..argc). */
void optscan_init(struct optscan *s, int argc, char **argv, const struct optscan_def *defs, int ndefs,
                  bool stop_at_positional);
/* The next option, positional argument or error. After OPTSCAN_END (and with
 * stop_at_positional, after the first OPTSCAN_POSITIONAL) s->ind is the index of the first
 * argument not consumed. */
struct optscan_hit optscan_next(struct optscan *s);
/* The long options the element `text` ("--mod", "--mod=x") is a prefix of: up to max indices
 * into s->defs in out, in the order of defs; returns how many there are in all. */
int optscan_candidates(const struct optscan *s, const char *text, int *out, int max);

#endif
