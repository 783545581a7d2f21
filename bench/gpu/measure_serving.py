#!/usr/bin/env python3
"""Measure what the serving model needs on one NVIDIA GPU (issue #27): grouped MoE GEMMs at few
tokens per expert, attention over mixed batches (one prefill chunk + N decodes in one varlen call),
MLA-shaped absorbed decode, the LM head and sampling, and whole Llama-3.1-8B iterations (decode-only
under a CUDA graph, prefill-only and mixed eager) over a packed, variable-length batch as a serving
engine runs them.

  python3 bench/gpu/measure_serving.py --out DIR                   # every section
  python3 bench/gpu/measure_serving.py --out DIR --sections moe,iters
  python3 bench/gpu/measure_serving.py --out DIR --quick           # a few sizes per section

Timing helpers, CSV writer and the L2 rule (weights rotated over >= 200 MB of copies) come from
measure_kernels.py, so the two scripts' numbers are taken the same way. A single GPU cannot measure
collectives; nothing here does.
"""

import argparse
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure_kernels import (BF16, FP8, PEAK, Out, copies_for, log, machine_env, run_sections,  # noqa: E402
                             t_events, time_calls)

# (family, hidden, moe_intermediate, experts, top_k): one rank holding every expert (EP 1, TP 1)
MOE = [
    ("mixtral-8x7b", 4096, 14336, 8, 2),
    ("qwen3-30b-a3b", 2048, 768, 128, 8),
    ("qwen3-235b-a22b", 4096, 1536, 128, 8),
    ("deepseek-v3", 7168, 2048, 256, 8),
]
MOE_M = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]


# ---------------------------------------------------------------- grouped MoE GEMMs
def grouped_call(dtype, E, m, N, K, impl):
    """call(i): every one of E experts multiplies its m tokens (m x K) by its N x K weight."""
    nb = E * N * K * (2 if dtype == "bf16" else 1)
    nc = copies_for(nb, cap=8)
    x = torch.randn(E * m, K, device="cuda", dtype=BF16)
    offs = torch.arange(1, E + 1, device="cuda", dtype=torch.int32) * m
    if dtype == "bf16":
        ws = [(torch.randn(E, N, K, device="cuda", dtype=BF16) * 0.02).transpose(-2, -1) for _ in range(nc)]
        if impl == "grouped_mm":
            return lambda i: torch._grouped_mm(x, ws[i % nc], offs=offs, out_dtype=BF16)
        xs = x.view(E, m, K)
        return lambda i: [torch.mm(xs[e], ws[i % nc][e]) for e in range(E)]
    xq = x.to(FP8)
    ws = [(torch.randn(E, N, K, device="cuda", dtype=BF16) * 0.02).to(FP8).transpose(-2, -1) for _ in range(nc)]
    sa = torch.ones(E * m, device="cuda", dtype=torch.float32)
    sb = torch.ones(E, N, device="cuda", dtype=torch.float32)
    if impl == "grouped_mm":
        return lambda i: torch._scaled_grouped_mm(xq, ws[i % nc], sa, sb, offs=offs, out_dtype=BF16)
    xs = xq.view(E, m, K)
    one = torch.ones((), device="cuda", dtype=torch.float32)
    return lambda i: [torch._scaled_mm(xs[e], ws[i % nc][e], scale_a=one, scale_b=one, out_dtype=BF16)
                      for e in range(E)]


def sec_moe(out, args):
    o = Out(os.path.join(out, "moe_gemm.csv"),
            ["family", "gemm", "dtype", "impl", "experts", "tokens_per_expert", "N", "K", "measured_s", "tflops",
             "eff_dense_peak", "weight_GBps", "method"])
    ms = [1, 8, 64] if args.quick else MOE_M
    for fam, h, inter, E, _k in (MOE[:2] if args.quick else MOE):
        for gemm, N, K in (("gate_up", 2 * inter, h), ("down", h, inter)):
            for dtype in ("bf16", "fp8"):
                for m in ms:
                    for impl in ("grouped_mm", "loop"):
                        if impl == "loop" and m not in (1, 16, 128):
                            continue
                        try:
                            call = grouped_call(dtype, E, m, N, K, impl)
                            t, meth = time_calls(call, max_inner=16)
                        except Exception as e:
                            log("  moe %s %s %s %s m=%d: %s" % (fam, gemm, dtype, impl, m, str(e).split("\n")[0][:150]))
                            torch.cuda.empty_cache()
                            continue
                        wb = E * N * K * (2 if dtype == "bf16" else 1)
                        fl = 2.0 * E * m * N * K
                        o.row(family=fam, gemm=gemm, dtype=dtype, impl=impl, experts=E, tokens_per_expert=m, N=N,
                              K=K, measured_s=t, tflops=fl / t / 1e12, eff_dense_peak=fl / t / PEAK[dtype],
                              weight_GBps=wb / t / 1e9, method=meth)
                        log("  moe %-16s %-7s %s %-10s m=%3d: %8.1f us  %6.0f GB/s  %5.0f TFLOP/s"
                            % (fam, gemm, dtype, impl, m, t * 1e6, wb / t / 1e9, fl / t / 1e12))
                        del call
                        torch.cuda.empty_cache()


# ---------------------------------------------------------------- attention over mixed batches
def varlen(q, k, v, cq, ck, mq, mk):
    """One FlashAttention-2 varlen call (PyTorch's bundled kernel): causal, bottom-right aligned, native GQA."""
    return torch.ops.aten._flash_attention_forward(q, k, v, cq, ck, mq, mk, 0.0, True, False)[0]


def mixed_inputs(chunk, n, ctx, Hq=32, Hk=8, d=128):
    lq = ([chunk] if chunk else []) + [1] * n
    lk = ([chunk] if chunk else []) + [ctx] * n
    cq = torch.tensor([0] + lq, device="cuda", dtype=torch.int32).cumsum(0, dtype=torch.int32)
    ck = torch.tensor([0] + lk, device="cuda", dtype=torch.int32).cumsum(0, dtype=torch.int32)
    q = torch.randn(sum(lq), Hq, d, device="cuda", dtype=BF16)
    k = torch.randn(sum(lk), Hk, d, device="cuda", dtype=BF16)
    v = torch.randn(sum(lk), Hk, d, device="cuda", dtype=BF16)
    return q, k, v, cq, ck, max(lq), max(lk)


def sec_mixed_attn(out, args):
    o = Out(os.path.join(out, "attention_mixed.csv"),
            ["kernel", "chunk", "decodes", "context", "q_heads", "kv_heads", "head_dim", "measured_s",
             "chunk_alone_s", "decodes_alone_s", "kv_bytes", "method"])
    chunks = [0, 512, 2048, 8192] if not args.quick else [0, 2048]
    ns = [0, 1, 8, 32, 128, 256] if not args.quick else [0, 32]
    ctxs = [1024, 4096, 32768] if not args.quick else [4096]
    alone = {}
    for chunk in chunks:
        for n in ns:
            for ctx in ctxs:
                if chunk == 0 and n == 0 or n == 0 and ctx != ctxs[0] or n * ctx > 2 << 20:
                    continue
                try:
                    q, k, v, cq, ck, mq, mk = mixed_inputs(chunk, n, ctx)
                    t, meth = time_calls(lambda i: varlen(q, k, v, cq, ck, mq, mk), max_inner=16)
                except Exception as e:
                    log("  mixed attn chunk=%d n=%d ctx=%d: %s" % (chunk, n, ctx, str(e).split("\n")[0][:150]))
                    torch.cuda.empty_cache()
                    continue
                alone[(chunk, n, ctx)] = t
                kvb = 2 * (n * ctx + chunk) * 8 * 128 * 2
                o.row(kernel="flash2_varlen", chunk=chunk, decodes=n, context=ctx if n else 0, q_heads=32,
                      kv_heads=8, head_dim=128, measured_s=t,
                      chunk_alone_s=alone.get((chunk, 0, ctxs[0]), 0.0) if chunk else 0.0,
                      decodes_alone_s=alone.get((0, n, ctx), 0.0) if n else 0.0, kv_bytes=kvb, method=meth)
                log("  mixed attn chunk=%5d n=%3d ctx=%5d: %8.1f us" % (chunk, n, ctx, t * 1e6))
                del q, k, v
                torch.cuda.empty_cache()
    # MLA absorbed decode: query rows = heads, over the 576-wide latent (512 + 64 rope), values = latent[:512]
    o2 = Out(os.path.join(out, "mla_decode.csv"),
             ["heads", "batch", "context", "measured_s", "latent_bytes", "GBps", "method"])
    for H in (16, 128):
        for B in ([1, 8, 32, 128] if not args.quick else [8]):
            for C in ([1024, 4096, 16384] if not args.quick else [4096]):
                if B * C > 1 << 21:
                    continue
                try:
                    nb = B * C * 576 * 2
                    nc = copies_for(nb, cap=8)
                    kv = [torch.randn(B, C, 576, device="cuda", dtype=BF16) for _ in range(nc)]
                    qq = torch.randn(B, H, 576, device="cuda", dtype=BF16)

                    def mla(i):
                        s = torch.bmm(qq, kv[i % nc].transpose(1, 2)) * 0.04
                        return torch.bmm(torch.softmax(s.float(), -1).to(BF16), kv[i % nc][:, :, :512])
                    t, meth = time_calls(mla, max_inner=16)
                except Exception as e:
                    log("  mla H=%d B=%d C=%d: %s" % (H, B, C, str(e).split("\n")[0][:150]))
                    continue
                o2.row(heads=H, batch=B, context=C, measured_s=t, latent_bytes=nb, GBps=nb / t / 1e9, method=meth)
                log("  mla decode H=%3d B=%3d C=%5d: %8.1f us %6.0f GB/s" % (H, B, C, t * 1e6, nb / t / 1e9))
                del kv
                torch.cuda.empty_cache()


# ---------------------------------------------------------------- LM head and sampling
def sample(logits, temp=0.8, top_p=0.95, top_k=50):
    """What a serving engine's sampler does per step: temperature, top-k, top-p by sort, softmax, draw."""
    x = logits.float() / temp
    kth = torch.topk(x, top_k, dim=-1).values[:, -1:]
    x = x.masked_fill(x < kth, float("-inf"))
    sv, si = torch.sort(x, dim=-1, descending=True)
    cp = sv.softmax(-1).cumsum(-1)
    sv = sv.masked_fill(cp - sv.softmax(-1) > top_p, float("-inf"))
    p = sv.softmax(-1)
    pick = torch.multinomial(p, 1)
    return si.gather(-1, pick)


def sec_sampling(out, args):
    o = Out(os.path.join(out, "sampling.csv"),
            ["vocab", "hidden", "batch", "lm_head_s", "greedy_s", "sample_s", "method"])
    for V in ([32000, 128256, 151936, 256000] if not args.quick else [128256]):
        h = 4096
        nc = copies_for(V * h * 2, cap=8)
        ws = [torch.randn(V, h, device="cuda", dtype=BF16) * 0.02 for _ in range(nc)]
        for B in ([1, 8, 32, 128, 512] if not args.quick else [1, 64]):
            x = torch.randn(B, h, device="cuda", dtype=BF16)
            logits = torch.randn(B, V, device="cuda", dtype=BF16)
            try:
                th, _ = time_calls(lambda i: F.linear(x, ws[i % nc]))
                tg = t_events(lambda: logits.float().argmax(-1))
                ts = t_events(lambda: sample(logits))
            except Exception as e:
                log("  sampling V=%d B=%d: %s" % (V, B, str(e).split("\n")[0][:150]))
                continue
            o.row(vocab=V, hidden=h, batch=B, lm_head_s=th, greedy_s=tg, sample_s=ts,
                  method="lm_head graph; greedy/sample eager events")
            log("  V=%6d B=%3d: lm_head %7.1f us, greedy %6.1f us, top-k/top-p sample %7.1f us"
                % (V, B, th * 1e6, tg * 1e6, ts * 1e6))
        del ws
        torch.cuda.empty_cache()


# ---------------------------------------------------------------- whole iterations
class Llama8B:
    """A Llama-3.1-8B forward over a packed batch (all tokens of all sequences in one [T, h] tensor),
    as vLLM/SGLang run it: fused QKV and gate/up GEMMs, rotary embedding, new K/V written into a paged-free
    packed cache, one varlen FlashAttention call per layer, logits of each sequence's last token."""

    h, H, Hk, d, I, V = 4096, 32, 8, 128, 14336, 128256

    def __init__(self, nl):
        torch.manual_seed(0)
        h, H, Hk, d, I, V = self.h, self.H, self.Hk, self.d, self.I, self.V

        def wt(n, k):
            return torch.randn(n, k, device="cuda", dtype=BF16) * 0.02

        self.nl = nl
        self.layers = [dict(qkv=wt((H + 2 * Hk) * d, h), o=wt(h, H * d), gu=wt(2 * I, h), dn=wt(h, I),
                            n1=torch.ones(h, device="cuda", dtype=BF16), n2=torch.ones(h, device="cuda", dtype=BF16))
                       for _ in range(nl)]
        self.emb = wt(V, h)
        self.head = wt(V, h)
        self.fnorm = torch.ones(h, device="cuda", dtype=BF16)
        self.inv = 1.0 / (500000.0 ** (torch.arange(0, d, 2, device="cuda", dtype=torch.float32) / d))

    def batch(self, seqs):
        """seqs: list of (new_tokens, past_tokens). Builds the packed inputs and a K/V cache per layer."""
        Hk, d = self.Hk, self.d
        lq = [n for n, _ in seqs]
        lk = [n + p for n, p in seqs]
        T, S = sum(lq), sum(lk)
        cq = torch.tensor([0] + lq, device="cuda", dtype=torch.int32).cumsum(0, dtype=torch.int32)
        ck = torch.tensor([0] + lk, device="cuda", dtype=torch.int32).cumsum(0, dtype=torch.int32)
        slot, pos, last, kstart = [], [], [], 0
        qstart = 0
        for n, p in seqs:
            slot += range(kstart + p, kstart + p + n)
            pos += range(p, p + n)
            last.append(qstart + n - 1)
            kstart += n + p
            qstart += n
        b = dict(T=T, S=S, cq=cq, ck=ck, mq=max(lq), mk=max(lk),
                 slot=torch.tensor(slot, device="cuda"), pos=torch.tensor(pos, device="cuda"),
                 last=torch.tensor(last, device="cuda"),
                 ids=torch.randint(0, self.V, (T,), device="cuda"),
                 kc=[torch.randn(S, Hk, d, device="cuda", dtype=BF16) for _ in range(self.nl)],
                 vc=[torch.randn(S, Hk, d, device="cuda", dtype=BF16) for _ in range(self.nl)])
        return b

    def forward(self, b):
        h, H, Hk, d = self.h, self.H, self.Hk, self.d
        T = b["T"]
        x = F.embedding(b["ids"], self.emb)
        fr = b["pos"].float()[:, None] * self.inv[None, :]
        cos = torch.cat((fr.cos(), fr.cos()), -1).to(BF16)[:, None, :]
        sin = torch.cat((fr.sin(), fr.sin()), -1).to(BF16)[:, None, :]

        def rope(t):
            t1, t2 = t[..., : d // 2], t[..., d // 2:]
            return t * cos + torch.cat((-t2, t1), dim=-1) * sin

        for li, L in enumerate(self.layers):
            a = F.rms_norm(x, (h,), L["n1"], 1e-5)
            q, k, v = F.linear(a, L["qkv"]).view(T, H + 2 * Hk, d).split([H, Hk, Hk], dim=1)
            q, k = rope(q), rope(k)
            b["kc"][li].index_copy_(0, b["slot"], k)
            b["vc"][li].index_copy_(0, b["slot"], v.contiguous())
            att = varlen(q.contiguous(), b["kc"][li], b["vc"][li], b["cq"], b["ck"], b["mq"], b["mk"])
            x = x + F.linear(att.reshape(T, H * d), L["o"])
            a = F.rms_norm(x, (h,), L["n2"], 1e-5)
            g, u = F.linear(a, L["gu"]).chunk(2, dim=-1)
            x = x + F.linear(F.silu(g) * u, L["dn"])
        last = x.index_select(0, b["last"])
        logits = F.linear(F.rms_norm(last, (h,), self.fnorm, 1e-5), self.head)
        return logits.float().argmax(-1)


def sec_iters(out, args):
    o = Out(os.path.join(out, "iterations.csv"),
            ["model", "kind", "mode", "chunk", "chunk_past", "decodes", "context", "tokens", "measured_s",
             "eager_s", "notes"])
    nl = 4 if args.quick else 32
    m = Llama8B(nl)
    note = "hand-written llama-3.1-8b, bf16, random weights, %d layers, packed varlen batch, greedy" % nl
    cases = []
    for C in ([1024, 4096] if not args.quick else [2048]):
        for B in ([1, 2, 4, 8, 16, 32, 64, 128, 256] if not args.quick else [1, 64]):
            if B * C <= args.max_kv_tokens:
                cases.append(("decode", 0, 0, B, C))
    for P in ([128, 512, 1024, 2048, 4096, 8192] if not args.quick else [1024]):
        cases.append(("prefill", P, 0, 0, 0))
    cases.append(("prefill", 2048, 6144, 0, 0))  # a later chunk of an 8k prompt
    cases.append(("mixed", 2048, 6144, 32, 1024))
    for chunk in ([256, 512, 2048] if not args.quick else [512]):
        for B in ([8, 32, 128] if not args.quick else [32]):
            for C in ([1024, 4096] if not args.quick else [2048]):
                if B * C <= args.max_kv_tokens:
                    cases.append(("mixed", chunk, 0, B, C))
    with torch.inference_mode():
        for kind, chunk, past, B, C in cases:
            seqs = ([(chunk, past)] if chunk else []) + [(1, C - 1)] * B
            try:
                b = m.batch(seqs)
                te = t_events(lambda: m.forward(b), reps=5)
                # every kind also replayed as one CUDA graph: the GPU's time without Python's launches
                s = torch.cuda.Stream()
                s.wait_stream(torch.cuda.current_stream())
                with torch.cuda.stream(s):
                    m.forward(b)
                torch.cuda.current_stream().wait_stream(s)
                g = torch.cuda.CUDAGraph()
                with torch.cuda.graph(g):
                    m.forward(b)
                tg = t_events(g.replay, reps=20)
                del g
            except Exception as e:
                log("  iter %s chunk=%d B=%d C=%d: %s" % (kind, chunk, B, C, str(e).split("\n")[0][:200]))
                torch.cuda.empty_cache()
                continue
            o.row(model="llama-3.1-8b", kind=kind, mode="cudagraph", chunk=chunk, chunk_past=past,
                  decodes=B, context=C, tokens=b["T"], measured_s=tg, eager_s=te, notes=note)
            log("  iter %-7s chunk=%5d(+%d) B=%3d C=%5d: %8.2f ms (eager %.2f)" % (kind, chunk, past, B, C, tg * 1e3, te * 1e3))
            del b
            torch.cuda.empty_cache()


def sec_kinds(out, args):
    """One-row and few-row costs of the small kernels a decoder layer launches beside its GEMMs and
    attention (the kinds elementwise.csv of measure_kernels.py did not cover): rotary embedding of q and k,
    the K/V write into the cache, the embedding gather, one GEMM at M=1 for scale."""
    o = Out(os.path.join(out, "kinds.csv"), ["kernel", "tokens", "measured_s", "kernels", "method"])
    d, H, Hk = 128, 32, 8
    inv = 1.0 / (500000.0 ** (torch.arange(0, d, 2, device="cuda", dtype=torch.float32) / d))
    emb = torch.randn(128256, 4096, device="cuda", dtype=BF16)
    cache = torch.randn(1 << 16, Hk, d, device="cuda", dtype=BF16)
    for T in ([1, 16, 256, 4096] if not args.quick else [1]):
        pos = torch.arange(T, device="cuda")
        q = torch.randn(T, H, d, device="cuda", dtype=BF16)
        k = torch.randn(T, Hk, d, device="cuda", dtype=BF16)
        ids = torch.randint(0, 128256, (T,), device="cuda")

        def rope_qk(i):
            fr = pos.float()[:, None] * inv[None, :]
            cos = torch.cat((fr.cos(), fr.cos()), -1).to(BF16)[:, None, :]
            sin = torch.cat((fr.sin(), fr.sin()), -1).to(BF16)[:, None, :]
            r = []
            for t in (q, k):
                t1, t2 = t[..., : d // 2], t[..., d // 2:]
                r.append(t * cos + torch.cat((-t2, t1), dim=-1) * sin)
            return r

        def count(fn):
            from torch.profiler import ProfilerActivity, profile
            with profile(activities=[ProfilerActivity.CUDA]) as p:
                fn(0)
                torch.cuda.synchronize()
            return sum(1 for e in p.events() if "CUDA" in str(getattr(e, "device_type", "")))

        for name, fn in (("rope_qk_unfused", rope_qk), ("kv_write", lambda i: cache.index_copy_(0, pos, k)),
                         ("embedding", lambda i: F.embedding(ids, emb))):
            t, meth = time_calls(fn)
            o.row(kernel=name, tokens=T, measured_s=t, kernels=count(fn), method=meth)
            log("  %-16s T=%5d: %7.2f us" % (name, T, t * 1e6))


SECTIONS = {"moe": sec_moe, "mixed_attn": sec_mixed_attn, "sampling": sec_sampling, "iters": sec_iters, "kinds": sec_kinds}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--sections", default=",".join(SECTIONS))
    ap.add_argument("--quick", action="store_true", help="a few sizes per section (a check of the machine)")
    ap.add_argument("--max-kv-tokens", type=int, default=262144,
                    help="cap on the cached tokens of one iteration (128 KiB each over 32 layers)")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        sys.exit("measure_serving.py: no CUDA device")
    os.makedirs(args.out, exist_ok=True)
    env = machine_env("bench/gpu/measure_serving.py", args)
    env.update(grouped_mm=hasattr(torch, "_grouped_mm"), scaled_grouped_mm=hasattr(torch, "_scaled_grouped_mm"))
    run_sections(SECTIONS, args, env, os.path.join(args.out, "env_serving.json"))


if __name__ == "__main__":
    main()
