"""DistributedDataParallel over the "symheap" torch.distributed backend:
a few SGD steps, then a check that every rank holds the same model.

    PYTHONPATH=build/python build/symrun -n 2 /usr/bin/python3 examples/torch_ddp.py
    PYTHONPATH=build/python /usr/bin/python3 -m torch.distributed.run \\
        --redirects 2 --tee 1 --nproc_per_node 2 examples/torch_ddp.py
"""
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

import symheap.torch  # noqa: F401  (registers the "symheap" backend)

dist.init_process_group("symheap")
rank, size = dist.get_rank(), dist.get_world_size()
torch.manual_seed(rank)  # different data on every rank
model = DDP(torch.nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(10):
    opt.zero_grad()
    model(torch.randn(32, 8)).pow(2).mean().backward()  # gradients averaged by DDP
    opt.step()

# DDP keeps the replicas equal: gather every rank's bias and compare
bias = model.module.bias.detach().clone()
every = [torch.zeros_like(bias) for _ in range(size)]
dist.all_gather(every, bias)
assert all(torch.equal(b, every[0]) for b in every), every
if rank == 0:
    print(f"DDP on {size} ranks over symheap: bias {bias.item():.6f} on every rank, ok")
dist.destroy_process_group()
