#!/usr/bin/env python3
"""analyze_serving.py - compare llmroof's iteration cost with the whole iterations measure_serving.py timed.

  python3 bench/gpu/analyze_serving.py DIR [--llmroof build/llmroof] [--gpu h100-sxm5-80gb] [--md OUT.md] [--check F]

For each row of DIR/iterations.csv (a hand-written Llama-3.1-8B forward replayed as a CUDA graph, so GPU
time only) llmroof is asked for the same iteration with no engine profile (the GPU entry's own kernel
costs and step overhead, no host CPU):
  decode  B sequences at context C : `estimate -b B -p C-1 -o 2`, the one decode step (tpot_s);
  prefill P tokens, nothing cached : `estimate -b 1 -p P -o 1`, the prefill (ttft_s);
  a chunk after cached tokens, and mixed iterations (one chunk + B decodes): `simulate --trace` of B
  requests that start decoding, then one request whose chunk lands in one iteration beside them; the
  iteration's duration is read from `--trace-out` (the context of the decodes is set so that it is C
  at that iteration).
With --harness the same iterations are asked of an engine profile that describes the harness itself
(added to a copy of the catalog directory): PyTorch's FlashAttention-2 (`attention_kernel` flash2),
one varlen call per layer over the packed batch (`varlen_fa2_archs` = the GPU's `arch`: decodes beside
a chunk read K/V once per query head, docs/model.md), every iteration a replayed CUDA graph, no CPU
cost per step.
Standard library only.
"""

import argparse
import csv
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

MODEL = "llama-3.1-8b"
HARNESS = "measure-serving-harness"
EXTRA = []  # arguments every llmroof call takes (-e HARNESS with --harness)


def run(cmd):
    cmd = cmd + EXTRA
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        print("analyze_serving.py: %s: %s" % (" ".join(cmd), r.stderr.strip()), file=sys.stderr)
        sys.exit(2)
    return r.stdout


def estimate(bin_, gpu, B, P, O):
    d = json.loads(run([bin_, "estimate", "-m", MODEL, "-g", gpu, "-b", str(B), "-p", str(P), "-o", str(O),
                        "--format", "json"]))
    return d


def simulate_iteration(bin_, gpu, tmp, chunk, past, B, C):
    """Seconds llmroof's simulator charges for the iteration that holds `chunk` new tokens of a prompt
    whose first `past` tokens are cached, beside B decodes at context C."""
    budget = chunk + B
    prompt = chunk + past
    lead = 0  # decode iterations the B sequences run before the chunk arrives

    def once(p0):
        tr = os.path.join(tmp, "trace.csv")
        with open(tr, "w") as f:
            for _ in range(B):
                f.write("0,%d,4000\n" % p0)
            # arrives after the B prompts are prefilled; if `past` > 0 its earlier chunks go first
            f.write("%.6f,%d,2\n" % (arrive, prompt))
        out = os.path.join(tmp, "t.json")
        run([bin_, "simulate", "-m", MODEL, "-g", gpu, "--trace", tr, "--trace-out", out,
             "--max-batched-tokens", str(budget), "--max-seqs", str(B + 1)])
        ev = json.load(open(out))
        ev = ev["traceEvents"] if isinstance(ev, dict) else ev
        its = [e for e in ev if e.get("ph") == "X" and e.get("cat") == "iteration"]
        ndec = 0
        for e in its:
            a = e["args"]
            if a.get("prefill_tokens") == chunk and a.get("decode_seqs") == B and \
                    (past == 0 or e is not its[0]):
                if past == 0 or seen_prefix(its, e, past):
                    return e["dur"] / 1e6, ndec
            if a.get("prefill_tokens", 0) == 0 and a.get("decode_seqs") == B:
                ndec += 1
        return None, ndec

    def seen_prefix(its, e, past):
        done = sum(x["args"].get("prefill_tokens", 0) for x in its[:its.index(e)] if x["args"].get("decode_seqs") == B
                   and x["args"].get("prefill_tokens", 0) > 0)
        return done >= past

    # the B prompts' prefill ends within their total tokens at a few hundred TFLOP/s; arrive well after
    arrive = 0.05 + B * C * 2 * 8e9 / 2e14
    t, lead = once(C - 1)
    if t is None:
        return None
    t, _ = once(max(1, C - 1 - lead))
    return t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--llmroof", default=os.path.join(os.path.dirname(__file__), "..", "..", "build", "llmroof"))
    ap.add_argument("--gpu", default="h100-sxm5-80gb")
    ap.add_argument("--md", help="write the table as markdown here too")
    ap.add_argument("--check", help="exit 1 unless the table equals this file (the committed comparison)")
    ap.add_argument("--harness", action="store_true",
                    help="cost the iterations with an engine profile of the harness (FlashAttention-2 varlen calls)")
    a = ap.parse_args()
    path = os.path.join(a.dir, "iterations.csv")
    if not os.path.isfile(path):
        print("analyze_serving.py: %s: no such file (DIR must hold measure_serving.py's iterations.csv)" % path,
              file=sys.stderr)
        sys.exit(2)
    if not os.access(a.llmroof, os.X_OK):
        print("analyze_serving.py: --llmroof %s: not an executable (build llmroof first)" % a.llmroof, file=sys.stderr)
        sys.exit(2)
    rows = list(csv.DictReader(open(path)))
    data_tmp = None
    if a.harness:
        data_tmp = tempfile.TemporaryDirectory()
        src = os.environ.get("LLMROOF_DATA") or os.path.join(os.path.dirname(__file__), "..", "..", "data")
        for name in os.listdir(src):
            if os.path.isfile(os.path.join(src, name)):
                shutil.copy(os.path.join(src, name), data_tmp.name)
        with open(os.path.join(src, "gpus.json")) as f:
            gpus = json.load(f)["gpus"]
        arch = [g.get("arch", "") for g in gpus if g["id"] == a.gpu or a.gpu in g.get("aliases", [])]
        if not arch or not arch[0]:
            sys.exit("analyze_serving.py: --harness: GPU %s has no arch in %s/gpus.json" % (a.gpu, src))
        engines_path = os.path.join(data_tmp.name, "engines.json")
        with open(engines_path) as f:
            doc = json.load(f)
        doc["engines"].append({"id": HARNESS, "name": "measure_serving.py's hand-written Llama (PyTorch)",
                               "step_overhead_s": 0, "first_token_s": 0, "compute_scale": 1, "cuda_graphs": True,
                               "attention_kernel": "flash2", "varlen_fa2_archs": [arch[0]],
                               "source": "bench/gpu/measure_serving.py: aten._flash_attention_forward varlen, one "
                                         "call per layer; iterations replayed as CUDA graphs"})
        with open(engines_path, "w") as f:
            json.dump(doc, f)
        os.environ["LLMROOF_DATA"] = data_tmp.name
        EXTRA.extend(["-e", HARNESS])
    lines = ["| kind | chunk | cached before chunk | decodes | context | measured ms | llmroof ms | error |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    errs = {}
    with tempfile.TemporaryDirectory() as tmp:
        for r in rows:
            kind, chunk, past = r["kind"], int(r["chunk"]), int(r["chunk_past"])
            B, C, m = int(r["decodes"]), int(r["context"]), float(r["measured_s"])
            if kind == "decode":
                p = estimate(a.llmroof, a.gpu, B, C - 1, 2)["tpot_s"]
            elif kind == "prefill" and past == 0:
                p = estimate(a.llmroof, a.gpu, 1, chunk, 1)["ttft_s"]
            else:
                p = simulate_iteration(a.llmroof, a.gpu, tmp, chunk, past, B, C)
            if p is None:
                lines.append("| %s | %d | %d | %d | %d | %.2f | n/a | |" % (kind, chunk, past, B, C, m * 1e3))
                continue
            e = p / m - 1
            errs.setdefault(kind, []).append(e)
            lines.append("| %s | %d | %d | %d | %d | %.2f | %.2f | %+.0f%% |" % (kind, chunk, past, B, C, m * 1e3,
                                                                              p * 1e3, 100 * e))
    lines.append("")
    for k, v in errs.items():
        lines.append("%s: %d iterations, median error %+.1f%%, median |error| %.1f%%" % (
            k, len(v), 100 * statistics.median(v), 100 * statistics.median(abs(x) for x in v)))
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if a.md:
        with open(a.md, "w") as f:
            f.write(text)
    if data_tmp:
        data_tmp.cleanup()
    if a.check:
        want = open(a.check).read()
        if want != text:
            sys.exit("analyze_serving.py: llmroof's iteration costs moved from %s; if the model change is meant, "
                     "regenerate it with --md" % a.check)


if __name__ == "__main__":
    main()
