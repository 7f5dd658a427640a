"""`dist.init_process_group("symheap")` with nothing but the launcher's
environment (symrun, mpirun, srun): one all_reduce, checked."""
import sys

import torch
import torch.distributed as dist

import symheap.torch  # noqa: F401

dist.init_process_group("symheap")
r, n = dist.get_rank(), dist.get_world_size()
t = torch.arange(5, dtype=torch.float64) + r
dist.all_reduce(t)
ok = t.tolist() == [float(i * n + n * (n - 1) // 2) for i in range(5)]
print(f"SMOKE rank {r} of {n}: {'ok' if ok else 'bad ' + str(t.tolist())}", flush=True)
dist.destroy_process_group()
sys.exit(0 if ok else 1)
