#!/usr/bin/env python3
"""Start-up time and memory per PE as a job grows: runs bench_scale.

    bench/scale_report.py -b build-bench --pes 8,64,256 --runs 5 [--team] [--steps]
        [--boot symrun|tcp] [--also NAME=BUILDDIR ...]

For every PE count, `--runs` jobs of bench_scale (one line of figures each,
see bench/bench_scale.c), run interleaved with the builds given by --also
(this build, NAME, this build, NAME, ...) so that a before/after comparison
sees the same load.  --boot tcp starts the PEs itself through the TCP
rendezvous (SYMHEAP_ROOT_ADDR on 127.0.0.1, a fresh secret) instead of
symrun; --boot mpirun through Open MPI's mpirun (PMIx).  --steps runs with SYMHEAP_DEBUG=1 and reads each PE's account of
sym_init's steps.  Prints markdown tables: per figure the median over the
runs, with min..max; the host's load average before and after.  `wall` is
the launcher's whole run (start, init, barrier, finalize, exit).
"""
import argparse
import os
import re
import secrets
import socket
import statistics
import subprocess
import sys
import time

STEP_RE = re.compile(r"\[symheap pe (\d+)\] sym_init steps \(s\): (.*); total ([0-9.]+)")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_job(build, npes, boot, args, debug, timeout):
    prog = os.path.join(build, "bench", "bench_scale")
    env = dict(os.environ)
    if debug:
        env["SYMHEAP_DEBUG"] = "1"
    t0 = time.time()
    argv = [prog, "--t0", "%.6f" % t0] + args
    if boot in ("symrun", "mpirun"):
        launcher = [os.path.join(build, "symrun"), "-n", str(npes)]
        if boot == "mpirun":
            launcher = ["mpirun", "--oversubscribe", "--bind-to", "none", "--mca",
                        "oob_tcp_if_include", "lo", "--mca", "btl_tcp_if_include", "lo",
                        "-np", str(npes)]
            if os.geteuid() == 0:
                launcher.insert(1, "--allow-run-as-root")
        p = subprocess.run(launcher + argv, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=timeout)
        out, err, rc = p.stdout, p.stderr, p.returncode
    else:
        env.update(SYMHEAP_SIZE=str(npes), SYMHEAP_ROOT_ADDR="127.0.0.1:%d" % free_port(),
                   SYMHEAP_JOB_SECRET=secrets.token_hex(32))
        procs = []
        for r in range(npes):
            e = dict(env, SYMHEAP_RANK=str(r))
            procs.append(subprocess.Popen(argv, env=e, stdout=subprocess.PIPE,
                                          stderr=subprocess.PIPE, text=True))
        outs = [p.communicate(timeout=timeout) for p in procs]
        out = "".join(o for o, _ in outs)
        err = "".join(e for _, e in outs)
        rc = max(p.returncode for p in procs)
    wall = time.time() - t0
    line = next((l for l in out.splitlines() if l.startswith("scale ")), None)
    if rc != 0 or line is None:
        sys.exit("bench_scale failed (%s, %d PEs, %s, status %d):\n%s%s" %
                 (build, npes, boot, rc, out[-2000:], err[-4000:]))
    figs = {k: float(v) for k, v in (kv.split("=") for kv in line.split()[1:])}
    figs["wall"] = wall
    steps = {}
    for m in STEP_RE.finditer(err):
        for part in m.group(2).split(", "):
            name, val = part.rsplit(" ", 1)
            steps.setdefault(name, []).append(float(val))
        steps.setdefault("total", []).append(float(m.group(3)))
    return figs, steps


def med_range(vals, fmt):
    vals = [v for v in vals if v >= 0]  # -1: not measured
    if not vals:
        return "-"
    return (fmt + " (" + fmt + ".." + fmt + ")") % (statistics.median(vals), min(vals), max(vals))


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


TIME_COLS = [("init_med", "init median s"), ("init_max", "init max s"),
             ("launch_span", "launch span s"), ("ready", "all ready s"),
             ("barrier_max", "1st barrier max s"), ("wall", "wall s")]
MEM_COLS = [("rss_med", "VmRSS KiB"), ("anon_med", "RssAnon KiB"), ("shmem_med", "RssShmem KiB"),
            ("shmem_max", "RssShmem max KiB"), ("heap_reserved_med", "heap reserved KiB"),
            ("mailbox_cfg", "mailbox cfg KiB")]
TOUCH_COLS = [("touch_first_us_med", "first put us"), ("touch_first_us_max", "(max)"),
              ("touch_again_us_med", "again us"), ("touch_pte_med", "VmPTE added KiB"),
              ("touch_pte_max", "(max)")]
TEAM_COLS = [("team_reserved_med", "team reserved KiB/member"),
             ("team_shmem_med", "team RssShmem KiB/member"),
             ("team_shmem_max", "(max)"), ("team_split_shmem_med", "of which the split"),
             ("team_anon_med", "team RssAnon KiB/member")]


def table(title, cols, rows, fmt):
    print("\n### " + title + "\n")
    print("| build | PEs | " + " | ".join(c[1] for c in cols) + " |")
    print("|---|---|" + "---|" * len(cols))
    for (name, npes), runs in rows:
        cells = [med_range([r[0][k] for r in runs if k in r[0]], fmt) for k, _ in cols]
        print("| %s | %d | %s |" % (name, npes, " | ".join(cells)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-b", "--build", default="build")
    ap.add_argument("--pes", default="8,16,32,64,128,256")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--boot", choices=["symrun", "tcp", "mpirun"], default="symrun")
    ap.add_argument("--team", action="store_true", help="also a team of every PE (ring allreduce)")
    ap.add_argument("--count", type=int, default=65536, help="elements of the team's allreduce")
    ap.add_argument("--steps", action="store_true", help="SYMHEAP_DEBUG=1: sym_init's steps")
    ap.add_argument("--touch", action="store_true", help="also every PE's first put to every PE")
    ap.add_argument("--also", action="append", default=[], metavar="NAME=BUILDDIR")
    ap.add_argument("--timeout", type=float, default=600)
    a = ap.parse_args()
    builds = [("this", a.build)] + [tuple(x.split("=", 1)) for x in a.also]
    args = ["--team", "--count", str(a.count)] if a.team else []
    args += ["--touch"] if a.touch else []
    pes = [int(x) for x in a.pes.split(",")]
    before = loadavg()
    print("# bench_scale: %s bootstrap, %d runs per point, %d cores; load average %s (start)" %
          (a.boot, a.runs, os.cpu_count(), before))
    results = {}
    for npes in pes:
        for _ in range(a.runs):
            for name, build in builds:
                results.setdefault((name, npes), []).append(
                    run_job(build, npes, a.boot, args, a.steps, a.timeout))
    print("load average %s (end)" % loadavg())
    rows = sorted(results.items(), key=lambda kv: (kv[0][1], kv[0][0]))
    table("Start-up (seconds; median over runs, min..max)", TIME_COLS, rows, "%.2f")
    table("Memory per PE after init and a barrier (KiB, median over PEs; runs: median, "
          "min..max)", MEM_COLS, rows, "%.0f")
    if a.team:
        table("A team of every PE, %d-element float ring allreduce: added per member (KiB)" %
              a.count, TEAM_COLS, rows, "%.0f")
    if a.touch:
        table("Every PE puts to every other PE: microseconds per put (median over PEs), "
              "page tables added (KiB)", TOUCH_COLS, rows, "%.1f")
    if a.steps:
        names = []
        for runs in results.values():
            for _, st in runs:
                names += [n for n in st if n not in names]
        print("\n### sym_init steps (seconds; per run the median over PEs / the largest; "
              "then the median over runs)\n")
        print("| build | PEs | " + " | ".join(names) + " |")
        print("|---|---|" + "---|" * len(names))
        for (name, npes), runs in rows:
            cells = []
            for n in names:
                meds = [statistics.median(st[n]) for _, st in runs if n in st]
                maxs = [max(st[n]) for _, st in runs if n in st]
                cells.append("%.3f / %.3f" % (statistics.median(meds), statistics.median(maxs))
                             if meds else "-")
            print("| %s | %d | %s |" % (name, npes, " | ".join(cells)))


if __name__ == "__main__":
    main()
