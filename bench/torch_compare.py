#!/usr/bin/python3
"""symheap's torch.distributed backend against Gloo, interleaved in one job.

    bench/torch_compare.py [--ranks 2,4,8] [--quick] [--ops all_reduce,...]
                           [--profile [RANKS]] [--build build] [--json FILE]
                           [--results-page bench/RESULTS.md]

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

--profile: where a DDP step's time goes, per model and backend, next to the
same model without DDP (no communication at all): the step's phases
(forward, backward, optimizer), the backward's excess over the local one,
the time in the backend's operations and DDP's bucket copies (torch's
profiler: "symheap:ALLREDUCE" runs in the caller's thread, "gloo:all_reduce"
spans from issue to completion on Gloo's thread), and the busiest entries of
torch's profiler per step.  DDP puts a model's gradients into buckets
(DDP's default 25 MiB, the first 1 MiB) and all-reduces each bucket once it
is complete.

--results-page FILE: write (or replace) the section "torch.distributed" at
the end of FILE (bench/RESULTS.md; bench/compare's page keeps it) with the
tables of this run and its command.
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

import results_page  # noqa: E402  (bench/results_page.py: the page's torch heading)

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
    for op in [o for o in args.ops.split(",") if o]:
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
    for name, make in MODELS.items():
        ddps = {b: DDP(make(), process_group=groups[b]) for b in ("symheap", "gloo")}
        opts = {b: torch.optim.SGD(m.parameters(), lr=0.01) for b, m in ddps.items()}
        times = {"symheap": [], "gloo": []}
        steps = 3 if args.quick else 10
        for i in range(steps + 1):
            for b in ("symheap", "gloo"):
                dist.barrier(group=groups[b])
                t0 = time.perf_counter()
                opts[b].zero_grad()
                ddps[b](INPUTS[name]()).float().pow(2).mean().backward()
                opts[b].step()
                if i:  # the first step builds DDP's buckets
                    times[b].append(time.perf_counter() - t0)
        nparams = sum(p.numel() for p in ddps["symheap"].parameters())
        rows.append({"ranks": n, "op": f"ddp_step_{name}", "bytes": nparams * 4, **{
            b: [statistics.median(t), min(t), max(t)] for b, t in times.items()}})
    profiles = profile_ddp(groups, args) if args.profile else {}
    if rank == 0:
        print("ROWS " + json.dumps(rows), flush=True)
        print("PROFILE " + json.dumps(profiles), flush=True)
    dist.destroy_process_group()


def _models():
    import torch
    return {
        "mlp": lambda: torch.nn.Sequential(torch.nn.Linear(256, 1024), torch.nn.ReLU(),
                                           torch.nn.Linear(1024, 1024), torch.nn.ReLU(),
                                           torch.nn.Linear(1024, 10)),
        "transformer": lambda: torch.nn.TransformerEncoderLayer(d_model=256, nhead=4,
                                                                dim_feedforward=1024,
                                                                batch_first=True),
    }


class _Lazy(dict):
    """MODELS / INPUTS: built on first use, in the worker (torch imported)."""

    def __init__(self, make):
        super().__init__()
        self._make = make

    def _fill(self):
        if not super().__len__():
            self.update(self._make())

    def items(self):
        self._fill()
        return super().items()

    def __getitem__(self, k):
        self._fill()
        return super().__getitem__(k)


MODELS = _Lazy(_models)
INPUTS = _Lazy(lambda: {"mlp": _randn(32, 256), "transformer": _randn(8, 32, 256)})


def _randn(*shape):
    import torch
    g = torch.Generator().manual_seed(1)
    x = torch.randn(*shape, generator=g)
    return lambda: x


def profile_ddp(groups, args):
    """Per model: each backend's DDP step and the local one in phases
    (medians over steps, interleaved), then torch's profiler over more
    steps of each: per-step milliseconds of every profiler entry.  Every
    rank runs the same; rank 0's figures are returned."""
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP
    from torch.profiler import ProfilerActivity, profile

    steps = 5 if args.quick else 15
    out = {}
    for name, make in MODELS.items():
        torch.manual_seed(0)
        nets = {b: DDP(make(), process_group=groups[b]) for b in ("symheap", "gloo")}
        nets["local"] = make()
        opts = {b: torch.optim.SGD(m.parameters(), lr=0.01) for b, m in nets.items()}
        x = INPUTS[name]()

        def step(b, phases=None):
            t0 = time.perf_counter()
            opts[b].zero_grad()
            loss = nets[b](x).float().pow(2).mean()
            t1 = time.perf_counter()
            loss.backward()
            t2 = time.perf_counter()
            opts[b].step()
            t3 = time.perf_counter()
            if phases is not None:
                for k, v in (("forward", t1 - t0), ("backward", t2 - t1), ("optimizer", t3 - t2),
                             ("step", t3 - t0)):
                    phases.setdefault(k, []).append(v)

        phases = {b: {} for b in nets}
        for i in range(steps + 1):
            for b in nets:
                dist.barrier(group=groups.get(b))
                step(b, phases[b] if i else None)
        prof = {}
        for b in nets:
            dist.barrier(group=groups.get(b))
            with profile(activities=[ProfilerActivity.CPU]) as p:
                for _ in range(steps):
                    step(b)
            prof[b] = {e.key: [e.self_cpu_time_total / steps / 1e3, e.cpu_time_total / steps / 1e3,
                               e.count / steps] for e in p.key_averages()}
        ddp = nets["symheap"]
        buckets = [sum(p.numel() * p.element_size() for p in bucket)
                   for bucket in _bucket_params(ddp)]
        # the step's all-reduces alone: one per bucket, back to back
        alone = {}
        flats = [torch.ones(size // 4) for size in buckets]
        for i in range(steps + 1):
            for b in ("symheap", "gloo"):
                dist.barrier(group=groups[b])
                t0 = time.perf_counter()
                for f in flats:
                    dist.all_reduce(f, group=groups[b])
                if i:
                    alone.setdefault(b, []).append(time.perf_counter() - t0)
        out[name] = {"phases": {b: {k: statistics.median(v) * 1e3 for k, v in ph.items()}
                                for b, ph in phases.items()},
                     "alone": {b: statistics.median(v) * 1e3 for b, v in alone.items()},
                     "profile": prof, "buckets": buckets,
                     "params": sum(p.numel() for p in ddp.parameters())}
    return out


def _bucket_params(ddp):
    """DDP's buckets as lists of parameters, as DDP assigns them (torch 1.13:
    dist._compute_bucket_assignment_by_size, the first bucket 1 MiB, the
    others bucket_bytes_cap)."""
    import torch.distributed as dist
    params = list(ddp.parameters())
    limits = [dist._DEFAULT_FIRST_BUCKET_BYTES, ddp.bucket_bytes_cap]
    idx, _ = dist._compute_bucket_assignment_by_size(params, limits, [False] * len(params))
    return [[params[i] for i in b] for b in idx]


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
    profile = args.profile == "all" or str(n) in args.profile.split(",")
    cmd = [sys.executable, __file__, "--worker", "--ops", args.ops] + \
        (["--quick"] if args.quick else []) + (["--profile"] if profile else [])
    procs = [subprocess.Popen(cmd, env={**env, "RANK": str(r), "LOCAL_RANK": str(r)},
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
             for r in range(n)]
    outs = [p.communicate()[0] for p in procs]
    rows = prof = None
    for line in outs[0].splitlines():
        if line.startswith("ROWS "):
            rows = json.loads(line[5:])
        elif line.startswith("PROFILE "):
            prof = json.loads(line[8:])
    if rows is None:
        sys.exit(f"torch_compare: the {n}-rank job failed:\n" + "\n".join(o[-2000:] for o in outs))
    return rows, prof or {}


TORCH_SECTION_HEAD = results_page.TORCH_HEADING + ": the symheap backend against Gloo"
TORCH_SECTION_TEXT = """\
Each rank count is one job (one process per rank, torch's env:// variables)
whose default group is "symheap" and a second group over the same ranks
Gloo; every operation and size runs on both in alternation (symheap, gloo,
symheap, ...), so both see the same load.  A row gives the median time per
call with min..max over the rounds and the ratio symheap/gloo (below 1:
symheap is faster).  Gloo 1.13 has no all_gather_into_tensor and no
reduce_scatter: its rows run list all_gather and an all_reduce of the whole
input instead.  ddp_step rows time one DDP training step (forward, backward
with the gradient all-reduce, SGD) of each model; the size is its
parameters'.  The profile tables below them show where a step's time goes
(see `bench/torch_compare.py --help`)."""

BACKENDS = ("local", "symheap", "gloo")
COMM = {"symheap": "symheap:ALLREDUCE", "gloo": "gloo:all_reduce"}


def profile_tables(n, prof):
    """Markdown lines: per model, the step's phases and where the time goes."""
    L = []
    for name, m in prof.items():
        ph, pr = m["phases"], m["profile"]
        L += [f"#### DDP step, {name}, {n} ranks: {m['params']} parameters, "
              f"{len(m['buckets'])} buckets ({', '.join(fmt_size(b) for b in m['buckets'])})",
              "",
              "| ms per step (median) | no DDP, no communication | symheap | gloo |",
              "|---|---:|---:|---:|"]
        for k in ("forward", "backward", "optimizer", "step"):
            L.append(f"| {k} | " + " | ".join(f"{ph[b][k]:.2f}" for b in BACKENDS) + " |")
        L.append("| backward beyond no-DDP | - | " + " | ".join(
            f"{ph[b]['backward'] - ph['local']['backward']:.2f}" for b in ("symheap", "gloo"))
            + " |")
        L.append("| step beyond no-DDP | - | " + " | ".join(
            f"{ph[b]['step'] - ph['local']['step']:.2f}" for b in ("symheap", "gloo")) + " |")
        L.append("| the buckets' all-reduces alone (back to back, outside a step) | - | " +
                 " | ".join(f"{m['alone'][b]:.2f}" for b in ("symheap", "gloo")) + " |")
        L.append(f"| lowest symheap/gloo step ratio any backend can reach (no-DDP step / gloo "
                 f"step) | {ph['local']['step'] / ph['gloo']['step']:.3f} | - | - |")

        def total(b, key, i=1):
            return pr[b].get(key, [0, 0, 0])[i]
        L.append("| all-reduce calls (profiler: symheap:ALLREDUCE in the caller's thread; "
                 "gloo:all_reduce from issue to completion) | - | " + " | ".join(
                     f"{total(b, COMM[b]):.2f} ({total(b, COMM[b], 2):g} calls)"
                     for b in ("symheap", "gloo")) + " |")
        for key, what in (("aten::mul", "aten::mul (with DDP: the buckets' copy-in with the "
                                        "1/world scaling, beside the model's own)"),
                          ("aten::copy_", "aten::copy_ (with DDP: the buckets' copy-out, beside "
                                          "the model's own)")):
            L.append(f"| {what} | " + " | ".join(f"{total(b, key, 0):.2f}" for b in BACKENDS)
                     + " |")
        L.append("| busiest profiler entries (self CPU ms per step) | " + " | ".join(
            ", ".join(f"{k} {v[0]:.2f}" for k, v in sorted(
                pr[b].items(), key=lambda kv: -kv[1][0])[:5]) for b in BACKENDS) + " |")
        L.append("")
    return L


def write_results_section(path, lines):
    """Replace the section from TORCH_HEADING to the end of path (or add it)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import results_page
    p = Path(path)
    text = p.read_text() if p.exists() else ""
    head = text.split("\n" + results_page.TORCH_HEADING, 1)[0].rstrip("\n")
    p.write_text((head + "\n\n" if head else "") + "\n".join(lines).rstrip("\n") + "\n")
    print(f"# results page: {path}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--ranks", default="2,4,8")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--ops", default=",".join(OPS),
                    help="the collectives to time (comma-separated; empty: only DDP steps)")
    ap.add_argument("--profile", nargs="?", const="all", default="", metavar="RANKS",
                    help="also profile a DDP step of each model (where its time goes), at "
                    "these rank counts (comma-separated; default: all of --ranks)")
    ap.add_argument("--build", default=str(Path(__file__).resolve().parent.parent / "build"))
    ap.add_argument("--json", help="also write every row to this file")
    ap.add_argument("--results-page", metavar="FILE",
                    help="write the section torch.distributed at the end of FILE")
    args = ap.parse_args()
    if args.worker:
        return worker(args)
    shown = list(sys.argv[1:])  # the command, without where --json wrote
    if "--json" in shown:
        del shown[shown.index("--json"):shown.index("--json") + 2]
    command = " ".join(["bench/torch_compare.py"] + shown)
    when = (f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load "
            f"{os.getloadavg()[0]:.1f} at the start")
    L = ["| ranks | operation | size | symheap | gloo | symheap/gloo |",
         "|---|---|---|---|---|---|"]
    print(f"# {command}  ({when})")
    print("\n".join(L), flush=True)
    allrows, profiles = [], {}
    for n in [int(x) for x in args.ranks.split(",")]:
        rows, prof = launch(n, args)
        allrows += rows
        profiles[n] = prof
        for r in rows:
            s, g = r["symheap"], r["gloo"]
            line = (f"| {n} | {r['op']} | {fmt_size(r['bytes'])} | {fmt_time(s[0])} "
                    f"({fmt_time(s[1])}..{fmt_time(s[2])}) | {fmt_time(g[0])} "
                    f"({fmt_time(g[1])}..{fmt_time(g[2])}) | {s[0] / g[0]:.3f} |")
            L.append(line)
            print(line, flush=True)
    P = []
    for n, prof in profiles.items():
        P += profile_tables(n, prof)
    if P:
        print("\n" + "\n".join(P), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": allrows, "profiles": profiles}, indent=1))
    if args.results_page:
        import torch
        when += f", {os.getloadavg()[0]:.1f} at the end, {os.cpu_count()} cores"
        write_results_section(args.results_page, [
            TORCH_SECTION_HEAD, "",
            f"Written by `{command}` ({when}; torch {torch.__version__}, {_blas()}).",
            "", TORCH_SECTION_TEXT, ""] + L + [""] + P)


def _blas():
    """The BLAS torch's matrix products use here (the library mapped for
    libblas.so.3): with the reference BLAS the models' steps are
    compute-bound."""
    import torch
    torch.ones(2, 2) @ torch.ones(2, 2)
    with open("/proc/self/maps") as f:
        libs = {line.split()[-1] for line in f if "blas" in line.split()[-1].lower()}
    real = sorted({os.path.realpath(x) for x in libs if x.startswith("/")})
    return "BLAS " + (", ".join(real) if real else "unknown")

if __name__ == "__main__":
    main()
