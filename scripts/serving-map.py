#!/usr/bin/env python3
# scripts/serving-map.py - writes data/serving-map.csv from data/serving.csv: how a user would set each
# published serving row up in llmroof (docs/validation.md "Serving rows"). The rules are here, one
# place, so that a change (a model added to the catalog, a workload the simulator learns) is a rerun
# from the repository root: python3 scripts/serving-map.py. Nothing here reads a measured value.
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
 'Vicuna-13B (v1.5)':'llama-2-13b','DeepSeek-R1-Distill-Llama-8B':'llama-3.1-8b'}
GPU = {'A100-SXM4-80GB?':'a100-sxm4-80gb','A100-SXM4-80GB':'a100-sxm4-80gb','A100-SXM4-80GB (DGX-A100)':'a100-sxm4-80gb',
 'A100-80GB':'a100-sxm4-80gb','A100-80GB (SXM?)':'a100-sxm4-80gb','A100-PCIe-80GB':'a100-pcie-80gb','H100':'h100-sxm5-80gb',
 'H100-SXM5-80GB (DGX-H100)':'h100-sxm5-80gb','H200':'h200-sxm-141gb','MI300X':'mi300x','B300':'b300','GB200 (NVL72)':'gb200-nvl72',
 'GB200':'gb200-nvl72','H800':'h800-sxm5-80gb','H800?':'h800-sxm5-80gb','A100-40GB':'a100-sxm4-40gb','L4':'l4','A10G':'a10'}
def engine(fw):
    # the profile of the version a row names (docs/catalog.md "Engines"): vLLM before v0.2.7 ran
    # eager (vllm-0.2: 2023 releases, the Jan-2024 DistServe baseline, Splitwise's ~0.2.x fork and
    # Sarathi-Serve, built on vLLM 0.2), 0.3-0.5 CUDA graphs without chunked prefill (vllm-0.4)
    f = fw.lower()
    if 'distserve' in f and 'vllm' not in f: return ''
    if 'fastgen' in f: return ''
    if 'sarathi' in f: return 'vllm-0.2'
    if 'lmdeploy 0.1' in f: return 'lmdeploy-0.1'
    if 'lmdeploy' in f: return 'lmdeploy'
    if 'tgi' in f: return 'tgi'
    if 'hf transformers' in f: return 'hf-transformers'
    if 'sglang' in f: return 'sglang'
    if 'vllm' in f:
        ver = re.search(r'(?<![\d.])0\.(\d+)(?![\d])', f)  # 0.2, 0.5.3, 0.14.1; not '>=0.25' read as 0.2
        minor = int(ver.group(1)) if ver else None
        if minor == 6 or (minor == 5 and '0.6' in f): return 'vllm-0.6'
        if minor is not None and minor <= 2 or re.search(r'jun 2023|nov 2023|distserve|splitwise|initial', f):
            return 'vllm-0.2'
        if minor is not None and 3 <= minor <= 5: return 'vllm-0.4'
        return 'vllm'
    return ''
def num(s):
    m = re.match(r'\s*([0-9.]+)', s)
    return float(m.group(1)) if m else None
for r in rows:
    m = dict(id=r['id'], model=MODEL.get(r['model'],''), gpu=GPU.get(r['gpu'],''), engine=engine(r['framework']),
             wdt='', kvdt='', tp='', ep='', dp_attn='', instances='1', disagg='', workload='', load='', requests='',
             metric='', stat='', divide='1', slo='', spec='', base='', notes='', skip='')
    notes=[]; skip=[]
    fw=r['framework']; met=r['metric']; unit=r['unit']
    if not m['model']: skip.append("model '%s' has no catalog entry" % r['model'])
    if not m['gpu']: skip.append("GPU '%s' is not stated or has no catalog entry" % r['gpu'])
    if r['gpu']=='A10G': notes.append('A10G taken as the A10 (same GA102, 24 GB, 600 GB/s)')
    # A100 PCIe cards joined in pairs by the NVLink bridge (Sarathi-Serve's Azure NC96ads v4): the
    # bridged entry, whose collectives run over NVLink within a pair
    if m['gpu']=='a100-pcie-80gb' and 'NVLinked' in r['notes']: m['gpu']='a100-pcie-80gb-nvl'
    wd=r['weight_dtype'].rstrip('?').lower(); kd=r['kv_dtype'].rstrip('?').lower()
    m['wdt'] = 'fp8' if wd.startswith('fp8') else 'fp4' if wd.startswith('nvfp4') else 'bf16' if wd.startswith('bf16') else 'fp16'
    if wd in ('?','') or wd.startswith('4-bit') or wd.startswith('? '): notes.append('weights 16-bit assumed')
    m['kvdt'] = 'fp8' if kd.startswith('fp8') else 'bf16' if 'bf16' in kd or m['wdt'] in ('bf16','fp8','fp4') else 'fp16'
    if m['model'].startswith('deepseek') or m['model']=='kimi-k2':
        m['kvdt']='bf16' if kd!='fp8' else 'fp8'
    # layout
    tp=r['tp'].rstrip('?'); ng=r['num_gpus'].rstrip('?')
    if tp.startswith('P:'):
        mm=re.match(r'P:(\d+)/D:(\d+)', tp)
        m['disagg']='1:%s/1:%s' % (mm.group(1), mm.group(2)); m['tp']=mm.group(2)
        notes.append('DistServe placement: 1 prefill instance TP %s, 1 decode instance TP %s' % (mm.group(1), mm.group(2)))
    elif tp in ('','?','-'):
        if r['id'] in ('b025','b026','b027','b028'): m['tp']='8'; notes.append('TP 8 assumed (8 GPUs, TP not stated)')
        else: skip.append("tensor parallelism '%s' not stated" % r['tp'])
    else: m['tp']=tp
    if r['pp'] not in ('1','P:1/D:1','P:1/D:1?'): skip.append("pipeline parallelism '%s': the row's layout is not one llmroof expresses here" % r['pp'])
    try: ngi=int(ng)
    except: ngi=None
    if ngi is None and not tp.startswith('P:'): skip.append("num_gpus '%s' is not a number" % r['num_gpus'])
    if m['tp'] and ngi and not m['disagg']:
        t=int(m['tp'])
        if ngi != t:
            if t==1 and ('ep' in fw.lower() or 'dp' in fw.lower() or 'DP attention' in fw):
                if 'EP' in fw or 'ep' in fw.lower():
                    m['ep']=str(ngi); m['dp_attn']='1'; notes.append('EP %d with DP attention over %d GPUs' % (ngi, ngi))
                else:
                    m['instances']=str(ngi); notes.append('%d data-parallel replicas behind a router' % ngi)
            elif ngi % t == 0:
                m['instances']=str(ngi//t); notes.append('%d replicas of TP %d' % (ngi//t, t))
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
    elif wl=='random' and P and O: m['workload']='fixed:%d:%d' % (P,O); notes.append('random lengths taken as fixed %d/%d' % (P,O))
    elif wl.startswith('synthetic normal') and P and O: m['workload']='fixed:%d:%d' % (P,O); notes.append('normal lengths (30%% spread) taken as fixed means')
    elif wl in ('sharegpt',) and P and O: m['workload']='sharegpt:%d:%d' % (round(P),round(O)); notes.append('ShareGPT-shaped lengths scaled to the stated means')
    elif wl in ('sharegpt',): m['workload']='chat'; notes.append('ShareGPT lengths not stated: the chat distribution')
    else: skip.append("workload '%s' with lengths '%s'/'%s': no distribution llmroof can draw" % (r['workload'][:40], r['input_len'], r['output_len']))
    # load
    ld=r['load']; nreq=num(r['num_requests'])
    if ld.startswith('static:'):
        b=num(ld[7:])
        if b is None: skip.append("static batch '%s' not stated" % ld)
        else: m['load']='static:%d' % b; m['requests']=str(int(b))
    elif ld.startswith('concurrency:'):
        c=num(ld[12:])
        if c is None: skip.append("concurrency '%s' not stated" % ld)
        else: m['load']='concurrency:%d' % c; m['requests']=str(int(min(max(4*c, 100), nreq or 1e9, 600)))
    elif ld.startswith('rate:'):
        q=num(ld[5:])
        if q is None: skip.append("request rate '%s' not stated" % ld)
        elif q>=1000: m['load']='offline'; m['requests']=str(int(min(nreq or 1000, 600))); notes.append('rate %g: every request queued at once' % q)
        else: m['load']='rate:%g' % q; m['requests']=str(int(min(nreq or 1000, 600)))
    elif ld=='offline':
        m['load']='offline'; m['requests']=str(int(min(nreq or 1000, 600)))
    elif ld=='slo-capacity':
        skip.append('slo-capacity (the highest load meeting an SLO) is not mapped yet')
    else: skip.append("load '%s' not stated" % ld)
    if m['requests'] and nreq and int(m['requests'])<nreq: notes.append('%s of %d requests simulated' % (m['requests'], nreq))
    # metric
    pct=r['percentile']; st={'mean':'mean','p50':'p50','p90':'p90','p99':'p99'}.get(pct,'mean')
    if pct in ('?',): notes.append('statistic not stated: the mean')
    m['stat']=st
    per=unit.lower()
    if met=='ttft_ms': m['metric']='ttft'
    elif met=='tpot_ms': m['metric']='tpot'
    elif met=='e2e_latency_ms':
        m['metric']='makespan' if 'makespan' in per else 'e2e'
    elif met=='throughput_req_s': m['metric']='req_s'
    elif met=='throughput_out_tok_s': m['metric']='out_tok_s'
    elif met=='throughput_total_tok_s':
        m['metric']='prompt_tok_s' if 'input' in per else 'total_tok_s'
    elif met=='decode_tok_s_per_gpu': m['metric']='out_tok_s'
    elif met=='prefill_tok_s_per_gpu': m['metric']='prompt_tok_s' if ('prompt' in per or 'input' in per) else 'total_tok_s'
    elif met=='slo_attainment_pct': m['metric']='slo_pct'; m['slo']='250:100'; notes.append('SLO TTFT 0.25 s, TPOT 0.1 s (DistServe OPT-13B chatbot)')
    elif met=='goodput_req_s': skip.append('goodput at an SLO needs the slo-capacity search; not mapped yet')
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
    if r['id']=='b055': skip.insert(0,'the decode pool of a P/D deployment: decode-only throughput needs the prefill side, not stated')
    if skip: m['skip']=skip[0][:126]
    m['notes']='; '.join(notes)
    out.append(m)
w=csv.DictWriter(open('data/serving-map.csv','w',newline=''), fieldnames=list(out[0].keys()), lineterminator='\n')
w.writeheader(); w.writerows(out)
print(sum(1 for m in out if not m['skip']), 'mapped of', len(out))
