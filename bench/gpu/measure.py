#!/usr/bin/env python3
"""measure.py - time LLM operators and whole steps on one NVIDIA GPU, for llmroof.

For a model of llmroof's catalog (read from `llmroof show model ID --format json`) this
times, with CUDA events after warm-up, the median of repeats of:
  (a) each linear operator of one layer as llmroof defines it - qkv_proj (fused q/k/v
      GEMM), o_proj, ffn (gate+up GEMM, activation, down GEMM), lm_head - at token counts
      1 ... 8192, in fp16 and bf16 (and fp8 where torch._scaled_mm runs);
  (b) attention: prefill with scaled_dot_product_attention (causal) at several lengths,
      decode attention of one new token per sequence over a KV cache of batch x context;
  (c) the norm (RMSNorm or LayerNorm) over tokens x hidden;
  (d) whole steps of a randomly initialised model of the same architecture built with
      HuggingFace transformers from the catalog's config (no weights are downloaded):
      prefill at several prompt lengths, decode steps at batch 1 ... 256 and several
      contexts (skipped with --no-steps or when transformers is absent);
  (e) achievable HBM bandwidth (device-to-device copy) and dense GEMM peak.

Writes into --out-dir:
  ops.csv    op,tokens,batch,context,dtype,measured_s,model,tp  -> llmroof validate --ops
  steps.csv  rows in data/measurements.csv's format -> llmroof validate /
             llmroof calibrate
  env.json   GPU name, clocks, driver, torch and CUDA versions, the peaks measured in (e)

Shapes are one tensor-parallel rank's: --tp 8 times llama-2-70b's layer as one GPU of
eight holds it (heads, KV heads, MLP width and vocabulary divided by 8), so a single GPU
measures the operators of a multi-GPU deployment without the collectives.

One command (docs/validation.md, "Measuring your own GPU"):
  python3 bench/gpu/measure.py --model llama-2-7b --out-dir my-h100
  llmroof validate --ops my-h100/ops.csv -g h100
  llmroof calibrate my-h100/steps.csv -g h100 --out my-h100/gpu.json

--smoke runs tiny shapes on the CPU (the test suite's check that the kit produces
well-formed rows); it needs only PyTorch.
"""

import argparse
import contextlib
import csv
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time

try:
    import torch
    import torch.nn.functional as F
except ImportError:  # main() says so after --help has had its answer (the test suite skips on 77)
    torch = F = None

OPS_COLUMNS = ["op", "tokens", "batch", "context", "dtype", "measured_s", "model", "tp"]
STEP_COLUMNS = ["id", "model", "gpu", "num_gpus", "tp", "weight_dtype", "kv_dtype", "framework", "batch",
                "input_len", "output_len", "metric", "value", "unit", "notes", "source"]
DTYPES = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32} if torch else {}


def sdpa(q, k, v, causal=False):
    """scaled_dot_product_attention (PyTorch >= 2.0: flash / memory-efficient kernels); the
    explicit form only where it is missing (e.g. Debian's torch 1.13, for the CPU smoke test)."""
    if hasattr(F, "scaled_dot_product_attention"):
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    s = (q @ k.transpose(-1, -2)) / math.sqrt(q.shape[-1])
    if causal:
        L = q.shape[-2]
        s = s.masked_fill(torch.ones(L, L, dtype=torch.bool, device=q.device).triu(1), float("-inf"))
    return torch.softmax(s, dim=-1) @ v


def die(msg):
    sys.stderr.write("measure.py: error: %s\n" % msg)
    sys.exit(2)


def catalog_model(llmroof, model_id):
    """The catalog entry, exactly as llmroof uses it."""
    try:
        out = subprocess.run([llmroof, "show", "model", model_id, "--format", "json"], check=True,
                             capture_output=True, text=True).stdout
    except FileNotFoundError:
        die("cannot run '%s' (build llmroof first or pass --llmroof PATH)" % llmroof)
    except subprocess.CalledProcessError as e:
        die("llmroof show model %s failed: %s" % (model_id, e.stderr.strip()))
    return json.loads(out)


class Timer:
    """Median of repeats after warm-up; CUDA events on a GPU, perf_counter on the CPU."""

    def __init__(self, device, warmup, repeats):
        self.device, self.warmup, self.repeats = device, warmup, repeats

    def __call__(self, fn):
        for _ in range(self.warmup):
            fn()
        times = []
        if self.device.type == "cuda":
            torch.cuda.synchronize()
            for _ in range(self.repeats):
                start = torch.cuda.Event(enable_timing=True)
                end = torch.cuda.Event(enable_timing=True)
                start.record()
                fn()
                end.record()
                end.synchronize()
                times.append(start.elapsed_time(end) / 1e3)
        else:
            for _ in range(self.repeats):
                t0 = time.perf_counter()
                fn()
                times.append(time.perf_counter() - t0)
        return statistics.median(times)


def shard(m, tp):
    """One rank's shapes, as llmroof's ops_shard computes them (docs/model.md)."""
    heads, kv = m["num_heads"], m["num_kv_heads"]
    if heads % tp or (kv % tp and tp % kv):
        die("TP %d does not divide the heads (%d) / KV heads (%d) of %s" % (tp, heads, kv, m["id"]))
    inter = m.get("intermediate_size", 0)
    if m.get("moe"):
        inter = m["moe"].get("expert_intermediate_size", inter)
    return {
        "hidden": m["hidden_size"], "head_dim": m["head_dim"], "heads": heads // tp,
        "kv_heads": max(kv // tp, 1), "inter": max(inter // tp, 1), "vocab": -(-m["vocab_size"] // tp),
        "gated": m.get("mlp", "gated") == "gated", "rms": m.get("norm", "rmsnorm") == "rmsnorm",
    }


def measure_ops(m, s, args, device, timer, dtype_name, rows):
    dt = DTYPES[dtype_name]
    h, d = s["hidden"], s["head_dim"]
    qkv_out = (s["heads"] + 2 * s["kv_heads"]) * d
    w_qkv = torch.randn(qkv_out, h, device=device, dtype=dt) * 0.02
    w_o = torch.randn(h, s["heads"] * d, device=device, dtype=dt) * 0.02
    w_up = torch.randn((2 if s["gated"] else 1) * s["inter"], h, device=device, dtype=dt) * 0.02
    w_down = torch.randn(h, s["inter"], device=device, dtype=dt) * 0.02
    w_head = torch.randn(s["vocab"], h, device=device, dtype=dt) * 0.02
    norm_w = torch.ones(h, device=device, dtype=dt)

    def ffn(x):
        u = F.linear(x, w_up)
        if s["gated"]:
            g, u = u.chunk(2, dim=-1)
            u = F.silu(g) * u
        else:
            u = F.gelu(u)
        return F.linear(u, w_down)

    def add(op, tokens, batch, context, t):
        rows.append({"op": op, "tokens": tokens, "batch": batch, "context": context, "dtype": dtype_name,
                     "measured_s": "%.9g" % t, "model": m["id"], "tp": args.tp})

    for T in args.tokens:
        x = torch.randn(T, h, device=device, dtype=dt)
        a = torch.randn(T, s["heads"] * d, device=device, dtype=dt)
        add("qkv_proj", T, 1, 0, timer(lambda: F.linear(x, w_qkv)))
        add("o_proj", T, 1, 0, timer(lambda: F.linear(a, w_o)))
        add("ffn", T, 1, 0, timer(lambda: ffn(x)))
        # the LM head runs on one row per sequence: T rows = a decode step of batch T
        add("lm_head", T, T, 0, timer(lambda: F.linear(x, w_head)))
        if s["rms"]:
            add("norm", T, 1, 0, timer(lambda: F.rms_norm(x, (h,), norm_w) if hasattr(F, "rms_norm")
                                       else x * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-5).to(dt)
                                       * norm_w))
        else:
            add("norm", T, 1, 0, timer(lambda: F.layer_norm(x, (h,), norm_w)))
    groups = s["heads"] // s["kv_heads"]
    for L in args.prefill_lens:
        q = torch.randn(1, s["heads"], L, d, device=device, dtype=dt)
        k = torch.randn(1, s["kv_heads"], L, d, device=device, dtype=dt)
        v = torch.randn(1, s["kv_heads"], L, d, device=device, dtype=dt)
        kk, vv = k.repeat_interleave(groups, 1), v.repeat_interleave(groups, 1)
        add("attention", L, 1, 0, timer(lambda: sdpa(q, kk, vv, causal=True)))
    for B in args.decode_batches:
        for C in args.contexts:
            if B * C * s["kv_heads"] * d * 2 * 2 * 2 > args.max_cache_bytes:
                continue
            q = torch.randn(B, s["heads"], 1, d, device=device, dtype=dt)
            k = torch.randn(B, s["kv_heads"], C, d, device=device, dtype=dt)
            v = torch.randn(B, s["kv_heads"], C, d, device=device, dtype=dt)
            # grouped-query: the `groups` query heads sharing a KV head attend as `groups` query
            # rows of that head, so K/V are read once per KV head, as a decode kernel does
            q = q.view(B, s["kv_heads"], groups, d)
            add("attention", B, B, C, timer(lambda: sdpa(q, k, v)))


def measure_peaks(device, timer, args):
    """Achievable HBM bandwidth (copy reads and writes n bytes each) and dense GEMM peak."""
    n = args.copy_bytes // 2
    src = torch.empty(n // 2, device=device, dtype=torch.float16)
    dst = torch.empty_like(src)
    t = timer(lambda: dst.copy_(src))
    bw = 2 * src.numel() * 2 / t
    N = args.gemm_n
    dt = torch.float16 if device.type == "cuda" else torch.float32  # CPUs lack half GEMMs
    a = torch.randn(N, N, device=device, dtype=dt)
    b = torch.randn(N, N, device=device, dtype=dt)
    tg = timer(lambda: a @ b)
    return {"copy_bandwidth_Bps": bw, "gemm_flops": 2 * N ** 3 / tg, "gemm_dtype": str(dt).replace("torch.", ""),
            "gemm_n": N}


def measure_steps(m, args, device, timer, dtype_name, gpu_name, rows):
    """Whole prefill and decode steps of a randomly initialised HF model (eager PyTorch)."""
    try:
        import transformers
    except ImportError:
        sys.stderr.write("measure.py: transformers absent: whole-step timing skipped\n")
        return
    cfg = {"hidden_size": m["hidden_size"], "num_hidden_layers": args.layers or m["num_layers"],
           "num_attention_heads": m["num_heads"], "num_key_value_heads": m["num_kv_heads"],
           "intermediate_size": m["intermediate_size"], "vocab_size": m["vocab_size"],
           "max_position_embeddings": m["max_context"], "tie_word_embeddings": m["tie_embeddings"]}
    config = transformers.LlamaConfig(**cfg)
    # build on the device where torch can (>= 2.0: a 7B model would take 27 GB of host memory in fp32)
    where = device if hasattr(torch.device, "__enter__") else contextlib.nullcontext()
    with where:
        model = transformers.LlamaForCausalLM(config)
    model = model.to(device=device, dtype=DTYPES[dtype_name]).eval()
    layers_note = "" if not args.layers else "; %d of %d layers (times scaled by %d/%d)" % (
        args.layers, m["num_layers"], m["num_layers"], args.layers)
    scale = m["num_layers"] / cfg["num_hidden_layers"]
    n = [0]

    def add(batch, inp, out, metric, value, unit, note):
        n[0] += 1
        rows.append({"id": "k%03d" % n[0], "model": m["id"], "gpu": args.gpu or gpu_name, "num_gpus": 1, "tp": 1,
                     "weight_dtype": dtype_name, "kv_dtype": dtype_name,
                     "framework": "pytorch %s eager (HF transformers %s)" % (torch.__version__,
                                                                             transformers.__version__),
                     "batch": batch, "input_len": inp, "output_len": out, "metric": metric, "value": "%.6g" % value,
                     "unit": unit, "notes": note + layers_note, "source": "bench/gpu/measure.py"})

    with torch.inference_mode():
        for P in args.prompts:
            ids = torch.randint(0, m["vocab_size"], (1, P), device=device)
            t = timer(lambda: model(ids, use_cache=True)) * scale
            add(1, P, 1, "ttft_ms", t * 1e3, "ms", "one prefill forward, random weights")
        for B in args.step_batches:
            for C in args.step_contexts:
                ids = torch.randint(0, m["vocab_size"], (B, C), device=device)
                try:
                    past = model(ids, use_cache=True).past_key_values
                except torch.cuda.OutOfMemoryError:
                    torch.cuda.empty_cache()
                    continue
                nxt = torch.randint(0, m["vocab_size"], (B, 1), device=device)
                t = timer(lambda: model(nxt, past_key_values=past, use_cache=True)) * scale
                # the cache grows by one token per call; at C >> repeats that changes nothing measurable
                add(B, C, 2, "tpot_ms", t * 1e3, "ms", "one decode step at context %d, random weights" % C)
                del past


def environment(device):
    env = {"python": platform.python_version(), "torch": torch.__version__, "host": platform.node()}
    if device.type == "cuda":
        p = torch.cuda.get_device_properties(device)
        env.update({"gpu": p.name, "memory_bytes": p.total_memory, "sm_count": p.multi_processor_count,
                    "cuda": torch.version.cuda, "capability": "%d.%d" % (p.major, p.minor)})
        try:
            q = subprocess.run(["nvidia-smi", "--query-gpu=driver_version,clocks.sm,clocks.max.sm,clocks.mem,"
                                "power.limit", "--format=csv,noheader"], capture_output=True, text=True, check=True)
            keys = ["driver", "sm_clock", "sm_clock_max", "mem_clock", "power_limit"]
            env.update(dict(zip(keys, [v.strip() for v in q.stdout.strip().split("\n")[0].split(",")])))
        except (OSError, subprocess.CalledProcessError):
            env["driver"] = "unknown (nvidia-smi not found)"
    else:
        env["gpu"] = "cpu (%s)" % platform.processor()
    return env


def write_csv(path, columns, rows):
    tmp = path + ".tmp"
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    os.replace(tmp, path)  # never a truncated file


def ints(s):
    try:
        v = [int(x) for x in s.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError("'%s' is not a comma-separated list of whole numbers" % s)
    if not v or min(v) < 1:
        raise argparse.ArgumentTypeError("'%s': values must be >= 1" % s)
    return v


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", required=True, help="model id from llmroof's catalog")
    ap.add_argument("--llmroof", default=os.path.join(os.path.dirname(__file__), "..", "..", "build", "llmroof"))
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--gpu", default="", help="catalog id written into steps.csv (default: the device name)")
    ap.add_argument("--tp", type=int, default=1, help="measure one rank's slice at this TP (default 1)")
    ap.add_argument("--dtypes", default="fp16,bf16", help="comma-separated: fp16, bf16")
    ap.add_argument("--tokens", type=ints, default=ints("1,2,4,8,16,32,64,128,256,512,1024,2048,4096,8192"))
    ap.add_argument("--prefill-lens", type=ints, default=ints("128,512,1024,2048,4096"))
    ap.add_argument("--decode-batches", type=ints, default=ints("1,8,32,128"))
    ap.add_argument("--contexts", type=ints, default=ints("512,2048,8192"))
    ap.add_argument("--prompts", type=ints, default=ints("128,512,2048"))
    ap.add_argument("--step-batches", type=ints, default=ints("1,8,32,64,128,256"))
    ap.add_argument("--step-contexts", type=ints, default=ints("512,2048"))
    ap.add_argument("--layers", type=int, default=0, help="whole steps with fewer layers, times scaled (0: all)")
    ap.add_argument("--no-steps", action="store_true", help="skip whole-step timing")
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=50)
    ap.add_argument("--max-cache-bytes", type=int, default=16 << 30)
    ap.add_argument("--copy-bytes", type=int, default=2 << 30)
    ap.add_argument("--gemm-n", type=int, default=8192)
    ap.add_argument("--smoke", action="store_true", help="tiny shapes on the CPU (test suite)")
    args = ap.parse_args()
    if torch is None:
        sys.stderr.write("measure.py: PyTorch is not installed (pip install torch)\n")
        sys.exit(77)

    m = catalog_model(args.llmroof, args.model)
    shard(m, args.tp)  # the real model's heads decide whether --tp is possible
    if args.smoke:
        device = torch.device("cpu")
        args.tokens, args.prefill_lens, args.decode_batches, args.contexts = [1, 4], [8], [2], [16]
        args.dtypes, args.warmup, args.repeats = "fp32", 1, 3
        args.copy_bytes, args.gemm_n, args.no_steps = 1 << 20, 64, True
        # a thin slice of the real layer keeps the CPU run to seconds
        gqa = m["num_kv_heads"] < m["num_heads"]
        m = dict(m, hidden_size=64, num_heads=4 * args.tp, num_kv_heads=(2 if gqa else 4) * args.tp, head_dim=16,
                 intermediate_size=128 * args.tp, vocab_size=256 * args.tp)
    elif not torch.cuda.is_available():
        die("no CUDA device (use --smoke for the CPU check)")
    else:
        device = torch.device("cuda")
    timer = Timer(device, args.warmup, args.repeats)
    s = shard(m, args.tp)
    os.makedirs(args.out_dir, exist_ok=True)
    env = environment(device)
    env.update(measure_peaks(device, timer, args))
    env.update({"model": m["id"], "tp": args.tp, "warmup": args.warmup, "repeats": args.repeats,
                "date": time.strftime("%Y-%m-%d")})
    op_rows, step_rows = [], []
    for name in args.dtypes.split(","):
        if name not in DTYPES:
            die("unknown dtype '%s' (expected fp16, bf16)" % name)
        measure_ops(m, s, args, device, timer, name, op_rows)
        if not args.no_steps and args.tp == 1 and name != "fp32":
            measure_steps(m, args, device, timer, name, env["gpu"], step_rows)
    write_csv(os.path.join(args.out_dir, "ops.csv"), OPS_COLUMNS, op_rows)
    write_csv(os.path.join(args.out_dir, "steps.csv"), STEP_COLUMNS, step_rows)
    with open(os.path.join(args.out_dir, "env.json"), "w") as f:
        json.dump(env, f, indent=1, sort_keys=True)
    sys.stderr.write("measure.py: %d operator rows, %d step rows in %s\n" % (len(op_rows), len(step_rows),
                                                                             args.out_dir))


if __name__ == "__main__":
    main()
