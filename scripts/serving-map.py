#!/usr/bin/env python3
# scripts/serving-map.py - writes data/serving-map.csv from data/serving.csv: how a user would set each
# published serving row up in llmroof (docs/validation.md "Serving rows"). The rules are here, one
# place, so that a change (a model added to the catalog, a workload the simulator learns) is a rerun
# from the repository root: python3 scripts/serving-map.py. Nothing here reads a measured value
# except workload facts: where a run states both its requests/s and its output tokens/s, their
# ratio is the run's mean output length (tokens per request), whatever the server's speed; where
# it also states its total tokens/s, the rest is its mean prompt.
import csv, re, sys
rows = list(csv.DictReader(open('data/serving.csv')))
out = []
MODEL = {'OPT-13B':'opt-13b','OPT-13B?':'opt-13b','Yi-34B':'yi-34b-200k','Yi-34B (Yi-34B-200K weights)':'yi-34b-200k',
 'Llama-2-70B':'llama-2-70b','Llama-2-7B':'llama-2-7b','LLaMA-7B':'llama-7b','LLaMA-13B':'llama-13b',
 'Llama-3.1-8B-Instruct':'llama-3.1-8b','Llama-3.1-405B-Instruct':'llama-3.1-405b','Llama-3.1-405B-Instruct-FP8':'llama-3.1-405b',
 'Llama-3.1-70B-Instruct':'llama-3.1-70b','Llama-3.1-70B-Instruct-FP8 (neuralmagic)':'llama-3.1-70b','Llama-3.3-70B-Instruct':'llama-3.1-70b',
 'Llama-3-70B':'llama-3-70b','Llama-3-8B':'llama-3-8b','Llama-3-8B-Instruct':'llama-3-8b','Llama-3-8B-Instruct-FP8 (neuralmagic)':'llama-3-8b',
 'DeepSeek-V3':'deepseek-v3','DeepSeek-V3 (671B MoE)':'deepseek-v3','DeepSeek-V3/R1':'deepseek-v3','DeepSeek-R1/V3':'deepseek-v3',
 'DeepSeek-V3/R1 (671B MoE)':'deepseek-v3','DeepSeek-R1-0528':'deepseek-r1','DeepSeek-R1/V3 (NVFP4 MoE)':'deepseek-v3',
 'DeepSeek-V3/R1 (production mix)':'deepseek-v3','Kimi-K2-Instruct':'kimi-k2','Vicuna-13B':'llama-13b','Vicuna-7B (v1.5)':'llama-2-7b',
 'Vicuna-13B (v1.5)':'llama-2-13b','DeepSeek-R1-Distill-Llama-8B':'llama-3.1-8b',
 # DeepSeek-Coder-V2 (236B) is DeepSeek-V2's architecture further pre-trained (arXiv:2406.11931)
 'DeepSeek-Coder-V2-Instruct-FP8':'deepseek-v2',
 # DeepSeek-V3.2 is the release of V3.2-Exp's architecture (the same MLA + DSA sparse attention, 671B
 # MoE; deepseek-ai/DeepSeek-V3.2 config.json: model_type deepseek_v32 as V3.2-Exp's)
 'DeepSeek-V3.2':'deepseek-v3.2-exp'}
GPU = {'A100-SXM4-80GB?':'a100-sxm4-80gb','A100-SXM4-80GB':'a100-sxm4-80gb','A100-SXM4-80GB (DGX-A100)':'a100-sxm4-80gb',
 'A100-80GB':'a100-sxm4-80gb','A100-80GB (SXM?)':'a100-sxm4-80gb','A100-PCIe-80GB':'a100-pcie-80gb','H100':'h100-sxm5-80gb',
 'H100-SXM5-80GB (DGX-H100)':'h100-sxm5-80gb','H200':'h200-sxm-141gb','MI300X':'mi300x','B300':'b300','GB200 (NVL72)':'gb200-nvl72',
 'GB200':'gb200-nvl72','GB300':'gb300-nvl72','B200':'b200','H800':'h800-sxm5-80gb','H800?':'h800-sxm5-80gb','A100-40GB':'a100-sxm4-40gb','L4':'l4','A10G':'a10g'}
def vllm_minor(f):
    # the minor version a vLLM framework string names: 0.2, 0.5.3, 0.14.1; not '>=0.25' read as 0.2,
    # and a bound ('>=0.8', '<0.8') names no version
    ver = re.search(r'(?<![\d.<>=])0\.(\d+)(?![\d])', f)
    return int(ver.group(1)) if ver else None
ENGINE_NOTES = {
    'vllm-0.6': (7, 'vLLM 0.7 runs the V0 engine unless VLLM_USE_V1=1 (V1 was an opt-in alpha until 0.8): the vllm-0.6 profile'),
    'vllm-0.8': (None, 'vLLM V1 before 0.14 (0.8-0.13, or 0.7 with VLLM_USE_V1=1): synchronous scheduling (asynchronous by default from 0.14): the vllm-0.8 profile'),
}
def engine_note(fw, profile):
    # why a row's vLLM version took the profile it did, where the profile's name does not say
    if profile not in ENGINE_NOTES: return ''
    minor, note = ENGINE_NOTES[profile]
    return note if minor is None or vllm_minor(fw.lower()) == minor else ''
def engine(fw):
    # the profile of the version a row names (docs/catalog.md "Engines"): vLLM before v0.2.7 ran
    # eager (vllm-0.2: 2023 releases, the Jan-2024 DistServe baseline, Splitwise's ~0.2.x fork),
    # 0.3-0.5 CUDA graphs without chunked prefill (vllm-0.4); DistServe's own prototype,
    # Sarathi-Serve (a vLLM 0.1.7 fork with FlashAttention kernels) and DeepSpeed-FastGen have
    # their own profiles
    f = fw.lower()
    if 'distserve' in f and 'vllm' not in f: return 'distserve'
    # DeepSpeed-FastGen: the profile is MII 0.1's default sampling (a top-p per request) as vLLM's
    # benchmark ran it; DeepSpeed's own benchmark ('MII alpha' rows) served it with a
    # temperature-only sampler and 768 sequences, which the profile does not describe: no profile
    if 'fastgen' in f: return '' if 'mii alpha' in f else 'deepspeed-fastgen'
    if 'sarathi' in f: return 'sarathi-serve'
    if 'lmdeploy 0.1' in f: return 'lmdeploy-0.1'
    if 'lmdeploy' in f: return 'lmdeploy'
    if 'tgi' in f:
        # before paged attention (TGI PR #516, v0.9.0 of July 2023) its flash models kept the batch's
        # K/V in one contiguous tensor copied every step: tgi-0.8 (a 0.x version below 0.9, or a date
        # in the first half of 2023)
        if re.search(r'(?<![\d.])0\.[0-8](?![\d])', f) or re.search(r'\b(jan|feb|mar|apr|may|jun)[a-z]* 2023', f):
            return 'tgi-0.8'
        return 'tgi'
    if 'hf transformers' in f: return 'hf-transformers'
    # TensorRT-LLM's PyTorch backend (trtllm-serve --backend pytorch, the default from 1.0) has its
    # own profile; TensorRT engines under the C++ runtime the tensorrt-llm one
    if 'tensorrt-llm' in f: return 'tensorrt-llm-pytorch' if 'pytorch' in f else 'tensorrt-llm'
    if 'sglang' in f:
        # before PR #2067 (after v0.3.5.post2, November 2024) SGLang scheduled between GPU steps
        # and ran FlashInfer 0.1's FA2-class kernels: sglang-0.3
        v = re.search(r'(?<![\d.<>=])0\.(\d+)(?:\.(\d+))?', f)
        if v and (int(v.group(1)) < 3 or (int(v.group(1)) == 3 and (v.group(2) is None or int(v.group(2)) <= 5))):
            return 'sglang-0.3'
        return 'sglang'
    if 'vllm' in f:
        minor = vllm_minor(f)
        if minor == 6 or (minor == 5 and '0.6' in f): return 'vllm-0.6'
        if minor is not None and minor <= 2 or re.search(r'jun 2023|nov 2023|distserve|splitwise|initial', f):
            return 'vllm-0.2'
        if minor is not None and 3 <= minor <= 5: return 'vllm-0.4'
        # 0.7 ran the V0 engine unless VLLM_USE_V1=1 (V1 an opt-in alpha until 0.8), as did the
        # releases of late 2024 (0.6.4-0.6.6); 0.8-0.13 ran V1 with synchronous scheduling unless
        # --async-scheduling (opt-in from 0.10, PR #19970; the default from 0.14, PR #27614)
        if minor == 7: return 'vllm-0.8' if 'vllm_use_v1=1' in f else 'vllm-0.6'
        if minor is None and re.search(r'(sep|oct|nov|dec) 2024', f): return 'vllm-0.6'
        if minor is not None and 8 <= minor <= 13:
            return 'vllm' if minor >= 10 and '--async-scheduling' in f else 'vllm-0.8'
        return 'vllm'
    return ''
import json
_cat = json.load(open('data/models.json'))
_cat = _cat if isinstance(_cat, list) else _cat.get('models', _cat)
MAX_CONTEXT = {e['id']: e.get('max_context') for e in _cat}
# runs whose request count is the benchmark tool's default, stated on one of their rows
# (vLLM's benchmark_serving.py --num-prompts defaults to 1000)
DEFAULT_1000 = {r['source'].split(' ')[0] for r in rows if 'benchmark_serving default 1000' in r['notes']}
def num(s):
    m = re.match(r'\s*([0-9.]+)', s)
    return float(m.group(1)) if m else None
# DistServe's OPT-13B ShareGPT trace: its alignment runs (the authors' artifact) state the trace's
# mean lengths at each Poisson rate; the paper's Table 2 (same authors, model, dataset and rate grid)
# leaves them out, so its rows draw the trace the artifact describes at the same rate, not the
# generic chat distribution (input lengths only: no measured value is read)
DISTSERVE_SHAREGPT = {}
for r in rows:
    if 'LLMServe/DistServe' in r['source'] and r['framework'].startswith('vLLM') and r['load'].startswith('rate:'):
        DISTSERVE_SHAREGPT[float(r['load'][5:])] = (round(num(r['input_len'])), round(num(r['output_len'])))
# A ShareGPT run that states no lengths but both its request and output-token throughputs:
# out_tok_s / req_s is its mean output length (LMDeploy's request-throughput tables: 249 and 255
# tokens for Llama-2-7B, 234 for Llama-2-70B, where the chat distribution's mean is 338). Without
# a stated prompt mean the prompts stay the chat distribution's (161 tokens, src/serve/workload.c).
CHAT_PROMPT_MEAN = 161
# LMDeploy's request-throughput table (docs/en/benchmark/a100_fp16.md, v0.1.0a1) also states each
# run's total tokens/s (prompt + output, as its profile_throughput.py counts them), which serving.csv
# does not carry: total/req_s - output is the run's mean prompt, again a property of the sampled
# requests and not of the server's speed (265 and 270 tokens for Llama-2-7B, 248 for Llama-2-70B).
STATED_TOTAL_TOK_S = {('Llama-2-7B', 'concurrency:64'): 5283.547, ('Llama-2-7B', 'concurrency:128'): 6619.357,
                      ('Llama-2-70B', 'concurrency:64'): 2062.7, ('Llama-2-70B', 'concurrency:128'): 2808.216,
                      ('Llama-2-70B', 'concurrency:256'): 3162.15}
def stated_prompt_mean(r, O):
    if 'InternLM/lmdeploy' not in r['source'] or 'a100_fp16.md' not in r['source']:
        return None
    t = STATED_TOTAL_TOK_S.get((r['model'], r['load']))
    req = RUN_REQ_S.get(run_key(r))
    return t / req - O if t and req else None
def run_key(r):
    return (r['source'], r['model'], r['gpu'], r['framework'], r['load'], r['num_requests'], r['workload'])
RUN_OUTPUT = {}
RUN_REQ_S = {}
_tput = {}
for r in rows:
    if r['workload'].rstrip('?')=='sharegpt' and num(r['input_len']) is None and num(r['output_len']) is None:
        if r['metric'] in ('throughput_req_s','throughput_out_tok_s') and num(r['value']):
            _tput.setdefault(run_key(r), {})[r['metric']] = num(r['value'])
for k, v in _tput.items():
    if len(v)==2:
        RUN_OUTPUT[k] = v['throughput_out_tok_s'] / v['throughput_req_s']
        RUN_REQ_S[k] = v['throughput_req_s']
for r in rows:
    m = dict(id=r['id'], model=MODEL.get(r['model'],''), gpu=GPU.get(r['gpu'],''), engine=engine(r['framework']),
             wdt='', kvdt='', tp='', ep='', dp_attn='', instances='1', disagg='', workload='', load='', requests='',
             metric='', stat='', divide='1', slo='', spec='', base='', notes='', skip='',
             max_seqs='', max_batched_tokens='', chunked='', sched_steps='', engine_use_ray='',
             max_paddings='', api_server='', kv_blocks='', max_concurrent='', arrivals='', moe_tp='', recv_interval='')
    notes=[]; skip=[]
    fw=r['framework']; met=r['metric']; unit=r['unit']
    # the engine settings the row states (vLLM and TGI flags in its notes)
    # TGI's --max-concurrent-requests bounds the router's requests, queued ones included (not a batch
    # size): one more is refused with HTTP 429 (router/src/infer/mod.rs); the profile's default is 128
    mc=re.search(r'--max-concurrent-requests (\d+)', r['notes'])
    if mc and 'tgi' in fw.lower():
        m['max_concurrent']=mc.group(1); notes.append('at most %s requests in flight as stated' % mc.group(1))
    elif 'tgi' in fw.lower() and 'tuned cfg' in fw and 'vllm-serving-amd' in r['source']:
        # the post's TGI "tuned cfg" rows state --max-concurrent-requests 1024 for 405B; its 70B rows
        # name the same tuned configuration without repeating the flags
        m['max_concurrent']='1024'; notes.append('at most 1024 requests in flight: the tuned configuration the 405B rows state')
    elif 'tgi' in fw.lower() and '2023/06/20/vllm' in r['source']:
        # vLLM's own harness launched TGI with --max-concurrent-requests 5000 (benchmarks/launch_tgi_server.sh)
        m['max_concurrent']='5000'; notes.append("at most 5000 requests in flight: vLLM's benchmarks/launch_tgi_server.sh")
    ms=re.search(r'--max-num-seqs (\d+)', r['notes'])
    if ms: m['max_seqs']=ms.group(1); notes.append('max sequences %s as stated' % ms.group(1))
    mb=re.search(r'--max-num-batched-tokens (\d+)', r['notes'])
    if mb: m['max_batched_tokens']=mb.group(1); m['chunked']='1'; notes.append('chunked prefill, %s tokens per step as stated' % mb.group(1))
    # SGLang's --chunked-prefill-size: the prompt tokens of one step (its budget)
    cp=re.search(r'chunked-prefill(?:-size)? (\d+)', r['notes'])
    if cp and 'sglang' in fw.lower() and not mb:
        m['max_batched_tokens']=cp.group(1); notes.append('chunked prefill size %s as stated' % cp.group(1))
    # SGLang's --scheduler-recv-interval (new requests taken once per N decode iterations), as the
    # launch script sets it; InferenceX's B200 script: 10 below 16 clients, 30 from 16
    rv=re.search(r'--scheduler-recv-interval (\d+)(?: \((\d+) from concurrency (\d+)\))?', r['notes'])
    if rv and 'sglang' in fw.lower():
        n_ri=rv.group(1)
        if rv.group(2) and r['load'].startswith('concurrency:') and num(r['load'][12:]) >= float(rv.group(3)):
            n_ri=rv.group(2)
        m['recv_interval']=n_ri; notes.append('the scheduler takes new requests every %s decode iterations as stated' % n_ri)
    # InferenceX's H200 TensorRT-LLM records say EP 1 where PR #258 lists the configuration as EP 8:
    # the map takes the record's (an audit asked that the choice be stated)
    if 'the record says EP 1' in r['notes']:
        notes.append('EP 1 as the run\'s record says (InferenceX PR #258 lists EP 8)')
    # TensorRT-LLM's --max_num_tokens: the tokens of one iteration, prompts and decodes together
    mt=re.search(r'--max_num_tokens (\d+)', r['notes'])
    if mt and 'tensorrt-llm' in fw.lower():
        m['max_batched_tokens']=mt.group(1); notes.append('%s tokens per iteration as stated' % mt.group(1))
    # TGI 2.x's launcher defaults --max-batch-prefill-tokens to --max-input-tokens + 50 (launcher/src/main.rs,
    # "Adding some edge in order to account for potential block_size alignement"): a row that states
    # --max-input-tokens and not the prefill budget ran with that budget, not the profile's default
    mi=re.search(r'--max-input-tokens (\d+)', r['notes'])
    if mi and 'tgi' in fw.lower() and '--max-batch-prefill-tokens' not in r['notes']:
        m['max_batched_tokens']=str(int(mi.group(1))+50)
        notes.append('prefill budget %d: TGI 2.x defaults it to the stated --max-input-tokens + 50' % (int(mi.group(1))+50))
    # the KV pool the source's engine logged (vLLM's "# GPU blocks"): the run's memory settings, which
    # the row may leave unstated, sized it, and simulate --kv-blocks takes it as given
    kb=re.search(r'KV cache capacity (\d+) GPU blocks', r['notes'])
    if kb: m['kv_blocks']=kb.group(1); notes.append('KV pool of %s blocks as the source logged it' % kb.group(1))
    if 'chunked prefill off' in r['notes']:
        m['chunked']='0'
        # vLLM's SchedulerConfig without chunked prefill: max_num_batched_tokens = max(max_model_len, 2048)
        ctx=MAX_CONTEXT.get(MODEL.get(r['model'],''))
        if ctx and 'vllm' in fw.lower(): m['max_batched_tokens']=str(max(int(ctx), 2048))
        notes.append('chunked prefill off as stated (a step holds up to max(max_model_len, 2048) tokens, vLLM)')
    # vLLM's multi-step scheduling, as the flag or as 'multi-step N'; the v0.6.0 post ran every
    # v0.6.0 benchmark with --num-scheduler-steps 10 ('Performance Benchmarks'), b004's figure too
    ss=re.search(r'(?:--num-scheduler-steps|multi-step) (\d+)', r['notes'])
    if ss: m['sched_steps']=ss.group(1); notes.append('%s scheduler steps as stated' % ss.group(1))
    elif r['id']=='b004' and 'perf-update' in r['source']:
        m['sched_steps']='10'; notes.append("10 scheduler steps, as the post ran all its v0.6.0 benchmarks")
    # the MI300X post's tuned vLLM rows without the flags in their notes (Llama 3.1 70B): the post's
    # quick-start command for that model, --enable-chunked-prefill=False --num-scheduler-step 15
    # --max-num-seqs 1024 ('Quick Start Guide')
    if 'vllm-serving-amd' in r['source'] and fw.startswith('vLLM') and 'tuned cfg' in fw and not ss and not ms:
        ctx=MAX_CONTEXT.get(MODEL.get(r['model'],''))
        m['sched_steps']='15'; m['max_seqs']='1024'; m['chunked']='0'
        if ctx: m['max_batched_tokens']=str(max(int(ctx), 2048))
        notes.append("the post's quick-start flags for the tuned setup: 15 scheduler steps, 1024 sequences, chunked prefill off")
    # an offline run through vLLM's Python API (benchmark_throughput.py drives the LLM class): no
    # HTTP server, so none of the API server's per-sequence streaming work
    if 'benchmark_throughput' in r['notes'] and fw.startswith('vLLM'):
        m['api_server']='0'; notes.append("benchmark_throughput.py: vLLM's LLM class, no API server")
    # benchmark_latency.py drives the same LLM class: one batch, no HTTP server either
    elif 'benchmark_latency' in r['notes'] and fw.startswith('vLLM'):
        m['api_server']='0'; notes.append("benchmark_latency.py: vLLM's LLM class, no API server")
    # Sarathi-Serve's benchmark runner (sarathi/benchmark/benchmark_runner.py) adds every request
    # to its LLMEngine and calls step() in the same process: no HTTP server
    elif 'sarathi' in fw.lower() or 'sarathi-serve' in r['source'] or '2403.02310' in r['source']:
        m['api_server']='0'; notes.append("Sarathi-Serve's benchmark runner drives the engine in-process, no API server")
    # DistServe's vLLM baseline (its alignment runs and the paper's simulator-accuracy runs): the
    # artifact's launch script (DistServe evaluation/2-benchmark-serving/2-start-api-server.py,
    # backend 'vllm') starts vLLM's API server with --engine-use-ray --max-num-seqs 1024
    # --max-num-batched-tokens 65536: the engine in a Ray actor whose every step is a remote call
    # (at TP 1 too), and, vLLM 0.2 having no chunked prefill, one step may hold every waiting prompt
    if ('LLMServe/DistServe' in r['source'] or 'arXiv:2401.09670' in r['source']) and fw.startswith('vLLM') \
            and not ms and not mb:
        m['max_seqs']='1024'; m['max_batched_tokens']='65536'; m['chunked']='0'; m['engine_use_ray']='1'
        notes.append("the artifact's vLLM launch flags: engine in a Ray actor, 1024 sequences, 65536 tokens per step, "
                     "whole prefills")
    # DistServe's benchmark client (evaluation/2-benchmark-serving/2-benchmark-serving.py,
    # benchmark_serving) draws one Poisson process and scales each run's first num_prompts
    # timestamps to [0, num_prompts / request_rate]: the last request arrives at exactly N / rate
    # (the alignment runs' records span 100.00 s at every rate), the rows' vLLM baseline and
    # DistServe alike
    if ('LLMServe/DistServe' in r['source'] or 'arXiv:2401.09670' in r['source']) and r['load'].startswith('rate:'):
        m['arrivals']='fixed-span'
        notes.append("the benchmark client's arrivals: Poisson gaps scaled to span N / rate exactly")
    # LMDeploy's A100 request-throughput runs (docs/en/benchmark/a100_fp16.md names the scripts):
    # benchmark-7b.sh and benchmark_70b.sh set config.ini's max_batch_size to 128 (7B) and 256
    # (70B) and max_context_token_num to 4, which LlamaTritonModel multiplies by session_len
    # (4096): a 16384-token prefill budget. (The 7B run also tunes its GEMMs with
    # generate_gemm_config.py; the 70B run does not - "Turbomind gemm_tune doesn't support" GQA,
    # benchmark/config/llama_70b.ini - which llmroof's one GEMM efficiency does not tell apart.)
    if 'InternLM/lmdeploy' in r['source'] and 'a100_fp16.md' in r['source'] and \
            r['load'].startswith('concurrency:') and r['model'] in ('Llama-2-7B', 'Llama-2-70B'):
        m['max_seqs'] = '128' if r['model'] == 'Llama-2-7B' else '256'
        m['max_batched_tokens'] = '16384'
        notes.append("the benchmark script's engine settings: %s sequences, 16384 prompt tokens per pass"
                     % m['max_seqs'])
    # vLLM's June 2023 release (0.1) packed the prompts of an iteration end to end; padding them to
    # the longest came with PR #1381 (October 2023, v0.2.1) and went with the 1D inputs of 2024
    if fw.startswith('vLLM') and 'Jun 2023' in fw:
        m['max_paddings']='0'; notes.append('vLLM 0.1: prompts packed, no padding')
    if not m['model']: skip.append("model '%s' has no catalog entry" % r['model'])
    if not m['gpu']: skip.append("GPU '%s' is not stated or has no catalog entry" % r['gpu'])
    if engine_note(r['framework'], m['engine']): notes.append(engine_note(r['framework'], m['engine']))
    # V0 from v0.6.5 (0.6.5, 0.6.6, 0.7, and the releases of December 2024) chunks a context above
    # 32K at 2048 tokens a step (PR #10544), where vllm-0.6 (v0.6.0-0.6.4) takes 512
    # (not where the row states a KV cache under 32K tokens: vLLM refuses a max_model_len above
    # what its KV cache holds, so that run served under 32K and did not chunk)
    fl = r['framework'].lower()
    kvb = re.search(r'(\d+) GPU blocks \(block=(\d+)', r['notes'])
    if (m['engine'] == 'vllm-0.6' and not m['max_batched_tokens']
            and (vllm_minor(fl) == 7 or re.search(r'0\.6\.[5-9]|dec 2024', fl))
            and (MAX_CONTEXT.get(m['model']) or 0) > 32768
            and not (kvb and int(kvb.group(1)) * int(kvb.group(2)) < 32768)):
        m['max_batched_tokens'] = '2048'; m['chunked'] = '1'
        notes.append('chunked prefill at 2048 tokens a step: vLLM V0 from 0.6.5 above 32K of context (PR #10544)')
    if r['gpu']=='A10G': notes.append('the A10G (AWS G5) as its own entry: 600 GB/s as the A10, half its tensor rate (70 TFLOPS dense)')
    if r['gpu']=='GB300': notes.append("the GB300 entry (the B300's silicon at the superchip's 1.4 kW: 2.5 PF bf16 and 5 PF "
                                       "fp8 dense against 2.25 and 4.5; its 72-GPU NVLink domain idle at 2-4 GPUs)")
    if r['model']=='DeepSeek-V3.2': notes.append('DeepSeek-V3.2 as the V3.2-Exp entry (same architecture)')
    # A100 PCIe cards joined in pairs by the NVLink bridge (Sarathi-Serve's Azure NC96ads v4): the
    # bridged entry, whose collectives run over NVLink within a pair
    if m['gpu']=='a100-pcie-80gb' and 'NVLinked' in r['notes']: m['gpu']='a100-pcie-80gb-nvl'
    wd=r['weight_dtype'].rstrip('?').lower(); kd=r['kv_dtype'].rstrip('?').lower()
    m['wdt'] = 'fp8' if wd.startswith('fp8') else 'fp4' if wd.startswith('nvfp4') else 'bf16' if wd.startswith('bf16') else 'fp16'
    if wd in ('?','') or wd.startswith('4-bit') or wd.startswith('? '): notes.append('weights 16-bit assumed')
    m['kvdt'] = 'fp8' if kd.startswith('fp8') else 'bf16' if 'bf16' in kd or m['wdt'] in ('bf16','fp8','fp4') else 'fp16'
    # vLLM's GB300 DeepSeek post serves DeepSeek-R1-0528 as NVIDIA's NVFP4 checkpoint
    # (`vllm serve nvidia/DeepSeek-R1-0528-NVFP4 -tp 2`): its catalog entry, whose quantized GEMMs
    # (MLPs and experts) are NVFP4 and whose excluded ones (MLA projections, LM head) bf16, the
    # checkpoint's own dtype for the weights the quantizer left out
    if r['model']=='DeepSeek-R1-0528' and wd.startswith('nvfp4') and 'gb300-deepseek' in r['source']:
        m['model']='deepseek-r1-0528-nvfp4'; m['wdt']='bf16'
        notes.append("nvidia/DeepSeek-R1-0528-NVFP4, the checkpoint the post serves (NVFP4 MLPs, bf16 attention)")
    # and DeepSeek-V3.2 in NVFP4 as NVIDIA's checkpoint of it (same Model Optimizer recipe)
    if r['model']=='DeepSeek-V3.2' and wd.startswith('nvfp4') and 'gb300-deepseek' in r['source']:
        m['model']='deepseek-v3.2-nvfp4'; m['wdt']='bf16'
        notes.append("nvidia/DeepSeek-V3.2-NVFP4 (NVFP4 MLPs, bf16 attention and indexer)")
    if m['model'].startswith('deepseek') or m['model']=='kimi-k2':
        m['kvdt']='bf16' if kd!='fp8' else 'fp8'
    # layout
    tp=r['tp'].rstrip('?'); ng=r['num_gpus'].rstrip('?'); ngi_override=None
    if tp.startswith('P:'):
        mm=re.match(r'P:(\d+)/D:(\d+)', tp)
        m['disagg']='1:%s/1:%s' % (mm.group(1), mm.group(2)); m['tp']=mm.group(2)
        notes.append('DistServe placement: 1 prefill instance TP %s, 1 decode instance TP %s' % (mm.group(1), mm.group(2)))
    elif tp in ('','?','-'):
        if r['id'] in ('b025','b026','b027','b028'):
            # the MI300X post's 70B figure: its caption says "on 8 x MI300X" (the Hot Aisle server),
            # but its Appendix says "All of the benchmarks are run ... with 4 MI300X GPUs" and its
            # 70B quick-start command (the tuned flags) is -tp 4; no TGI command for the 70B is
            # stated: one instance of TP 4 for both engines
            m['tp']='4'; ngi_override=4
            notes.append('TP 4 on 4 MI300X: the appendix runs every benchmark on 4 GPUs and the 70B command is -tp 4 '
                         '(the caption names the 8-GPU server)')
        else: skip.append("tensor parallelism '%s' not stated" % r['tp'])
    else: m['tp']=tp
    if r['pp'] not in ('1','P:1/D:1','P:1/D:1?'): skip.append("pipeline parallelism '%s': the row's layout is not one llmroof expresses here" % r['pp'])
    try: ngi=int(ng)
    except: ngi=None
    if ngi_override: ngi=ngi_override
    if ngi is None and not tp.startswith('P:'): skip.append("num_gpus '%s' is not a number" % r['num_gpus'])
    if m['tp'] and ngi and not m['disagg']:
        t=int(m['tp'])
        if ngi != t:
            dpa_notes = 'DP-attention ranks' in r['notes']  # SGLang's DP attention stated in the notes only
            if t==1 and ('ep' in fw.lower() or 'dp' in fw.lower() or 'DP attention' in fw or dpa_notes):
                if 'EP' in fw or 'ep' in fw.lower() or dpa_notes:
                    m['ep']=str(ngi); m['dp_attn']='1'; notes.append('EP %d with DP attention over %d GPUs' % (ngi, ngi))
                else:
                    m['instances']=str(ngi); notes.append('%d data-parallel replicas behind a router' % ngi)
            elif ngi % t == 0:
                m['instances']=str(ngi//t); notes.append('%d replicas of TP %d' % (ngi//t, t))
    # expert parallelism across the TP group (TensorRT-LLM --ep_size equal to --tp_size): each rank
    # holds whole experts of every MoE layer, attention stays tensor-parallel
    epm=re.search(r'\bEP (\d+)\)', fw)
    if epm and m['tp'] and epm.group(1)==m['tp'] and not m['ep']:
        m['ep']=epm.group(1); notes.append('EP %s over the TP group as stated' % epm.group(1))
    if 'P/D' in fw or 'PD' in fw or 'disaggregat' in fw.lower():
        if not m['disagg']: skip.append('a disaggregated deployment whose pools are not stated in full')
    # spec decoding
    fl=fw.lower()
    if any(k in fl.replace('no mtp','').replace('no speculative','') for k in ('eagle','medusa','mtp','spec decode','nextn')) or met in ('speedup','acceptance_length'):
        if met=='acceptance_length': skip.append('acceptance length is an input of the speculative-decoding model (alpha), not a prediction')
        elif met=='speedup': skip.append('speedup rows need the baseline run and the feature run of the source; not mapped yet')
        else: skip.append('speculative decoding without a stated acceptance rate')
    # workload
    wl=r['workload'].rstrip('?'); P=num(r['input_len']); O=num(r['output_len'])
    if wl.startswith('fixed:'): m['workload']=wl
    # (SGLang's bench_serving draws the random dataset uniformly up to the stated lengths when
    # --random-range-ratio is left at its default 0, the workload random:P:O; the rows that state
    # no ratio stay fixed: whether the run left it at the default is not stated, and mapped as
    # random:1024:1024 the MI300X rows b103-b116 read -46 to -65% instead of -3 to -34%)
    elif wl=='random' and P and O and re.search(r'--random-range-ratio ([0-9.]+)', r['notes']):
        # the benchmark's own draw: uniform whole lengths in [floor(L R), L] (sample_random_requests)
        rr=re.search(r'--random-range-ratio ([0-9.]+)', r['notes']).group(1)
        m['workload']='random:%d:%d:%s' % (P,O,rr); notes.append('random lengths as the benchmark draws them (range ratio %s)' % rr)
    elif wl=='random' and P and O: m['workload']='fixed:%d:%d' % (P,O); notes.append('random lengths taken as fixed %d/%d' % (P,O))
    elif wl.startswith('synthetic normal') and P and O: m['workload']='fixed:%d:%d' % (P,O); notes.append('normal lengths (30% spread) taken as fixed means')
    elif wl in ('sharegpt',) and P and O: m['workload']='sharegpt:%d:%d' % (round(P),round(O)); notes.append('ShareGPT-shaped lengths scaled to the stated means')
    elif wl in ('sharegpt',) and 'arXiv:2401.09670' in r['source'] and r['load'].startswith('rate:') and \
            num(r['load'][5:]) in DISTSERVE_SHAREGPT:
        P, O = DISTSERVE_SHAREGPT[num(r['load'][5:])]
        m['workload']='sharegpt:%d:%d' % (P,O)
        notes.append("DistServe's OPT-13B ShareGPT trace at this rate (means %d/%d from the authors' alignment runs)" % (P,O))
    elif wl in ('sharegpt',) and run_key(r) in RUN_OUTPUT:
        O = RUN_OUTPUT[run_key(r)]
        P = stated_prompt_mean(r, O)
        if P:
            m['workload']='sharegpt:%d:%d' % (round(P), round(O))
            notes.append('ShareGPT-shaped lengths: mean output %d, the run\'s output tokens/s over its requests/s; '
                         'mean prompt %d, its total tokens/s (stated in the same table) over its requests/s less the output' % (round(O), round(P)))
        else:
            m['workload']='sharegpt:%d:%d' % (CHAT_PROMPT_MEAN, round(O))
            notes.append('ShareGPT-shaped lengths: mean output %d, the run\'s output tokens/s over its requests/s; '
                         'prompts the chat distribution\'s (mean %d, not stated)' % (round(O), CHAT_PROMPT_MEAN))
    elif wl in ('sharegpt',):
        # the set as the benchmark scripts draw it, for the model's tokenizer (llmroof's sharegpt
        # workload, docs/metrics.md): not the chat distribution, which is another sampling
        m['workload']='sharegpt'
        notes.append("ShareGPT lengths not stated: the benchmarks' ShareGPT set for the model's tokenizer")
    elif wl in ('openchat_sharegpt4','arxiv-summarization'):
        # the lognormal:PM:P90:OM:O90:MAX workload draws a dataset stated by its medians and P90s:
        # Sarathi-Serve's Table 2 (OSDI 2024; prompt median/P90, output median/P90: openchat_sharegpt4
        # 1730/5696, 415/834; arxiv_summarization 7059/12985, 208/371) and its filter, requests of
        # at most 8192 and 16384 tokens in all (section 5; the artifact's max_seq_len)
        m['workload']='lognormal:1730:5696:415:834:8192' if wl=='openchat_sharegpt4' else 'lognormal:7059:12985:208:371:16384'
        notes.append("Sarathi-Serve's Table 2 medians and P90s, its %s-token filter" % ('8192' if wl=='openchat_sharegpt4' else '16384'))
        # the ablation's three schedulers (osdi-experiments/table-6/scheduling_ablation.sh): chunks of
        # 512 tokens beside the decodes (Sarathi-Serve), the same chunks in prompt-only iterations
        # (chunked-prefills-only: chunked 2), whole prompts beside the decodes (hybrid-batching-only:
        # a budget as long as the longest request, so nothing is cut)
        if 'hybrid-batching-only' in fw:
            m['chunked']='1'; m['max_batched_tokens']='8192' if wl=='openchat_sharegpt4' else '16384'
            notes.append('hybrid batching only: whole prompts beside the decodes')
        elif 'chunked-prefills-only' in fw:
            m['chunked']='2'; m['max_batched_tokens']='512'
            notes.append('chunked prefills only: 512-token chunks in prompt-only iterations')
        else:
            m['chunked']='1'; m['max_batched_tokens']='512'
            notes.append('512-token chunks beside the decodes (the artifact script)')
    else: skip.append("workload '%s' with lengths '%s'/'%s': no distribution llmroof can draw" % (r['workload'][:40], r['input_len'], r['output_len']))
    # load
    ld=r['load']; nreq=num(r['num_requests'])
    if ld.startswith('static:'):
        b=num(ld[7:])
        if b is None and 'benchmark_latency.py default is 8' in r['notes']:
            # vLLM's benchmarks/benchmark_latency.py run without --batch-size: its default, 8 prompts
            # generated as one batch (argparse default=8), the command the row quotes
            b=8; notes.append("batch 8, benchmark_latency.py's default --batch-size (not passed in the stated command)")
        if b is None: skip.append("static batch '%s' not stated" % ld)
        else: m['load']='static:%d' % b; m['requests']=str(int(b))
    elif ld.startswith('concurrency:'):
        c=num(ld[12:])
        # the batch the text states where the chart does not (DeepSeek-V3.2 rows: "batch=64")
        if c is None and 'batch=64' in r['notes']:
            c=64; notes.append('concurrency 64, the batch the text states')
        if c is None and met.startswith(('throughput','prefill_tok_s','decode_tok_s')) and 'peak' in r['notes']:
            # the peak of a concurrency sweep: throughput rises with concurrency until the engine's
            # sequence limit or the KV cache saturates it, so the peak is the saturated server's,
            # what an offline run (everything queued at once) measures
            m['load']='offline'; m['requests']=str(int(min(nreq or 1000, 600)))
            notes.append("the peak of an unstated concurrency sweep taken as the saturated (offline) throughput")
        elif c is None: skip.append("concurrency '%s' not stated" % ld)
        else:
            # a closed loop's throughput is its requests over the whole run, ramp and drain
            # included: the drain (the last users' requests finishing one by one, the batch
            # shrinking) weighs as much as in the source's run only when as many requests are
            # served, so a stated count is simulated (LMDeploy's 3000: 256 of them gave 3.4
            # instead of 5.6 req/s for Llama-2-70B at 64 users); an unstated one is 4 per user
            m['load']='concurrency:%d' % c
            m['requests']=str(int(min(nreq, 3000) if nreq else min(max(4*c, 100), 600)))
    elif ld.startswith('rate:'):
        q=num(ld[5:])
        if q is None: skip.append("request rate '%s' not stated" % ld)
        # an overloaded run's queue, and so its TTFT and TPOT, grows with its length: a stated
        # count is simulated (DistServe's 750-1200 at rates 7.5-12), up to 3000 as closed loops
        elif q>=1000: m['load']='offline'; m['requests']=str(int(min(nreq, 3000) if nreq else 600)); notes.append('rate %g: every request queued at once' % q)
        else: m['load']='rate:%g' % q; m['requests']=str(int(min(nreq, 3000) if nreq else 600))
    elif ld=='offline':
        m['load']='offline'; m['requests']=str(int(min(nreq, 3000) if nreq else 600))
    elif ld=='slo-capacity':
        # the peak goodput of a closed-loop client sweep (DeepSpeed-FastGen section 4C: "1-32
        # concurrent clients", effective throughput = requests within the SLA per second)
        cl=re.search(r'(\d+)-(\d+) concurrent clients', r['notes'])
        if not cl: skip.append('slo-capacity without its stated sweep of clients')
        else:
            m['load']='slo-capacity:%s-%s' % (cl.group(1), cl.group(2)); m['requests']=str(int(min(nreq or 1000, 600)))
            notes.append('closed loops of %s to %s clients, the best goodput' % (cl.group(1), cl.group(2)))
    else: skip.append("load '%s' not stated" % ld)
    # (a publication that states it on some rows ran every load of its comparison with that tool)
    if m['requests'] and not nreq and r['source'].split(' ')[0] in DEFAULT_1000 and not ld.startswith(('static:', 'concurrency:')):
        # the count of an overloaded run sets its queueing (TTFT grows with it): the tool's default
        m['requests']='1000'; notes.append("1000 requests, benchmark_serving's default --num-prompts")
    if m['requests'] and nreq and int(m['requests'])<nreq: notes.append('%s of %d requests simulated' % (m['requests'], nreq))
    # metric
    pct=r['percentile']; st={'mean':'mean','p50':'p50','p90':'p90','p99':'p99'}.get(pct,'mean')
    if pct in ('?',): notes.append('statistic not stated: the mean')
    m['stat']=st
    per=unit.lower()
    if met=='ttft_ms': m['metric']='ttft'
    elif met=='tpot_ms':
        # a row that says it is the benchmark clients' inter-token latency (every gap between
        # streamed tokens, pooled) is compared with the simulator's ITL, not its per-request TPOT
        n=r['notes']
        m['metric']='itl' if ('ITL' in n or 'inter-token' in n.lower() or 'time between tokens' in n.lower()) else 'tpot'
    elif met=='e2e_latency_ms':
        m['metric']='makespan' if 'makespan' in per else 'e2e'
    elif met=='throughput_req_s': m['metric']='req_s'
    elif met=='throughput_out_tok_s': m['metric']='out_tok_s'
    elif met=='throughput_total_tok_s':
        m['metric']='prompt_tok_s' if 'input' in per else 'total_tok_s'
    elif met=='decode_tok_s_per_gpu': m['metric']='out_tok_s'
    elif met=='prefill_tok_s_per_gpu': m['metric']='prompt_tok_s' if ('prompt' in per or 'input' in per) else 'total_tok_s'
    elif met=='slo_attainment_pct':
        # Table 1's chatbot SLO: 0.2 s TTFT in arXiv v1, 0.25 s in v3 / camera-ready, which Table 2
        # does not say (an audit: at 0.2 s p036 reads 70.2% where 0.25 s reads 78.2, 97 measured)
        m['metric']='slo_pct'; m['slo']='250:100'
        notes.append('SLO TTFT 0.25 s (the camera-ready\'s; arXiv v1 said 0.2 s, which Table 2 does not settle), TPOT 0.1 s (DistServe OPT-13B chatbot)')
    elif met=='goodput_req_s':
        # FastGen's SLA: prompt latency <= prompt tokens / 512 s (a fixed mean prompt: one TTFT limit)
        # and a generation rate (EMA) >= 4 tok/s, taken as the request's TPOT <= 1/4 s
        pl=re.search(r'tokens/(\d+) s', r['notes']); gr=re.search(r'>= ?([0-9.]+) tok/s', r['notes'])
        if not (pl and gr and P): skip.append('goodput without a stated SLA')
        else:
            m['metric']='goodput_req_s'; m['slo']='%d:%d' % (round(1000*P/float(pl.group(1))), round(1000/float(gr.group(1))))
            notes.append('SLA: TTFT <= %d/%s s, TPOT <= 1/%s s (the generation-rate EMA as the mean)' % (P, pl.group(1), gr.group(1)))
    elif met in ('speedup','acceptance_length'): pass
    else: skip.append("metric '%s' not mapped" % met)
    if '/gpu' in per or 'per rank' in per or met in ('decode_tok_s_per_gpu','prefill_tok_s_per_gpu'):
        m['divide']=str(ngi or 1)
    elif 'node' in per: m['divide']=str((ngi or 8)/8)
    if m['metric'] in ('ttft','tpot','e2e') and m['load'].startswith('static') and r['id'].startswith('p0'):
        pass
    if 'makespan' in per: notes.append('makespan: first arrival to last finish')
    # SGLang MTP on MI300X (b103-b126): "NextN, 2 steps, 3 draft tokens, topk 1" = 2 proposals per
    # step; acceptance from the same model's SGLang MTP post on H200 (b099: acceptance length 2.18
    # at 3 draft tokens, topk 1): 1 + a + a^2 = 2.18 -> a = 0.70
    if 'MTP (NextN' in fw and met=='e2e_latency_ms':
        skip=[s for s in skip if not s.startswith('speculative')]
        m['spec']='mtp:2:0.70'; notes.append('MTP 2 proposals, acceptance 0.70 per token (acceptance length 2.18, SGLang MTP on H200)')
    # vLLM 0.6.0 against 0.5.3: the same setup with the 0.5-era profile as the baseline
    if r['id'] in ('b001','b002','b003','b004'):
        skip=[s for s in skip if not s.startswith('speedup')]
        m['base']='engine:vllm-0.4'; m['engine']='vllm-0.6'
        m['metric']='speedup_tput' if r['load']=='offline' else 'speedup_tpot'
        notes.append('baseline: vLLM 0.5.3 as the vllm-0.4 profile')
        # not independent (an audit of session 71): the vllm-0.4 and vllm-0.6 profiles' CPU and
        # API costs were derived from this very post (217 x 71 us of api_stream_s, and b005's and
        # b006's +28% and -8.7%), so its speedups test the profiles' inputs, not their physics
        skip.insert(0, "not independent: the vllm-0.4/0.6 profiles' CPU and API costs come from this post")
    # SGLang 0.4's DP attention against TP 8 (the post's reproduce commands differ in
    # --enable-dp-attention alone): 8 attention replicas of TP 1 over experts split 8 ways by
    # width (all-gather before each MLP, scatter after), --moe-tp 8 --dp-attention
    if r['id']=='b088':
        skip=[s for s in skip if not s.startswith('speedup')]
        m.update(tp='1', dp_attn='1', moe_tp='8', base='tp:8', metric='speedup_tput', requests='10000')
        notes=['DeepSeek-Coder-V2 has DeepSeek-V2\'s shapes; --tp 8 --enable-dp-attention: 8 attention replicas '
               'of TP 1, the MoE split by width over all 8 (moe_tp 8), against --tp 8 alone, both '
               '--mem-fraction-static 0.78 and --disable-radix-cache; 10,000 prompts of 1/512 at once (range ratio 1); '
               'the chart labels the baseline v0.3 but the commands differ only in the flag, so both runs take '
               'the sglang profile']
    if 'decode nodes' in r['notes'] and met=='decode_tok_s_per_gpu':
        skip.insert(0,'the decode nodes of a P/D deployment: decode-only throughput needs the prefill side, not stated')
    if r['id']=='b055': skip.insert(0,'the decode pool of a P/D deployment: decode-only throughput needs the prefill side, not stated')
    # the speedup rows: what llmroof has of the compared feature, and what the row leaves out
    SPEEDUP_WHY = {
        'eagle3': 'EAGLE-3 chain vs none: llmroof has both runs, but no acceptance rate for the chain nor MT-bench lengths stated',
        'b005': 'multi-step on vs off: llmroof has both runs (sched_steps), but workload, load and step count not stated',
        'b006': 'async output processing on vs off: a profile field (cpu_overlap), not a map setting; workload, load not stated',
        'draft': 'draft/n-gram speculation vs none: llmroof has both runs, but no acceptance rate nor dataset lengths stated',
        'b102': 'MTP vs none on 4 prefill + 12 decode nodes: acceptance at 2 draft tokens and the P/D load split not stated',
    }
    if met=='speedup' and r['id'] not in ('b001','b002','b003','b004'):
        key = ('eagle3' if 'EAGLE-3' in fw else r['id'] if r['id'] in SPEEDUP_WHY else
               'draft' if 'spec decode' in fl else None)
        # in the generic reason's place: a reason found before it (a GPU not stated) stays first
        if key: skip=[SPEEDUP_WHY[key] if s.startswith('speedup') else s for s in skip]
    if skip: m['skip']=skip[0][:126]
    m['notes']='; '.join(notes)
    out.append(m)
w=csv.DictWriter(open('data/serving-map.csv','w',newline=''), fieldnames=list(out[0].keys()), lineterminator='\n')
w.writeheader(); w.writerows(out)
print(sum(1 for m in out if not m['skip']), 'mapped of', len(out))
