#!/usr/bin/env python3
"""Compares llmroof's MoE expert operator with published Triton fused-MoE kernel timings.

usage: scripts/moe-kernels.py [BUILD/llmroof] [CSV]
       scripts/moe-kernels.py --other [BUILD/llmroof]
  (defaults: build/llmroof, docs/validation/public/fused_moe_triton.csv)

Each CSV row is one `benchmark_moe` timing from a vLLM or SGLang pull request (its source_url):
the whole fused-experts call for M tokens of an (E experts, N per rank, K hidden, top-k) shape.
For each row the script builds a four-layer model of that shape (--models-file), asks
`llmroof estimate -e vllm --ops` for a prompt of M tokens, and divides the measured time by the
FFN operator's time per layer. It prints every ratio and the median |log ratio| by token band
(tuned configurations where a shape has them; M >= 16, below which the tables carry harness
floors). docs/model.md "Triton's fused-MoE kernel" quotes its summary.

--other compares docs/validation/public/moe_other_kernels.csv the same way: FlashInfer's
TensorRT-LLM-gen MoE on a B300 (a DeepSeek EP 8 shard: 32 of 256 experts, each token one of its
assignments, so 32 experts at top 1; engine tensorrt-llm) and AMD AITER's tuned fp8 block-scale
MoE on gfx950 (DeepSeek at TP 8 and 4 from ROCm/aiter's dsv32 file; the catalog's mi355x, engine
sglang). docs/model.md "fp4 experts on datacenter Blackwell" and the paragraph after it quote it."""
import csv, json, math, os, statistics, subprocess, sys, tempfile

GPUS = {'H100 80GB HBM3': 'h100', 'H100': 'h100', 'H200': 'h200', 'A100-SXM4-80GB': 'a100-sxm4-80gb',
        'A100 80GB PCIe': 'a100-pcie-80gb', 'A100-PCIE-40GB': 'a100-pcie-40gb', 'L40S': 'l40s', 'B200': 'b200',
        'H20-3e': 'h20'}
LAYERS = 4


def ffn_us(binary, gpu, fp8, E, N, K, topk, M, engine='vllm', wd=None):
    model = {"id": "moe-probe", "name": "probe", "hidden_size": K, "num_layers": LAYERS, "num_heads": 8,
             "num_kv_heads": 8, "head_dim": 128, "intermediate_size": N, "vocab_size": 32000,
             "max_context": 131072, "tie_embeddings": False, "mlp": "gated", "norm": "rmsnorm",
             "moe": {"experts": E, "experts_per_token": topk, "expert_intermediate_size": N, "shared_experts": 0},
             "source": "a benchmark_moe shape"}
    with tempfile.NamedTemporaryFile('w', suffix='.json', delete=False) as f:
        json.dump({"models": [model]}, f)
        path = f.name
    wd = wd or ('fp8' if fp8 else 'bf16')
    cmd = [binary, 'estimate', '--models-file', path, '-m', 'moe-probe', '-g', gpu, '-e', engine,
           '--weight-dtype', wd, '-b', '1', '-p', str(M), '-o', '2', '--ops']
    if wd != 'bf16':
        cmd += ['--act-dtype', wd]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    finally:
        os.unlink(path)
    ops = False
    for line in out.splitlines():
        f = line.split()
        ops = ops or line.startswith('prefill operators')
        if ops and f and f[0] == 'ffn':
            return float(f[6]) * 1000.0 / LAYERS
    raise SystemExit('no ffn operator in: ' + ' '.join(cmd))


def other(binary):
    rows = list(csv.DictReader(open('docs/validation/public/moe_other_kernels.csv')))
    print('source,gpu,kernel,dtype,N,M,measured_us,llmroof_us,ratio')
    for x in rows:
        kern, gpu, M, t = x['kernel'], x['gpu'], int(float(x['M_tokens'])), float(x['time_us'])
        if gpu == 'B300':
            wd = 'fp4' if 'fp4' in kern else 'fp8' if 'fp8' in kern else 'bf16'
            p = ffn_us(binary, 'b300', False, 32, 2048, 7168, 1, M, 'tensorrt-llm', wd)
        elif gpu.startswith('MI355X/MI350X') and 'dsv32' in x['source_url']:
            wd = 'fp8'
            p = ffn_us(binary, 'mi355x', True, int(x['E']), int(x['N_per_rank']), int(x['K_hidden']), int(x['top_k']), M,
                       'sglang', wd)
        else:
            continue  # one GEMM alone (DeepGEMM), or a shape or GPU the probe does not take
        print('%s,%s,%s,%s,%s,%d,%.1f,%.1f,%.3f' % (x['source_url'].split('/')[-1], gpu.split()[0], kern.split('(')[0].strip(),
              wd, x['N_per_rank'], M, t, p, t / p))


def main():
    if len(sys.argv) > 1 and sys.argv[1] == '--other':
        return other(sys.argv[2] if len(sys.argv) > 2 else 'build/llmroof')
    binary = sys.argv[1] if len(sys.argv) > 1 else 'build/llmroof'
    rows = list(csv.DictReader(open(sys.argv[2] if len(sys.argv) > 2 else 'docs/validation/public/fused_moe_triton.csv')))
    shape = lambda x: (x['source_url'], x['gpu'], x['dtype'], x['E'], x['N_per_rank'], x['K_hidden'], x['top_k'])
    tuned = {shape(x) for x in rows if x['config'] == 'tuned'}
    logs = []
    print('source,gpu,dtype,config,E,N,K,topk,M,measured_us,llmroof_us,ratio')
    for x in rows:
        gpu = GPUS.get(x['gpu'])
        if not gpu or not (x['N_per_rank'] and x['K_hidden'] and x['top_k']) or x['source_url'].endswith('/37814'):
            continue  # a GPU without a catalog entry, a shape the source leaves open, an expert-parallel slice
        if x['config'] != 'tuned' and shape(x) in tuned:
            continue
        M = int(float(x['M_tokens']))
        t = ffn_us(binary, gpu, not x['dtype'].startswith('bf16'), int(x['E']), int(x['N_per_rank']),
                   int(x['K_hidden']), int(x['top_k']), M)
        r = float(x['time_us']) / t
        print('%s,%s,%s,%s,%s,%s,%s,%s,%d,%s,%.1f,%.3f' % (x['source_url'], gpu, x['dtype'].split()[0], x['config'],
              x['E'], x['N_per_rank'], x['K_hidden'], x['top_k'], M, x['time_us'], t, r))
        if M >= 16:
            logs.append((M, math.log(r)))
    for lo, hi in ((16, 256), (256, 1024), (1024, 10 ** 9), (16, 10 ** 9)):
        v = [a for m, a in logs if lo <= m < hi]
        if v:
            print('# M %d-%s: %d points, geometric-mean ratio %.2f, median |log ratio| %.2f' % (
                lo, hi if hi < 10 ** 9 else 'up', len(v), math.exp(statistics.mean(v)),
                statistics.median(abs(a) for a in v)), file=sys.stderr)


if __name__ == '__main__':
    main()
