"""Failure cases of the symheap backend, one per run (argv[1]):
  mismatch  ranks all_reduce tensors of different sizes: a clear error
  timeout   rank 1 never joins an all_reduce: rank 0 raises after the
            group's timeout (init_process_group timeout=3 s)
  killed    rank 1 dies: rank 0's pending all_reduce raises within seconds
Each rank prints "RESULT <ok|bad> <detail>"; exit status 0 when the
expected error came."""
import datetime
import os
import sys
import time

import torch
import torch.distributed as dist

import symheap.torch  # noqa: F401

mode = sys.argv[1]
dist.init_process_group("symheap", timeout=datetime.timedelta(seconds=3))
R = dist.get_rank()
dist.barrier()


def result(ok, detail):
    print(f"RESULT rank {R} {'ok' if ok else 'bad'} {detail}", flush=True)
    os._exit(0 if ok else 1)


if mode == "mismatch":
    try:
        dist.all_reduce(torch.ones(5 + R))
        result(False, "no error")
    except RuntimeError as e:
        msg = str(e)
        result("SYM_ERR_MISMATCH" in msg and "symheap allreduce" in msg, msg.replace("\n", " "))
elif mode == "timeout":
    if R == 1:
        time.sleep(8)
        result(True, "stayed out")
    t0 = time.time()
    try:
        dist.all_reduce(torch.ones(4))
        result(False, "no error")
    except RuntimeError as e:
        dt = time.time() - t0
        result("SYM_ERR_TIMEOUT" in str(e) and 2 <= dt < 7, f"after {dt:.1f} s: {e}")
elif mode == "killed":
    if R == 1:
        time.sleep(0.5)
        os.kill(os.getpid(), 9)
    t0 = time.time()
    try:
        dist.all_reduce(torch.ones(4))
        result(False, "no error")
    except RuntimeError as e:
        dt = time.time() - t0
        result(("SYM_ERR_PEER_LOST" in str(e) or "SYM_ERR_TIMEOUT" in str(e)) and dt < 5,
               f"after {dt:.1f} s: {e}")
