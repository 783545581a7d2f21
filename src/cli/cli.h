/* cli.h - shared plumbing of the llmroof command line.
 * Every command renders into c->out; main() writes it to stdout only when the command
 * succeeded, so an error never leaves a partial result behind. Exit codes: 0 success,
 * 1 internal failure (out of memory, failed write), 2 bad usage or bad input. */
#ifndef LLMROOF_CLI_H
#define LLMROOF_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "data/catalog.h"
#include "base/err.h"
#include "base/stop.h"
#include "model/estimate.h"
#include "model/memory.h"
#include "base/sbuf.h"
#include "render/table.h"
#include "serve/sim.h"
#include "serve/workload.h"

struct rjdoc; /* llmroof/render_json.h */

#define CLI_MAX_FILES 32
#define CLI_MAX_OUTPUTS 16 /* output-file options of one command line */
#define CLI_SEED_MAX (((int64_t)1 << 53) - 1) /* --seed: below 2^53, where every whole number is a double (JSON) */
#define CLI_HELP (-1) /* returned by cli_parse when --help was printed */

/* Flags of cli_main. The normal binary passes 0; the fuzz harness passes all three so
 * that millions of runs stay fast and touch nothing outside the process. */
#define CLI_PARSE_ONLY (1u << 0) /* slow commands stop after validating arguments and inputs */
#define CLI_NO_STDOUT (1u << 1)  /* render the result but discard it */
#define CLI_NO_FILES (1u << 2)   /* --svg, --requests-out and other file outputs are not written */
#define CLI_REQUEST (1u << 3)    /* argv comes from a JSON request (src/api): a value only as --key=value,
                                    type errors named as the request's fields */

/* Runs one llmroof command line (argv[0] is the program name). Re-entrant: all state
 * lives in a local struct cli. Returns the exit status; does not close stdout. */
int cli_main(int argc, char **argv, unsigned flags);

/* Where one run reads its catalog and writes its result and diagnostics. cli_main uses
 * stdout, stderr and the usual catalog search; the library API (src/api/api.c) passes
 * memory streams and the catalog its context loaded once. */
struct cli_io {
    FILE *out;                                /* the result (stdout) */
    FILE *err;                                /* errors and warnings (stderr) */
    const char *data_dir;                     /* catalog directory; NULL = LLMROOF_DATA, then the usual search */
    const struct llmroof_catalog *catalog;    /* already loaded from data_dir, borrowed read-only when the
                                                 command line names no --gpus-file/--models-file; NULL = load */
    struct llmroof_stop stop;                 /* asked during simulate's and plan's work (base/stop.h);
                                                 stopped, the command exits LLMROOF_ESTOPPED (3) */
    FILE *in;                                 /* what an input named '-' reads (stdin); NULL: '-' is refused
                                                 (a library request has no standard input of its own) */
};
/* cli_main with explicit streams and catalog. Thread-safe: all state lives in the call (the
 * option scanner of optscan.h keeps its own; the catalog is only read), so separate calls
 * may run at once in several threads. */
int cli_run(const struct cli_io *io, int argc, char **argv, unsigned flags);
/* Loads the catalog as a command would (io->data_dir, else the usual search) into *cat and the
 * directory it came from into dir[0..n); errors go to io->err. Returns 0 or an exit status. */
int cli_load_catalog(const struct cli_io *io, struct llmroof_catalog *cat, char *dir, size_t n);

struct cli {
    unsigned flags;                           /* CLI_* flags of cli_main */
    const char *cmd;                          /* subcommand name, for messages */
    const char *usage;                        /* one-line usage of the subcommand */
    const char *positionals;                  /* the positional arguments the command takes, for the
                                                 message on one more ("list takes one: gpus, models or
                                                 engines"); NULL: none; set before cli_parse */
    enum table_format format;                 /* --format */
    bool format_set;                          /* --format given */
    unsigned formats;                         /* formats the command renders: bits 1 << TABLE_*; 0 = the usual four */
    bool out_on_failure;                      /* write the result even when the command exits 1 (check's diff) */
    const char *gpus_files[CLI_MAX_FILES];    /* --gpus-file, in order */
    int n_gpus_files;
    const char *models_files[CLI_MAX_FILES];  /* --models-file, in order */
    int n_models_files;
    struct llmroof_catalog cat;               /* loaded by cli_catalog */
    char data_dir[4096];                      /* where the catalog was found */
    bool cat_loaded;
    bool cat_borrowed;                        /* cat is a shallow copy of shared_cat: not freed */
    const struct llmroof_catalog *shared_cat; /* cli_io.catalog */
    struct llmroof_stop stop;                 /* cli_io.stop */
    const char *data_dir_arg;                 /* cli_io.data_dir */
    FILE *outf;                               /* where the result goes (stdout) */
    FILE *errf;                               /* where errors and warnings go (stderr); never use stderr directly */
    FILE *inf;                                /* cli_io.in: what an input named '-' reads; NULL: refused */
    const char *stdin_arg;                    /* the argument '-' that claimed standard input (its argv
                                                 element: one argument, read once) */
    char stdin_what[96];                      /* its option, for messages ("option '--trace'") */
    char *stdin_text;                         /* standard input as read (owned), for a second read of
                                                 the same argument; NULL until read */
    size_t stdin_len;
    struct sbuf out;                          /* the result, written by main on success */
    const char *const *tables;                /* names of the tables the command prints (NULL-terminated; the
                                                 first is CSV's default): enables --table; NULL: one table */
    struct table_sel sel;                     /* --table: which table CSV output holds */
    struct rjdoc *json;                       /* JSON format: the document cli_table assembles */
    const char *json_schema;                  /* its schema; NULL: "llmroof.<command>/1" */
    const char *const *outputs;               /* long names of the command's options that name output files
                                                 (NULL-terminated; a trailing '/' marks a directory), set before
                                                 cli_parse, which checks each given (cli_check_output) */
    struct cli_file *files;                   /* output files staged by cli_write_file */
    size_t n_files, cap_files;
    char **made_dirs;                         /* directories this run created for its outputs (--svg-dir's
                                                 mkdir -p), outermost first, each owned: removed again when
                                                 the run fails (cli_files_discard), kept when it succeeds */
    int n_made_dirs;
    struct cli_out_path {
        const char *opt;                      /* the option naming it, for messages */
        char *key;                            /* the file it names: realpath of an existing one, else of
                                                 its directory plus its name; owned */
        const char *arg;                      /* the option's value as given (argv's) */
    } out_paths[CLI_MAX_OUTPUTS];             /* outputs checked by cli_check_output */
    int n_out_paths;
};

/* One output file staged by cli_write_file until the run has succeeded (cli_files_commit). */
struct cli_file {
    char *target;   /* the file to replace: the path with its symlinks resolved */
    char *tmp;      /* the written temporary beside target, renamed over it; NULL = write through */
    char *data;     /* write-through content (non-regular or hard-linked targets); NULL otherwise */
    size_t len;
    bool done;      /* written through already (cli_files_commit_through) */
};

struct cli_opt {
    int id;             /* passed to the command's handler */
    const char *name;   /* long name without "--" */
    int short_name;     /* single-letter alias or 0 */
    const char *arg;    /* value placeholder ("N"), NULL for a flag */
    const char *help;   /* one line */
    bool repeatable;    /* may be given more than once */
};
#define CLI_OUT_FILE 1 /* an option's value is a file the command writes */
#define CLI_OUT_DIR 2  /* a directory the command writes files into */

/* Option table entries shared by estimate, memory and report (ids >= CLI_SETUP_BASE). */
#define CLI_OPT_MODEL { OPT_MODEL, "model", 'm', "MODEL", "model id from the catalog", false }
#define CLI_OPT_GPU { OPT_GPU, "gpu", 'g', "GPU", "GPU id or alias from the catalog", false }
#define CLI_OPT_TP { OPT_TP, "tp", 't', "N", "tensor-parallel GPUs (default 1)", false }
/* Layout beyond TP (docs/model.md "Layouts"): pipeline and expert parallelism. */
#define CLI_OPT_LAYOUT \
    { OPT_PP, "pp", 0, "N", "pipeline-parallel stages of consecutive layers (default 1)", false }, \
    { OPT_EP, "ep", 0, "N", "expert-parallel GPUs for MoE layers: equal to TP, or with --dp-attention a multiple of it", false }, \
    { OPT_DPATTN, "dp-attention", 0, NULL, "attention data-parallel over ep/tp (or moe-tp/tp) replicas, tokens routed by all-to-all (or gathered)", false }, \
    { OPT_MOETP, "moe-tp", 0, "N", "with --dp-attention: MoE and dense MLPs split by width over N GPUs, every replica's tokens gathered (vLLM DP without EP, SGLang 0.4)", false }, \
    { OPT_EPIMB, "ep-imbalance", 0, "F", "busiest expert rank's tokens over the mean, 1 to min(--ep, experts / top-k) (default: uniform routing's busiest)", false }, \
    { OPT_TBO, "two-batch-overlap", 0, NULL, "two micro-batches hide the all-to-all under compute (off by default, as in SGLang and vLLM)", false }
#define CLI_OPT_BATCH { OPT_BATCH, "batch", 'b', "B", "sequences served together (default 1)", false }
#define CLI_OPT_PROMPT { OPT_PROMPT, "prompt", 'p', "P", "prompt tokens per sequence (default 512)", false }
#define CLI_OPT_OUTPUT { OPT_OUTPUT, "output", 'o', "O", "output tokens per sequence (default 1536)", false }
#define CLI_OPT_DTYPES \
    { OPT_WDT, "weight-dtype", 0, "D", "weight storage: fp32 fp16 bf16 fp8 int8 int4 fp4 (default the checkpoint's, else fp16)", false }, \
    { OPT_KVDT, "kv-dtype", 0, "D", "KV-cache storage dtype (default fp16)", false }, \
    { OPT_ACTDT, "act-dtype", 0, "D", "activation/compute dtype whose peak is used (default fp16; fp8 GEMMs with --weight-dtype fp8 on a GPU with fp8)", false }, \
    { OPT_WBITS, "weight-bits", 0, "B", "effective bits per weight incl. scales, e.g. 4.5 for q4_0 (default: dtype)", false }, \
    { OPT_STATEDT, "state-dtype", 0, "D", "SSM / linear-attention state dtype, e.g. fp32 (default the model's stated state dtype, else its 16-bit dtype; not the KV dtype)", false }
#define CLI_OPT_EFFS \
    { OPT_CE, "compute-eff", 0, "F", "fraction of peak FLOP/s achieved (default: catalog)", false }, \
    { OPT_ME, "memory-eff", 0, "F", "fraction of peak bandwidth the weights and other streams achieve (default: catalog; decode attention keeps its kernel's own figure)", false }, \
    { OPT_CME, "comm-eff", 0, "F", "fraction of link bandwidth achieved (default: catalog)", false }, \
    { OPT_OVH, "overhead", 0, "T", "fixed cost per engine step, e.g. 200us (default: catalog)", false }, \
    { OPT_HOSTCPU, "host-cpu-speed", 0, "F", "host CPU single-thread speed over the reference host's (Xeon 8480C), 0.25-4 (default: the GPU's usual host)", false }, \
    { OPT_ENGINE, "engine", 'e', "ID", "serving-engine profile (overheads, kernel quality): see 'llmroof list engines'", false }, \
    { OPT_ENGINERAY, "engine-use-ray", 0, NULL, "the engine runs in a Ray actor (vLLM <= 0.4 --engine-use-ray): its per-step remote call at any TP", false }
#define CLI_OPT_MEM \
    { OPT_MEMUTIL, "mem-util", 0, "F", "fraction of GPU memory the engine may use (default 0.90, or the engine's mem_util)", false }, \
    { OPT_RESERVE, "reserve", 0, "BYTES", "runtime reserve per GPU, e.g. 1GiB (default 1GiB, or the engine's reserve_bytes)", false }, \
    { OPT_WORKSPACE, "workspace", 0, "BYTES", "activation workspace per GPU (default derived)", false }, \
    { OPT_BLOCK, "block-size", 0, "N", "paged-KV block size in tokens (default: unpaged)", false }

/* Called for each of the command's own options; returns 0 or an exit status. */
typedef int (*cli_opt_fn)(struct cli *c, void *ctx, int id, const char *arg);

/* Parses argv (argv[0] is the command name) against `opts` plus the common options
 * (--format, --gpus-file, --models-file, --help). Positional arguments are stored in
 * pos[0..*npos); one past maxpos (the most the command takes) is a usage error naming it
 * (with c->positionals), with --help too. Returns 0, CLI_HELP, or an exit status (2) after
 * printing the error. */
int cli_parse(struct cli *c, int argc, char **argv, const struct cli_opt *opts, int nopts,
              cli_opt_fn fn, void *ctx, char **pos, int maxpos, int *npos, const char *description);

/* Prints "llmroof: error: <msg>" and, for usage errors, the try-help hint; returns 2. */
int cli_usage_error(struct cli *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
struct optscan;
struct optscan_hit;
/* "ambiguous option '--mod': it could be '--model' or '--models-file'": the usage error of an
 * OPTSCAN_AMBIGUOUS element `text`, naming the long options of scan it is a prefix of; 2. */
int cli_ambiguous_option(struct cli *c, const struct optscan *scan, const char *text);
/* The usage error of an OPTSCAN_NO_VALUE hit: "option '-m' needs a value", and where an option
 * stands in the value's place (h->value), "; '-g' after it is an option"; 2. */
int cli_no_value(struct cli *c, const struct optscan_hit *h);
/* A value as messages echo it: s itself when short, else its first CLI_CLIP_BYTES bytes (cut
 * at a UTF-8 character boundary) and "..." in buf, so that a 50 MB name is not echoed whole;
 * control bytes (below 0x20, 0x7f) are written as \x1b and C1 controls (U+0080-U+009F) as
 * \u009b, so a name never drives the terminal.
 * buf holds CLI_CLIP_BUF bytes; cli_clip(s, (char[CLI_CLIP_BUF]){ 0 }) inside a call. */
#define CLI_CLIP_BYTES 64
/* every byte may print as 4 (\xHH): a value of up to CLI_CLIP_BYTES + 3 bytes is not clipped,
 * a longer one is cut to CLI_CLIP_BYTES and "..." */
#define CLI_CLIP_BUF (4 * (CLI_CLIP_BYTES + 3) + 1)
const char *cli_clip(const char *s, char *buf);
#define CLI_CLIP(s) cli_clip((s), (char[CLI_CLIP_BUF]){ 0 })
/* Prints the library error; returns its code. */
int cli_fail(struct cli *c, const struct llmroof_err *err);

/* Loads the catalog once (data dir, then --gpus-file/--models-file in order). */
int cli_catalog(struct cli *c);
/* cli_catalog for a command that needs one model, one GPU and (engine non-NULL) one engine:
 * every file is read and checked whole, but only these entries are built. Where one of them
 * is not in the catalog, or a library context or a --gpus-file/--models-file is in play, the
 * whole catalog is loaded, so lookups, errors and suggestions are cli_catalog's. */
int cli_catalog_pick(struct cli *c, const char *model, const char *gpu, const char *engine);

/* Lookups with "did you mean"; NULL after printing the error (exit 2). */
const struct llmroof_gpu *cli_gpu(struct cli *c, const char *name);
const struct llmroof_model *cli_model(struct cli *c, const char *name);
const struct llmroof_engine *cli_engine(struct cli *c, const char *name);
/* The ids of the catalog's engines that pass `has`, ", "-joined into out ("" for none), for an error
 * that names the engines to pick instead. A catalog built for one engine is loaded whole first,
 * which invalidates every pointer into it: call it only on the way out with that error. */
void cli_engine_ids_with(struct cli *c, bool (*has)(const struct llmroof_engine *), char *out, size_t size);
/* 0 when the catalog has engine profiles or its data directory an engines.json; else prints
 * "no engine catalog: DIR/engines.json not found" and returns 2. */
int cli_engine_catalog(struct cli *c);

/* --gpus LIST and --tp LIST of report and plan: "all" is every catalog GPU (at most `max`), else
 * every GPU looked up (did-you-mean on a miss),
 * every TP a whole number in [1, 1024], at most `max` items into out[0..*n). Return 0, or 2
 * after printing the error. */
int cli_gpu_list(struct cli *c, const char *list, const struct llmroof_gpu **out, int max, int *n);
int cli_tp_list(struct cli *c, const char *list, int *out, int max, int *n);

/* --jobs N: threads, 1 to PAR_MAX_THREADS (base/par.h); returns 2 on bad input. */
int cli_jobs(struct cli *c, const char *arg, int *out);
/* The threads a command runs: --jobs as given (> 0), else the command line's processors
 * (par_cpus) and a library request's one thread (CLI_REQUEST: its caller owns the process). */
int cli_threads(const struct cli *c, int given);

/* Value parsers that print "option '--x': ..." and return 2 on bad input. */
int cli_long(struct cli *c, const char *opt, const char *arg, long min, long max, long *out);
/* A duration with its unit (ns, us, ms, s, min; a bare 0 only where !positive) in (0 or
 * [0, max_s]; a bare number is a usage error naming the flag and the units. */
int cli_duration(struct cli *c, const char *opt, const char *arg, double max_s, bool positive, double *out_s);
int cli_double(struct cli *c, const char *opt, const char *arg, double min, double max, bool min_open, double *out);
int cli_bytes(struct cli *c, const char *opt, const char *arg, double *out);
int cli_dtype(struct cli *c, const char *opt, const char *arg, enum llmroof_dtype *out);
/* --kv-link of simulate and plan: nvlink, node, ib, pcie or a bandwidth in GB/s, into *kind (and
 * *rate_Bps for a bandwidth, what transfers reach; the keywords are line rates, which
 * sim_kv_link_Bps takes at each GPU's link efficiency). nvlink needs NVLink on each of
 * gpus[0..ngpus) (else a usage error naming the first without it, and, from_list, the default
 * --gpus list that holds it). */
int cli_kv_link(struct cli *c, const char *arg, const struct llmroof_gpu *const *gpus, int ngpus, bool from_list,
                enum sim_kv_link_kind *kind, double *rate_Bps);

/* Shared model/GPU/dtype/efficiency options of estimate, memory and report. */
struct cli_setup_opts {
    const char *model, *gpu;
    long tp, batch, prompt, output;
    bool have_batch;               /* --batch given (a command's default otherwise) */
    bool have_weight, have_kv, have_act, have_state;
    enum llmroof_dtype weight, kv, act, state;
    double weight_bits;            /* --weight-bits, 0 = the dtype's */
    struct llmroof_eff_override eff;
    const char *engine_name;       /* --engine, resolved by cli_setup_resolve */
    struct llmroof_mem_opts mem;
    bool have_mem_util;            /* --mem-util given: an engine profile's does not replace it */
    bool have_reserve;             /* --reserve given: an engine profile's does not replace it */
    long context;
    bool have_context;
    struct llmroof_layout layout;  /* --pp, --ep, --dp-attention, --ep-imbalance (tp from --tp) */
};
void cli_setup_defaults(struct cli_setup_opts *s);
/* Handles the shared option ids (>= CLI_SETUP_BASE); returns 1 when id is not shared. */
#define CLI_SETUP_BASE 1000
enum {
    OPT_MODEL = CLI_SETUP_BASE, OPT_GPU, OPT_TP, OPT_BATCH, OPT_PROMPT, OPT_OUTPUT,
    OPT_WDT, OPT_KVDT, OPT_ACTDT, OPT_CE, OPT_ME, OPT_CME, OPT_OVH, OPT_HOSTCPU,
    OPT_MEMUTIL, OPT_RESERVE, OPT_WORKSPACE, OPT_BLOCK, OPT_CONTEXT, OPT_WBITS, OPT_ENGINE,
    OPT_PP, OPT_EP, OPT_DPATTN, OPT_EPIMB, OPT_TBO, OPT_STATEDT, OPT_ENGINERAY, OPT_MOETP
};
int cli_setup_opt(struct cli *c, struct cli_setup_opts *s, int id, const char *arg);
struct llmroof_dtypes cli_dtypes(const struct cli_setup_opts *s);
/* The dtypes a command runs model m with: ckpt_dtypes of cli_dtypes and the engine, and a warning
 * (the state dtype dropped) where --state-dtype names a state m does not have; on GPU g (NULL:
 * several GPUs, each applying ckpt_gpu_dtypes itself) fp8 weights without --act-dtype compute
 * in fp8 where g has an fp8 path (ckpt_gpu_dtypes). */
struct llmroof_dtypes cli_model_dtypes(struct cli *c, const struct llmroof_model *m, const struct llmroof_gpu *g,
                                       const struct cli_setup_opts *s);
/* cli_model_dtypes without the fp8 compute notes: for `memory`, whose answer no compute dtype
 * changes (a reviewer's: a note on W8A8 GEMMs beside a memory table). */
struct llmroof_dtypes cli_model_dtypes_quiet(struct cli *c, const struct llmroof_model *m, const struct llmroof_gpu *g,
                                             const struct cli_setup_opts *s);
/* The stderr notes of the fp8 compute default (ckpt_gpu_dtypes) over gpus[0..n): which compute
 * W8A8 and which keep fp8 weights weight-only; nothing where the default does not apply. dt: the
 * dtypes before any GPU's rule (cli_model_dtypes with g NULL). */
void cli_note_fp8_compute(struct cli *c, const struct llmroof_model *m, const struct llmroof_gpu *const *gpus, int n,
                          const struct cli_setup_opts *s, struct llmroof_dtypes dt);
/* The layout of the options (TP from --tp). */
struct llmroof_layout cli_layout(const struct cli_setup_opts *s);
/* Layout options that apply to no layout at all (--ep-imbalance without --ep).
 * Returns 0 or 2 after printing the error; cli_setup_resolve calls it. */
int cli_layout_check(struct cli *c, const struct cli_setup_opts *s);
/* Looks up --engine after the catalog is loaded, after cli_layout_check. Returns 0 or 2 after
 * printing the error. */
int cli_setup_resolve(struct cli *c, struct cli_setup_opts *s);
/* Refuses `seqs` sequences at once (option --OPTION) above what engine en runs whatever its flags
 * (its profile's max_batch: calm's one); 0 when en is NULL or runs them, else 2 after the error. */
int cli_engine_batch_check(struct cli *c, const struct llmroof_engine *en, const char *option, long seqs);
/* A note on stderr where an engine's static fraction (SGLang) makes --reserve or --workspace moot. */
void cli_note_static_mem(struct cli *c, const struct cli_setup_opts *s);
/* The engine's KV pool as simulate sets it up (sim_config_engine) on s->mem: its share of the
 * device (unless --mem-util was given), TensorRT-LLM's and LMDeploy's share of the free memory,
 * and the workspace of its token budget and sequence limit (unless keep_mbt / keep_seqs: the
 * command line stated them). Nothing without an engine. estimate and memory call it. */
void cli_engine_mem(struct cli_setup_opts *s, const struct llmroof_setup *setup, bool keep_mbt, bool keep_seqs);
/* A note on stderr when engine `en` keys a rule on GPU architectures and `g` states none. */
void cli_note_arch(struct cli *c, const struct llmroof_gpu *g, const struct llmroof_engine *en);

/* Stages b for path; the file changes only when the whole run succeeds (cli_files_commit),
 * so a failed run leaves no new or replaced file. A regular file is written to a temporary
 * beside it, with the existing file's mode, and renamed over it (an interrupted run never
 * leaves a truncated file); a symlink's target is replaced, not the link; a non-regular file
 * (/dev/full, a FIFO) or a file with other hard links is written in place, through the
 * name, so every link sees the new content. Returns 0; 2 after printing the error when the
 * path cannot name a file (a directory, a missing directory); 1 when writing fails. */
int cli_write_file(struct cli *c, const char *path, const struct sbuf *b);
/* Checks, before the work, that `path` (the value of option --opt) can be written: not "-" (an
 * output '-' would be standard output, which holds the command's result: refused, where it had
 * written a file named '-'); a file
 * (kind CLI_OUT_FILE) is not a directory and sits in an existing, writable directory; a
 * directory (CLI_OUT_DIR) exists and is writable; no two outputs of the command line name the
 * same regular file. Returns 0, or 2 after printing the error. cli_parse calls it for every
 * option c->outputs names. */
int cli_check_output(struct cli *c, const char *opt, const char *path, int kind);

/* Records that this run created directory `path` for its outputs, so that a failed run removes
 * it again (it is empty then: the staged files beside it are removed first). 0, or 1 out of
 * memory (said on c->errf). */
int cli_made_dir(struct cli *c, const char *path);
/* Checks, while the options are parsed, that `path` (the value of input option --opt, a
 * catalog file) names a readable regular file, or is "-" with a standard input to claim
 * (cli_stdin_claim): a command that never loads the catalog (import-hf) must not pass over a
 * mistyped name in silence. Returns 0, or 2 after printing the error, which names the option
 * and the path. */
int cli_check_input(struct cli *c, const char *opt, const char *path);
/* Refuses an output (cli_check_output's) that is one file with one of the n arguments the command
 * read (inputs[k], given by option input_opts[k], NULL for a positional argument): exit 2 naming
 * both, before the work. Arguments that name no regular file are passed over. Returns 0 or 2. */
int cli_check_outputs_apart(struct cli *c, const char *const *inputs, const char *const *input_opts, int n);
/* Inputs named '-' (docs/llmroof.1 COMMAND OPTIONS): standard input, read whole, by one argument of the
 * command line. `what` names the argument for messages ("option '--trace'", "FILE.csv"); `arg`
 * is the argument's own text (its argv element), so that the same argument read again (a
 * workload drawn once per model) gets the same text, and a second argument '-' is refused.
 * cli_read_input reads `path` as catalog_read_file does (a regular file of at most max_bytes,
 * *out owned by the caller), "-" from c->inf; 0, or an LLMROOF_E* code with err filled. */
int cli_read_input(struct cli *c, const char *what, const char *path, size_t max_bytes, char **out, size_t *len,
                   struct llmroof_err *err);
/* Claims standard input for argument `arg` ("-"): 0, or LLMROOF_EINPUT with err filled where
 * there is none (a library request) or another argument claimed it. */
int cli_stdin_claim(struct cli *c, const char *what, const char *arg, struct llmroof_err *err);
/* cli_stdin_claim while the options are read, where input argument `arg` is "-" (else
 * nothing): a second '-' is refused before either is read, not after the first has read an
 * empty or another's text. 0, or 2 after printing the error. */
int cli_check_stdin(struct cli *c, const char *what, const char *arg);
/* The name an input goes by in messages and results: "<stdin>" for "-", else the path. */
const char *cli_input_name(const char *path);

/* Writes the staged files that are written through (devices such as /dev/full, FIFOs, files
 * with other hard links) before stdout, so a failed write there leaves stdout empty. Returns 0,
 * or 1 after printing the error. */
int cli_files_commit_through(struct cli *c);
/* After a successful run: renames or writes every staged file. Returns 0, or 1 after
 * printing the error. cli_files_discard removes the temporaries of a failed run. */
int cli_files_commit(struct cli *c);
void cli_files_discard(struct cli *c);

/* A write to stdout failed (errno as the write left it). The reader went away (EPIPE, as in
 * 'llmroof sweep | head -1' with SIGPIPE ignored): no message, exit CLI_EXIT_PIPE, the status
 * the default SIGPIPE gives; anything else: "cannot write to stdout", exit 1. */
#define CLI_EXIT_PIPE 141
int cli_stdout_failed(struct cli *c);

/* Streams what c->out holds to stdout once it exceeds `threshold` bytes (sweep). Returns 0,
 * or 1 after printing the error when the write fails. */
int cli_flush(struct cli *c, size_t threshold);

#define CLI_TEXT_WIDTH 100 /* text and Markdown tables fit a terminal this wide */
#define CLI_FORMATS_DEFAULT ((1u << TABLE_TEXT) | (1u << TABLE_MD) | (1u << TABLE_CSV) | (1u << TABLE_JSON))

/* --think LO-HI (or one duration) into seconds. Returns 0 or 2 after printing the error. */
int cli_think(struct cli *c, const char *arg, double *lo_s, double *hi_s);
/* --workload SPEC: fixed:P:O, chat, docqa, code, openorca, sharegpt[:P:O], lognormal:... or
 * csv:FILE (read here), drawn for model m where the workload depends on it (sharegpt: NULL leaves
 * it undrawn). Returns 0 or an exit status. */
int cli_workload(struct cli *c, const char *spec, const struct llmroof_model *m, struct workload *out);
/* Warns on c->errf when a drawn workload (chat, docqa, code, lognormal, sharegpt, ...) puts 1% or
 * more of 10,000 draws past model m's context (plan and simulate's sweeps; one simulate run counts
 * its own requests). */
/* 0, or a usage error (exit 2) naming --engine and --gpus when a CUDA-only engine runs on none of
 * the n GPUs (all AMD): plan and report, whose other rows would say it one by one. */
int cli_engine_runs_on_any(struct cli *c, const struct llmroof_engine *en, const struct llmroof_gpu *const *gpus,
                           int n);
void cli_warn_drawn_past_context(struct cli *c, const struct workload *w, const char *wname,
                                 const struct llmroof_model *m, bool plan);

/* Loads <data dir>/validation-map.json (or `path`). Returns 0 or an exit status. */
int cli_valmap(struct cli *c, const char *path, struct llmroof_valmap *out);
/* Loads <data dir>/uncertainty.json for --range. Returns 0 or an exit status. */
int cli_uncertainty(struct cli *c, struct llmroof_uncertainty *out);

/* Output helpers */
/* Prints result table `name` in the chosen format: text and Markdown print every table, CSV only
 * the one --table picks (default: the first), JSON adds it as an array under `name` to one
 * document ({"schema": ..., name: [rows]}, written after the command succeeds). */
void cli_table(struct cli *c, const char *name, const struct table *t);
/* cli_table, but Markdown prints the table whole (its viewers wrap a cell's prose), never in
 * parts: for a field/value/unit listing whose value and unit must read on one row. */
void cli_table_whole(struct cli *c, const char *name, const struct table *t);
/* The JSON document cli_table assembles (created on first use; NULL when out of memory), for a
 * command to add context fields before its tables. */
struct rjdoc *cli_json(struct cli *c);
/* Whether a command in format c->format prints text around its tables (text and Markdown). */
bool cli_prose(const struct cli *c);
const char *cli_fmt_bytes(double b, char *buf, size_t n); /* "12.55 GiB" */

int cmd_list(struct cli *c, int argc, char **argv);
int cmd_show(struct cli *c, int argc, char **argv);
int cmd_import_hf(struct cli *c, int argc, char **argv);
int cmd_estimate(struct cli *c, int argc, char **argv);
int cmd_memory(struct cli *c, int argc, char **argv);
int cmd_report(struct cli *c, int argc, char **argv);
int cmd_roofline(struct cli *c, int argc, char **argv);
int cmd_sweep(struct cli *c, int argc, char **argv);
int cmd_check(struct cli *c, int argc, char **argv);
int cmd_simulate(struct cli *c, int argc, char **argv);
int cmd_plan(struct cli *c, int argc, char **argv);
int cmd_validate(struct cli *c, int argc, char **argv);
int cmd_calibrate(struct cli *c, int argc, char **argv);

/* Progress of a long run (cli_progress.c): on the error stream when it is a terminal and the
 * command was not given --quiet, after the first second. start says whether to report; then
 * pass cli_progress_report and &p as the library's progress callback and context. */
struct cli_progress {
    struct cli *c;
    const char *what;   /* the unit counted: "requests", "rows" */
    double start_s;     /* monotonic clock at the start */
    double delay_s;     /* silent until the run has taken this long (1 s) */
    bool shown;         /* a line is on the terminal */
};
bool cli_progress_start(struct cli *c, struct cli_progress *p, const char *what, bool quiet);
void cli_progress_report(void *ctx, long done, long total);

#endif
