#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A PyTorch DistributedDataParallel job over gloo (CPU), for captures of a real training loop's
sync: an MLP of about 1.6 M parameters (6.3 MB of float32 gradients), STEPS iterations of a
forward and a backward pass on a random batch and an SGD step, DDP's default buckets.  Each
iteration's all-reduces are timed by a communication hook (the default all-reduce, and the time
each bucket's all-reduce was launched and finished on this rank, CLOCK_REALTIME: the clock
tcpdump stamps packets with).  Rank 0 gathers the times and writes CSV, one row a step:
    step,start_ns,end_ns,buckets,iter_start_ns,iter_end_ns
start and end span the step's all-reduces over the ranks (the first launch, not before the step
before ended, and the last completion), buckets is how many the step had, iter_* the
iteration's own span on rank 0.  The rendezvous is MASTER_ADDR:MASTER_PORT (env), the
interface GLOO_SOCKET_IFNAME.
Usage: ddp_job.py RANK WORLD STEPS OUT.csv"""
import sys
import time

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel


def now_ns():
    return time.clock_gettime_ns(time.CLOCK_REALTIME)


def main():
    rank, world, steps, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    torch.set_num_threads(1)
    torch.manual_seed(rank)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    model = nn.Sequential(nn.Linear(512, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(),
                          nn.Linear(1024, 10))
    ddp = DistributedDataParallel(model)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
    cur = []            # this iteration's buckets: (launched, finished)

    def hook(_state, bucket):
        rec = [now_ns(), 0]
        cur.append(rec)
        buf = bucket.buffer().div_(world)
        fut = dist.all_reduce(buf, async_op=True).get_future()

        def done(f):
            rec[1] = now_ns()
            return f.value()[0]
        return fut.then(done)

    ddp.register_comm_hook(None, hook)
    x = torch.randn(64, 512)
    y = torch.randint(0, 10, (64,))
    loss_fn = nn.CrossEntropyLoss()
    times = []
    for _ in range(steps):
        cur.clear()
        t0 = now_ns()
        opt.zero_grad()
        loss_fn(ddp(x), y).backward()
        opt.step()
        t1 = now_ns()
        times.append([min(b[0] for b in cur), max(b[1] for b in cur), len(cur), t0, t1])
    mine = torch.tensor(times, dtype=torch.int64)
    every = [torch.zeros_like(mine) for _ in range(world)]
    dist.all_gather(every, mine)
    if rank == 0:
        prev_end = 0
        with open(out, "w") as f:
            f.write("step,start_ns,end_ns,buckets,iter_start_ns,iter_end_ns\n")
            for i in range(steps):
                s = max(min(int(e[i][0]) for e in every), prev_end)
                t = max(int(e[i][1]) for e in every)
                prev_end = t
                f.write("%d,%d,%d,%d,%d,%d\n" % (i, s, t, times[i][2], times[i][3],
                                                 times[i][4]))
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
