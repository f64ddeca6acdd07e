#!/usr/bin/env python3
"""Record what tracewatt's `import pytorch` and `annotate` read from a PyTorch training run.

Per rank: the PyTorch execution trace of one profiled iteration (ExecutionTraceObserver, JSON) and the Kineto
trace of the same iteration (torch.profiler, chrome trace JSON), both gzipped; and an nvidia-smi power/clock log
covering the whole run. The model is a small GPT-style decoder (embedding, N transformer blocks, LM head) trained
with DDP and AdamW in bf16 autocast, so the traces hold real GEMMs, attention, layer norms, the optimizer's
foreach kernels and the gradient all-reduce.

Usage (one GPU, one or more ranks on it):
  python3 record-pytorch-run.py --out DIR [--ranks 1] [--backend nccl|gloo] [--steps 6] [--layers 4]
                                [--no-step] [--metrics sm__throughput.avg.pct_of_peak_sustained_elapsed,...]
With --ranks > 1 on one GPU use --backend gloo (NCCL refuses two ranks on one device).

Then:  npx tracewatt import pytorch --dir DIR --out out/run
       npx tracewatt annotate out/run --profile DIR/*.pt.trace.json.gz --power DIR/nvidia-smi.csv ...
"""
import argparse
import gzip
import os
import shutil
import subprocess
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
from torch.profiler import ExecutionTraceObserver, ProfilerActivity, profile, schedule


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x, mask):
        h = self.ln1(x)
        x = x + self.attn(h, h, h, attn_mask=mask, need_weights=False)[0]
        return x + self.mlp(self.ln2(x))


class TinyGPT(nn.Module):
    def __init__(self, vocab, d, heads, layers, seq):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(seq, d)
        self.blocks = nn.ModuleList(Block(d, heads) for _ in range(layers))
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)
        self.register_buffer('mask', torch.triu(torch.full((seq, seq), float('-inf')), 1), persistent=False)

    def forward(self, idx):
        x = self.tok(idx) + self.pos(torch.arange(idx.shape[1], device=idx.device))
        for b in self.blocks:
            x = b(x, self.mask)
        return self.head(self.ln(x))


def gzip_file(path):
    with open(path, 'rb') as src, gzip.open(path + '.gz', 'wb', compresslevel=9) as dst:
        shutil.copyfileobj(src, dst)
    os.remove(path)


def worker(rank, args):
    os.environ.setdefault('MASTER_ADDR', '127.0.0.1')
    os.environ.setdefault('MASTER_PORT', '29533')
    dist.init_process_group(args.backend, rank=rank, world_size=args.ranks)
    torch.cuda.set_device(0)
    torch.manual_seed(1234 + rank)
    model = TinyGPT(args.vocab, args.dim, args.heads, args.layers, args.seq).cuda()
    ddp = nn.parallel.DistributedDataParallel(model, device_ids=[0] if args.backend == 'nccl' else None)
    opt = torch.optim.AdamW(ddp.parameters(), lr=1e-4)
    data = torch.randint(0, args.vocab, (args.batch, args.seq + 1), device='cuda')

    et_path = os.path.join(args.out, f'rank{rank}.et.json')
    kineto_path = os.path.join(args.out, f'rank{rank}.pt.trace.json')
    et = ExecutionTraceObserver().register_callback(et_path)

    def step():
        with torch.autocast('cuda', dtype=torch.bfloat16):
            logits = ddp(data[:, :-1])
            loss = nn.functional.cross_entropy(logits.float().view(-1, args.vocab), data[:, 1:].reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        return loss

    for _ in range(3):  # warm up: cuBLAS handles, autotuning, DDP buckets
        step()
    torch.cuda.synchronize()
    dist.barrier()
    extra = {}
    if args.metrics:  # CUPTI range profiler: one counter range per kernel (cuda_profiler_range events)
        extra['experimental_config'] = torch._C._profiler._ExperimentalConfig(
            profiler_metrics=args.metrics.split(','), profiler_measure_per_kernel=True)
    if args.no_step:  # one iteration, no schedule: the traces carry no ProfilerStep annotation
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True,
                     execution_trace_observer=et, **extra) as prof:
            step()
            torch.cuda.synchronize()
        prof.export_chrome_trace(kineto_path)
    else:
        with profile(
            activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
            schedule=schedule(wait=1, warmup=1, active=1, repeat=1),
            on_trace_ready=lambda p: p.export_chrome_trace(kineto_path),
            record_shapes=True,
            execution_trace_observer=et,
            **extra,
        ) as prof:
            for _ in range(args.steps):
                step()
                torch.cuda.synchronize()
                prof.step()
    dist.barrier()
    dist.destroy_process_group()
    for p in (et_path, kineto_path):
        if os.path.exists(p):
            gzip_file(p)
        else:
            print(f'rank {rank}: {p} was not written', file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--out', required=True)
    ap.add_argument('--ranks', type=int, default=1)
    ap.add_argument('--backend', default='nccl')
    ap.add_argument('--steps', type=int, default=6)
    ap.add_argument('--layers', type=int, default=4)
    ap.add_argument('--dim', type=int, default=1024)
    ap.add_argument('--heads', type=int, default=16)
    ap.add_argument('--seq', type=int, default=1024)
    ap.add_argument('--batch', type=int, default=8)
    ap.add_argument('--vocab', type=int, default=32000)
    ap.add_argument('--power-interval-ms', type=int, default=20)
    ap.add_argument('--no-step', action='store_true', help='profile one iteration without a schedule (no ProfilerStep)')
    ap.add_argument('--metrics', default='', help='comma-separated CUPTI metrics to record per kernel')
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    smi_log = open(os.path.join(args.out, 'nvidia-smi.csv'), 'w')
    smi = subprocess.Popen(
        ['nvidia-smi', '--query-gpu=timestamp,index,name,power.draw,clocks.sm,clocks.mem,utilization.gpu',
         '--format=csv', f'-lms={args.power_interval_ms}'], stdout=smi_log, stderr=subprocess.STDOUT)
    time.sleep(1.0)  # a second of samples before the run
    try:
        mp.spawn(worker, args=(args,), nprocs=args.ranks, join=True)
    finally:
        time.sleep(1.0)
        smi.terminate()
        smi.wait()
        smi_log.close()
    print(f'torch {torch.__version__}, {torch.cuda.get_device_name(0)}, wrote', sorted(os.listdir(args.out)))


if __name__ == '__main__':
    main()
