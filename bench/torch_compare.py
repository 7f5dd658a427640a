#!/usr/bin/python3
"""symheap's torch.distributed backend against Gloo, interleaved in one job.

    bench/torch_compare.py [--ranks 2,4,8] [--quick] [--build build] [--json FILE]

For each rank count it starts a job (one process per rank, torch's env://
variables), in which the default group is "symheap" and a second group over
the same ranks is Gloo.  Each operation and size is timed on both groups in
alternation (symheap, gloo, symheap, ...: `--reps` rounds of a batch of
calls each), so both see the same load; the table gives the median time per
call with min..max over rounds and the ratio symheap/gloo.

Operations: all_reduce, broadcast, all_gather_into_tensor (Gloo: list
all_gather, which it has instead), all_to_all_single, reduce_scatter_tensor
(Gloo has no reduce_scatter: all_reduce of the whole input, the nearest it
can do); sizes 8 B .. 64 MiB of float32, the size being that of the largest
buffer of the call (the input of all_reduce, broadcast and reduce_scatter,
the output of all_gather and all_to_all).  Then one DDP training step (forward,
backward with gradient all-reduce, SGD) of a small MLP and of a small
transformer encoder block, per step with each backend.

--quick: sizes 8 B, 64 KiB, 1 MiB, 16 MiB and fewer rounds.  The host is
shared and noisy: quote medians, compare only within one run.
"""
import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

SIZES = [8, 64, 512, 4 << 10, 32 << 10, 256 << 10, 2 << 20, 16 << 20, 64 << 20]
QUICK_SIZES = [8, 64 << 10, 1 << 20, 16 << 20]
OPS = ["all_reduce", "broadcast", "all_gather", "all_to_all_single", "reduce_scatter"]


def worker(args):
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP

    import symheap.torch  # noqa: F401

    dist.init_process_group("symheap")
    rank, n = dist.get_rank(), dist.get_world_size()
    gloo = dist.new_group(list(range(n)), backend="gloo")
    groups = {"symheap": None, "gloo": gloo}
    rows = []

    def call(op, backend, bufs):
        g = groups[backend]
        if op == "all_reduce":
            dist.all_reduce(bufs["x"], group=g)
        elif op == "broadcast":
            dist.broadcast(bufs["x"], 0, group=g)
        elif op == "all_gather":
            if backend == "gloo":
                dist.all_gather(bufs["list"], bufs["part"], group=g)
            else:
                dist.all_gather_into_tensor(bufs["x"], bufs["part"], group=g)
        elif op == "all_to_all_single":
            dist.all_to_all_single(bufs["y"], bufs["x"], group=g)
        elif op == "reduce_scatter":
            if backend == "gloo":
                dist.all_reduce(bufs["x"], group=g)
            else:
                dist.reduce_scatter_tensor(bufs["part"], bufs["x"], group=g)

    sizes = QUICK_SIZES if args.quick else SIZES
    reps = 3 if args.quick else 5
    for op in OPS:
        for size in sizes:
            elems = max(1, size // 4)
            elems = max(n, elems - elems % n) if op != "all_reduce" and op != "broadcast" \
                else elems
            x = torch.ones(elems)
            part = torch.ones(elems // n if op in ("all_gather", "reduce_scatter") else 1)
            bufs = {"x": x, "y": torch.empty_like(x), "part": part,
                    "list": [torch.empty_like(part) for _ in range(n)]}
            batch = max(1, min(200, (4 << 20) // max(size, 1)))
            times = {"symheap": [], "gloo": []}
            for backend in ("symheap", "gloo"):  # warm up
                call(op, backend, bufs)
            for _ in range(reps):
                for backend in ("symheap", "gloo"):
                    dist.barrier(group=groups[backend])
                    t0 = time.perf_counter()
                    for _ in range(batch):
                        call(op, backend, bufs)
                    times[backend].append((time.perf_counter() - t0) / batch)
            rows.append({"ranks": n, "op": op, "bytes": size, **{
                b: [statistics.median(t), min(t), max(t)] for b, t in times.items()}})

    torch.manual_seed(0)
    models = {
        "mlp": lambda: torch.nn.Sequential(torch.nn.Linear(256, 1024), torch.nn.ReLU(),
                                           torch.nn.Linear(1024, 1024), torch.nn.ReLU(),
                                           torch.nn.Linear(1024, 10)),
        "transformer": lambda: torch.nn.TransformerEncoderLayer(d_model=256, nhead=4,
                                                                dim_feedforward=1024,
                                                                batch_first=True),
    }
    inputs = {"mlp": torch.randn(32, 256), "transformer": torch.randn(8, 32, 256)}
    for name, make in models.items():
        ddps = {b: DDP(make(), process_group=groups[b]) for b in ("symheap", "gloo")}
        opts = {b: torch.optim.SGD(m.parameters(), lr=0.01) for b, m in ddps.items()}
        times = {"symheap": [], "gloo": []}
        steps = 3 if args.quick else 10
        for i in range(steps + 1):
            for b in ("symheap", "gloo"):
                dist.barrier(group=groups[b])
                t0 = time.perf_counter()
                opts[b].zero_grad()
                ddps[b](inputs[name]).float().pow(2).mean().backward()
                opts[b].step()
                if i:  # the first step builds DDP's buckets
                    times[b].append(time.perf_counter() - t0)
        nparams = sum(p.numel() for p in ddps["symheap"].parameters())
        rows.append({"ranks": n, "op": f"ddp_step_{name}", "bytes": nparams * 4, **{
            b: [statistics.median(t), min(t), max(t)] for b, t in times.items()}})
    if rank == 0:
        print("ROWS " + json.dumps(rows), flush=True)
    dist.destroy_process_group()


def fmt_time(s):
    return f"{s * 1e6:.1f} us" if s < 1e-3 else f"{s * 1e3:.2f} ms"


def fmt_size(b):
    for unit, k in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= k:
            return f"{b / k:g} {unit}"
    return f"{b} B"


def launch(n, args):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    build = Path(args.build).resolve()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RANK", "WORLD_SIZE"))}
    env.update(PYTHONPATH=str(build / "python"), PYTHONWARNINGS="ignore", MASTER_ADDR="127.0.0.1",
               MASTER_PORT=str(port), WORLD_SIZE=str(n))
    env.setdefault("SYMHEAP_HEAP_SIZE", "64M")
    cmd = ["/usr/bin/python3", __file__, "--worker"] + (["--quick"] if args.quick else [])
    procs = [subprocess.Popen(cmd, env={**env, "RANK": str(r), "LOCAL_RANK": str(r)},
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
             for r in range(n)]
    outs = [p.communicate()[0] for p in procs]
    for line in outs[0].splitlines():
        if line.startswith("ROWS "):
            return json.loads(line[5:])
    sys.exit(f"torch_compare: the {n}-rank job failed:\n" + "\n".join(o[-2000:] for o in outs))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--ranks", default="2,4,8")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--build", default=str(Path(__file__).resolve().parent.parent / "build"))
    ap.add_argument("--json", help="also write every row to this file")
    args = ap.parse_args()
    if args.worker:
        return worker(args)
    print(f"# bench/torch_compare.py {' '.join(sys.argv[1:])}  "
          f"({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load "
          f"{os.getloadavg()[0]:.1f}, {os.cpu_count()} cores)")
    print("| ranks | operation | size | symheap | gloo | symheap/gloo |")
    print("|---|---|---|---|---|---|")
    allrows = []
    for n in [int(x) for x in args.ranks.split(",")]:
        rows = launch(n, args)
        allrows += rows
        for r in rows:
            s, g = r["symheap"], r["gloo"]
            print(f"| {n} | {r['op']} | {fmt_size(r['bytes'])} | {fmt_time(s[0])} "
                  f"({fmt_time(s[1])}..{fmt_time(s[2])}) | {fmt_time(g[0])} "
                  f"({fmt_time(g[1])}..{fmt_time(g[2])}) | {s[0] / g[0]:.3f} |", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(allrows, indent=1))


if __name__ == "__main__":
    main()
