"""DDP training of a small model for a few steps on the symheap backend and
on Gloo in the same job: parameters must be identical on every rank, and
the symheap run's identical to the Gloo run's.  Exits 1 on a difference."""
import sys

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

import symheap.torch  # noqa: F401

dist.init_process_group("symheap")
R, N = dist.get_rank(), dist.get_world_size()
gloo = dist.new_group(list(range(N)), backend="gloo")


def train(group):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))
    ddp = DDP(model, process_group=group)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.1)
    g = torch.Generator().manual_seed(100 + R)  # each rank its own data
    for _ in range(5):
        x, y = torch.randn(8, 16, generator=g), torch.randn(8, 4, generator=g)
        opt.zero_grad()
        torch.nn.functional.mse_loss(ddp(x), y).backward()
        opt.step()
    return torch.cat([p.detach().reshape(-1) for p in model.parameters()])


sym = train(None)
ref = train(gloo)
everyone = [torch.empty_like(sym) for _ in range(N)]
dist.all_gather(everyone, sym)
bad = [r for r in range(N) if not torch.equal(everyone[r], sym)]
ok = not bad and torch.equal(sym, ref)
print(f"rank {R}: ranks differing {bad}, symheap == gloo: {torch.equal(sym, ref)} "
      f"(max diff {(sym - ref).abs().max().item():.3g})", flush=True)
dist.destroy_process_group()
sys.exit(0 if ok else 1)
