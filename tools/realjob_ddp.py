#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A PyTorch DistributedDataParallel job over gloo on the CPU, timed by itself (tools/realjob).

An MLP of Linear(W, W) layers (and a last, narrower one) whose float32 parameters come to
--bytes, trained on random data with SGD. Every rank runs, in order:
  2 warm-up iterations (DDP's first builds its buckets; not timed as steps),
  --compute-steps iterations under no_sync() (forward, backward, optimizer step, no all-reduce:
      the compute-only time),
  a barrier, then --steps iterations with DDP's bucketed all-reduces (overlapping backward).
Rank 0 writes OUT (step,kind,start_ns,end_ns; kind warmup, compute or step; CLOCK_REALTIME, the
clock tcpdump stamps with) and OUT.meta (grad_bytes=..., layers=..., DDP's bucket sizes in bytes
before and after it rebuilt them, and the median forward, backward and optimizer times of the
compute and step iterations in ms: a step's backward holds DDP's wait for its all-reduces, so
step minus compute backward is the all-reduce's time not hidden behind the backward pass).
The rank, the world size and the rendezvous come from the environment (RANK, WORLD_SIZE,
MASTER_ADDR, MASTER_PORT; GLOO_SOCKET_IFNAME names the interface).
"""

import argparse
import os
import sys
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


def mlp(grad_bytes, width):
    """Layers of Linear(width, width) and a last Linear(width, k) to come to grad_bytes."""
    params = grad_bytes // 4
    per = width * width + width
    full = max(0, params // per - (0 if params % per else 1)) if params > per else 0
    rest = params - full * per
    k = max(1, rest // (width + 1))
    layers = []
    for _ in range(full):
        layers += [torch.nn.Linear(width, width), torch.nn.ReLU()]
    layers.append(torch.nn.Linear(width, k))
    return torch.nn.Sequential(*layers), full + 1


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--bytes", type=int, default=4 << 20, help="gradient bytes (float32)")
    p.add_argument("--width", type=int, default=512)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--compute-steps", type=int, default=5)
    p.add_argument("--out", required=True)
    a = p.parse_args()
    if a.steps < 1 or a.bytes < 4 * (a.width + 1) or a.batch < 1 or a.compute_steps < 1:
        p.error("--steps, --batch and --compute-steps >= 1, --bytes >= 4 (width + 1)")
    torch.set_num_threads(1)
    torch.manual_seed(1)
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    model, nlayers = mlp(a.bytes, a.width)
    ddp = DDP(model)
    grad_bytes = sum(q.numel() * q.element_size() for q in model.parameters())
    opt = torch.optim.SGD(ddp.parameters(), lr=1e-6)
    x = torch.randn(a.batch, a.width)
    rows = []

    phases = {"compute": [], "step": []}

    def iteration(i, kind):
        t0 = time.time_ns()
        opt.zero_grad(set_to_none=False)
        loss = ddp(x).square().mean()
        t1 = time.time_ns()
        loss.backward()
        t2 = time.time_ns()
        opt.step()
        t3 = time.time_ns()
        rows.append((i, kind, t0, t3))
        if kind in phases:
            phases[kind].append((t1 - t0, t2 - t1, t3 - t2))

    def medians(v):
        return ",".join("%.3f" % (sorted(c)[len(c) // 2] / 1e6) for c in zip(*v))

    for i in range(2):
        iteration(i, "warmup")
    with ddp.no_sync():
        for i in range(a.compute_steps):
            iteration(i, "compute")
    dist.barrier()
    for i in range(a.steps):
        iteration(i, "step")
    dist.barrier()
    try:
        log = ddp._get_ddp_logging_data()
        buckets = "bucket_sizes=%s\nrebuilt_bucket_sizes=%s\n" % (
            log.get("bucket_sizes", ""), log.get("rebuilt_bucket_sizes", ""))
    except (AttributeError, RuntimeError):
        buckets = ""
    if rank == 0:
        with open(a.out + ".tmp", "w") as f:
            f.write("step,kind,start_ns,end_ns\n")
            for r in rows:
                f.write("%d,%s,%d,%d\n" % r)
        with open(a.out + ".meta", "w") as f:
            f.write("grad_bytes=%d\nlayers=%d\nwidth=%d\nbatch=%d\nworld=%d\n%s" % (
                grad_bytes, nlayers, a.width, a.batch, dist.get_world_size(), buckets))
            for kind, v in phases.items():
                f.write("%s_forward_backward_optimizer_ms=%s\n" % (kind, medians(v)))
        os.replace(a.out + ".tmp", a.out)
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
