"""Process groups of the symheap backend come and go in one process.

    lifecycle.py rounds [R]   init_process_group -> ops -> new_group ->
                              destroy_process_group(sub) -> destroy_process_group(),
                              R times (default 3)
    lifecycle.py groups [N]   N new_group calls (default 1000), each used and
                              destroyed: the live groups, the library's team
                              region (the job sets SYMHEAP_TEAM_REGION_SIZE
                              small, so teams that are never freed exhaust
                              it) and the process's memory stay flat

Run under any launcher (torchrun, symrun, srun, mpirun, per-rank
environment variables).  Prints failures and "CASES <run> FAILED <n>";
exits 1 if any failed.
"""
import datetime
import gc
import os
import sys
import time

import torch
import torch.distributed as dist

import symheap.torch as symtorch
from symheap import _symheap

ran = 0
failures = []


def check(case, cond, msg=""):
    global ran
    ran += 1
    if not cond:
        failures.append(f"rank {os.environ.get('RANK', '?')}: {case}: {msg}")


def raises(case, fn, text):
    try:
        fn()
        check(case, False, "did not raise")
    except RuntimeError as e:
        check(case, text in str(e), str(e))


def rss_kib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024


def team_gone(pg):
    """Whether the library no longer knows pg's team (destroyed)."""
    return _symheap._team_n_pes(pg.team) < 0


def rounds(count):
    timeout = datetime.timedelta(seconds=60)
    for k in range(count):
        t0 = time.time()
        dist.init_process_group("symheap", timeout=timeout)
        rank, n = dist.get_rank(), dist.get_world_size()
        world = dist.distributed_c10d._get_default_group()
        t = torch.full((5,), float(rank + 1 + k))
        dist.all_reduce(t)
        want = float(n * (n + 1) // 2 + n * k)
        check(f"round {k}: all_reduce", t.tolist() == [want] * 5, str(t.tolist()))
        # a sub-group of the ranks but the last (rank 0 alone at 2 ranks)
        members = list(range(max(1, n - 1)))
        sub = dist.new_group(members)
        if rank in members:
            s = torch.full((3,), float(rank + 1))
            dist.all_reduce(s, group=sub)
            m = len(members)
            check(f"round {k}: sub-group all_reduce", s.tolist() == [m * (m + 1) / 2] * 3,
                  str(s.tolist()))
            owns_team = len(members) < n
            dist.destroy_process_group(sub)
            check(f"round {k}: destroy_process_group(sub) releases it", sub.released)
            check(f"round {k}: its team is destroyed", team_gone(sub) == owns_team)
            raises(f"round {k}: a destroyed group raises",
                   lambda: dist.all_reduce(torch.ones(1), group=sub), "was destroyed")
        dist.barrier()
        dist.destroy_process_group()
        check(f"round {k}: destroy_process_group() releases the default group",
              world.released and not symtorch._groups, f"{world.released} {symtorch._groups}")
        check(f"round {k}: the world team stays", not team_gone(world))
        print(f"rank {rank}: round {k} ok in {time.time() - t0:.2f} s", flush=True)


def groups(count):
    dist.init_process_group("symheap", timeout=datetime.timedelta(seconds=60))
    rank, n = dist.get_rank(), dist.get_world_size()
    # every pair of ranks in turn (at 2 ranks: each rank alone)
    pairs = [[a, b] for a in range(n) for b in range(a + 1, n)] if n > 2 else [[0], [1]]
    t0 = time.time()
    base = None
    most = 0
    for i in range(count):
        members = pairs[i % len(pairs)]
        g = dist.new_group(members)
        if rank in members:
            x = torch.full((64,), float(rank + 1))
            dist.all_reduce(x, group=g)
            ok = x[0].item() == sum(r + 1 for r in members)
            if not ok:
                check(f"group {i}: all_reduce", False, str(x[0].item()))
            dist.destroy_process_group(g)
        most = max(most, len(symtorch._groups))
        if i == count // 10:
            gc.collect()
            base = rss_kib()
    gc.collect()
    grown = rss_kib() - base
    took = time.time() - t0
    check(f"{count} groups: live symheap groups at most 2 (default + one)", most <= 2, str(most))
    check(f"{count} groups: only the default group left", len(symtorch._groups) == 1,
          str(len(symtorch._groups)))
    check(f"{count} groups: torch keeps only the default group",
          len(dist.distributed_c10d._pg_map) == 1, str(len(dist.distributed_c10d._pg_map)))
    check(f"{count} groups: memory grew {grown} KiB after the first tenth", grown < 4096,
          str(grown))
    print(f"rank {rank}: {count} groups in {took:.1f} s ({took / count * 1e3:.1f} ms each), "
          f"rss {rss_kib()} KiB, grew {grown} KiB after group {count // 10}", flush=True)
    dist.destroy_process_group()


mode = sys.argv[1] if len(sys.argv) > 1 else "rounds"
arg = int(sys.argv[2]) if len(sys.argv) > 2 else (3 if mode == "rounds" else 1000)
try:
    rounds(arg) if mode == "rounds" else groups(arg)
except Exception as e:  # noqa: BLE001  (a failure is a case, reported below)
    check(f"{mode}: no exception", False, repr(e))
for f in failures[:50]:
    print(f, flush=True)
print(f"CASES {ran} FAILED {len(failures)}", flush=True)
sys.exit(1 if failures else 0)
