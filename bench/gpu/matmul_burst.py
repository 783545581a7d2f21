#!/usr/bin/env python3
# matmul_burst.py - 8192^3 bf16 and fp8 matmul: a short burst after idle vs sustained load (the H100 SXM
# reaches its 700 W power cap and lowers its SM clock). Context for the peak matmul figures in
# docs/validation/measured/h100-sxm5-80gb (burst.csv). Usage: python3 bench/gpu/matmul_burst.py > burst.csv
import time, statistics, subprocess, torch
def smi():
    return subprocess.run(["nvidia-smi","--query-gpu=clocks.sm,power.draw,clocks_throttle_reasons.active","--format=csv,noheader"],capture_output=True,text=True).stdout.strip()
N=8192
a=torch.randn(N,N,device="cuda",dtype=torch.bfloat16); b=torch.randn(N,N,device="cuda",dtype=torch.bfloat16)
fa=a.to(torch.float8_e4m3fn); fb=b.to(torch.float8_e4m3fn).t(); one=torch.ones((),device="cuda")
ops={"bf16":lambda: a@b, "fp8":lambda: torch._scaled_mm(fa,fb,scale_a=one,scale_b=one,out_dtype=torch.bfloat16)}
print("what,dtype,phase,median_tflops,sm_clock_after,power_draw_after,throttle_reasons_after")
for dt,f in ops.items():
    time.sleep(5)
    for _ in range(3): f()
    torch.cuda.synchronize()
    ts=[]
    for _ in range(10):
        e0=torch.cuda.Event(enable_timing=True); e1=torch.cuda.Event(enable_timing=True)
        e0.record(); f(); e1.record(); e1.synchronize(); ts.append(e0.elapsed_time(e1)/1e3)
    print("burst,%s,after 5 s idle: 3 warm-up + 10 timed,%.1f,%s"%(dt,2*N**3/statistics.median(ts)/1e12,smi().replace(", ", ",")),flush=True)
    t_end=time.time()+10
    while time.time()<t_end:
        for _ in range(50): f()
        torch.cuda.synchronize()
    ts=[]
    for _ in range(20):
        e0=torch.cuda.Event(enable_timing=True); e1=torch.cuda.Event(enable_timing=True)
        e0.record(); f(); e1.record(); e1.synchronize(); ts.append(e0.elapsed_time(e1)/1e3)
    print("sustained,%s,after 10 s of back-to-back matmuls,%.1f,%s"%(dt,2*N**3/statistics.median(ts)/1e12,smi().replace(", ", ",")),flush=True)
