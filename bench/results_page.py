"""results_page.py - bench/RESULTS.md from one bench/compare run.

One current page: how it was made (the command that regenerates it), the
machine and its load during the run, the targets, and per benchmark and PE
count the program's command line and a table of every figure: time per
operation of symheap and of each other implementation, median with min..max
over the interleaved pairs, and their ratio.  Nothing on the page depends on
where the run's report folder was (paths are made relative to the tree).
"""
import json
import os
import re
import statistics

WHAT = {
    "p2p": ("bench_shmem_p2p", "OpenSHMEM point-to-point through `shmem.h`: puts, gets, "
            "atomics, put + fence + flag ping-pong, on the heap and on global variables"),
    "scoll": ("bench_shmem_coll", "OpenSHMEM collectives through `shmem.h`, bytes per PE "
              "(symheap's facade: 1.5 team API; OSHMEM: 1.4 active-set API); the barrier is "
              "also compared with `MPI_Barrier` from the coll runs of the same PE count"),
    "coll": ("bench_coll", "symheap's native collectives (float sum for reductions), bytes per "
             "PE, against their MPI twin `bench_mpi_coll` with the same sizes, data and checks"),
}
IMPL = {"symheap": "symheap", "oshmem": "Open MPI OSHMEM", "mpi": "Open MPI MPI"}
# The last section of the page, from this heading on, is bench/torch_compare.py's
# (--results-page): kept as it is when this page is rewritten.
TORCH_HEADING = "## torch.distributed"


def _fmt(x):
    if x is None:
        return "-"
    if x >= 100000:
        return "%.0f" % x
    if x >= 100:
        return "%.0f" % x
    if x >= 10:
        return "%.1f" % x
    return "%.2f" % x


def _span(med, lo, hi):
    return "%s (%s..%s)" % (_fmt(med), _fmt(lo), _fmt(hi))


def _rspan(med, lo, hi):
    return "%.2f (%.2f..%.2f)" % (med, lo, hi)


def _command(txt, root, also):
    """The benchmark's command line from the first line of its run log,
    with paths relative to the tree and the report's JSON option dropped."""
    try:
        with open(txt) as f:
            line = f.readline()
    except OSError:
        return ""
    if not line.startswith("# "):
        return ""
    words = line[2:].split()
    out = []
    skip = False
    for w in words:
        if skip:
            skip = False
            continue
        if w == "--json":
            skip = True
            continue
        for name, d in also.items():
            w = w.replace(d.rstrip("/") + "/", "<%s build>/" % name)
        out.append(w.replace(root.rstrip("/") + "/", ""))
    return " ".join(out)


def _regen_command(argv):
    """bench/compare's own options, without where the report went."""
    out, skip = [], False
    for w in argv:
        if skip:
            skip = False
            continue
        if w in ("-o", "--out", "--results-page", "--analyse"):
            skip = True
            continue
        if re.match(r"^(-o|--out=|--results-page=|--analyse=)", w) or w == "--no-plots":
            continue
        out.append(w)
    return " ".join(["bench/compare"] + out)


def _loads(runs):
    vals = []
    for r in runs:
        m = (r["json"] or {}).get("machine", {})
        for k in ("loadavg_start", "loadavg_end"):
            try:
                vals.append(float(m.get(k, "").split()[0]))
            except (ValueError, IndexError):
                pass
    return vals


def _controls(runs):
    vals = []
    for r in runs:
        rp = (r["json"] or {}).get("raw_pingpong_one_way_ns", {})
        for k in ("before", "after"):
            v = rp.get(k, {}).get("median")
            if v:
                vals.append(v)
    return vals


def _row_key(r):
    try:
        return (r["test"], int(r["row"]), r["row"])
    except ValueError:
        return (r["test"], -1, r["row"])


def write(path, outdir, runs, results, targets, pairs, machine, root, also, notes=()):
    info = {}
    try:
        with open(os.path.join(outdir, "run.json")) as f:
            info = json.load(f)
    except (OSError, ValueError):
        pass
    also = also or info.get("also_symheap") or {}
    m = machine or info.get("machine_at_start") or {}
    first = next((r["json"] for r in runs if r["json"]), {}) or {}
    jm = first.get("machine", {})
    cpu = m.get("cpu") or jm.get("cpu", "?")
    nproc = m.get("nproc") or jm.get("nproc", "?")
    kernel = m.get("kernel") or jm.get("kernel", "?")
    loads = _loads(runs)
    ctl = _controls(runs)
    ceil = [(r["json"] or {}).get("copy_ceiling_gbs") for r in runs]
    ceil = [c for c in ceil if c and c.get("memcpy") and c.get("cma")]
    kinds = sorted({r["kind"] for r in runs}, key=lambda k: (k != "symheap", k))
    also_names = [k for k in kinds if k not in IMPL]

    L = []
    P = L.append
    P("# Benchmark results")
    P("")
    P("symheap next to Open MPI's OSHMEM and MPI on one machine, measured by `bench/compare` "
      "in one interleaved run. This page is generated: `%s --results-page bench/RESULTS.md` "
      "runs everything again and rewrites it; `bench/compare --analyse DIR --results-page "
      "bench/RESULTS.md` rewrites it from an earlier run's report folder. The programs, "
      "options and the way a figure is measured are described in `bench/README.md`."
      % _regen_command(info.get("argv", [])))
    P("")
    P("## How to read it")
    P("")
    P("- Every figure is the time of one operation in nanoseconds: the median over %d "
      "interleaved pairs (symheap, baseline, symheap, baseline, ...), with min..max over the "
      "pairs. Each run's own figure is itself a median over its samples." % pairs)
    P("- ratio = symheap / baseline, computed per pair, median (min..max): above 1 symheap is "
      "slower. Ratios are meaningful within this run only.")
    if also_names:
        P("- %s: another symheap build run in the same pairs (`--also-symheap`); its ratio is "
          "this tree's symheap over it." % ", ".join("`%s`" % a for a in also_names))
    P("- Sizes are bytes (per PE for collectives). Every run verifies its data; `#wrong a/b` "
      "after a ratio counts the mismatched values of symheap's / the baseline's runs "
      "(absent: none).")
    P("")
    P("## Machine")
    P("")
    P("- %s, %s CPUs, %s" % (cpu, nproc, kernel))
    if loads:
        P("- load average (1 min) at the start and end of each benchmark program: median %.1f, "
          "%.1f..%.1f. The machine is shared with other work (builds and tests of other "
          "checkouts), so with %s CPUs most figures include waiting for a CPU; more PEs than "
          "CPUs (4 and 8 PEs) measure the scheduler as much as the library."
          % (statistics.median(loads), min(loads), max(loads), nproc))
    if ctl:
        P("- control: raw cross-core cache-line ping-pong logged before and after every "
          "program, one-way median %s ns (%s..%s over the programs); on a quiet host it is "
          "60-900 ns." % (_fmt(statistics.median(ctl)), _fmt(min(ctl)), _fmt(max(ctl))))
    if ceil:
        mc = [c["memcpy"] for c in ceil]
        cm = [c["cma"] for c in ceil]
        cma, mem = statistics.median(cm), statistics.median(mc)
        P("- one copy of a private 4 MiB buffer (bench_coll, before its figures): memcpy %.1f "
          "GB/s (%.1f..%.1f over the programs), cross-memory attach (`process_vm_readv` from "
          "another process) %.1f GB/s (%.1f..%.1f). MPI moves a large message between private "
          "buffers in one cross-memory-attach copy. symheap moves it in two memcpy copies "
          "through shared memory (staged or through the mailboxes; attach is slower than "
          "those two here), so a large collective on private buffers takes at least about "
          "2 x %.1f / %.1f = %.2fx MPI's time on this host. Symmetric buffers need one memcpy "
          "(`sym_coll_opts_t.symmetric`, and the OpenSHMEM facade): %.2fx."
          % (mem, min(mc), max(mc), cma, min(cm), max(cm), cma, mem, 2 * cma / mem, cma / mem))
    if m.get("ompi_info"):
        P("- baselines: %s" % m["ompi_info"])
    P("")
    if notes:
        P("## What the baselines needed, skipped or got wrong")
        P("")
        for q in notes:
            P("- " + q)
        P("")
    if targets:
        P("## Targets")
        P("")
        for t in targets:
            v = "no data" if t["met"] is None else ("met" if t["met"] else "MISSED")
            extra = ""
            if t["met"] is not None:
                extra = "; worst %.2f at %s" % (t["worst_ratio"], t["worst_at"])
            P("- %s: **%s** (%s%s)" % (t["target"], v, t["detail"], extra))
        P("")

    groups = {}
    for r in results:
        groups.setdefault((r["bench"], r["npes"]), {}).setdefault(r["baseline"], []).append(r)
    order = {"p2p": 0, "scoll": 1, "coll": 2}
    for (bench, npes) in sorted(groups, key=lambda k: (order.get(k[0], 9), k[1])):
        prog, what = WHAT.get(bench, (bench, ""))
        P("## %s, %d PEs" % (prog, npes))
        P("")
        P(what + ".")
        P("")
        cmds = []
        for k in kinds:
            r = next((x for x in runs if x["bench"] == bench and x["npes"] == npes
                      and x["kind"] == k), None)
            c = r and _command(r.get("txt", ""), root, also)
            if c:
                cmds.append((k, c))
        if cmds:
            P("```")
            for k, c in cmds:
                P("%s" % c)
            P("```")
            P("")
        bases = [b for b in ("oshmem", "mpi") + tuple(also_names) if b in groups[(bench, npes)]]
        rows = {}
        for b in bases:
            for r in groups[(bench, npes)][b]:
                rows.setdefault(_row_key(r), {})[b] = r
        # A program prints some samples twice, in two units (a blocking get's
        # latency and bandwidth, bandwidth and message rate): one row each.
        seen, same = {}, []
        for test in sorted({k[0] for k in rows}):
            sig = tuple(sorted((k[2], b, round(c.get("sym_ns_median", 0), 3),
                                round(c.get("base_ns_median", 0), 3))
                               for k, cells in rows.items() if k[0] == test
                               for b, c in cells.items()))
            if sig in seen:
                same.append((test, seen[sig]))
                rows = {k: v for k, v in rows.items() if k[0] != test}
            else:
                seen[sig] = test
        head = "| test | size | symheap ns |"
        rule = "|---|---:|---:|"
        for b in bases:
            head += " %s ns | symheap / %s |" % (b, b)
            rule += "---:|---:|"
        P(head)
        P(rule)
        for key in sorted(rows):
            cells = rows[key]
            any_r = next(iter(cells.values()))
            sym = _span(any_r["sym_ns_median"], any_r.get("sym_ns_min"), any_r.get("sym_ns_max"))
            line = "| %s | %s | %s |" % (key[0], key[2], sym)
            for b in bases:
                r = cells.get(b)
                if not r:
                    line += " - | - |"
                    continue
                flag = ""
                if r["wrong_sym"] or r["wrong_base"]:
                    flag = " #wrong %d/%d" % (r["wrong_sym"], r["wrong_base"])
                line += " %s | %s%s |" % (
                    _span(r["base_ns_median"], r.get("base_ns_min"), r.get("base_ns_max")),
                    _rspan(r["ratio_median"], r["ratio_min"], r["ratio_max"]), flag)
            P(line)
        P("")
        if same:
            P("Measured by the same samples as a row above, in another unit: %s." % "; ".join(
                "%s = %s" % (a, b) for a, b in same))
            P("")
    torch = ""
    if os.path.exists(path):
        with open(path) as f:
            old = f.read()
        if "\n" + TORCH_HEADING in old:
            torch = "\n" + TORCH_HEADING + old.split("\n" + TORCH_HEADING, 1)[1]
    with open(path, "w") as f:
        f.write("\n".join(L).rstrip("\n") + "\n" + torch)
    print("# results page: %s" % path, flush=True)
