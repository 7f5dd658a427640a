"""compare_plot.py - the plots of bench/compare's report folder."""
import os
import statistics


def log(msg):
    print(msg, flush=True)


def plot(out, runs, native):
    """plots/BENCH-nPES.png: one page per benchmark and PE count, a panel per
    test, one line per implementation (native(kind): a symheap build, whose
    collectives have one line per algorithm)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        log("# matplotlib missing (apt-get install python3-matplotlib): no plots")
        return
    pdir = os.path.join(out, "plots")
    os.makedirs(pdir, exist_ok=True)
    # series[(bench, npes, test)][impl] = {size: [ns per op of every run]}
    series = {}
    for r in runs:
        d = r["json"]
        if not d:
            continue
        impl = r["kind"]
        if r["bench"] == "coll" and native(impl):
            for x in d.get("results", []):
                coll, _, b = x["test"].rpartition("_")
                s = series.setdefault((r["bench"], r["npes"], coll), {})
                lab = impl + " " + x["row"]
                s.setdefault(lab, {}).setdefault(int(b), []).append(x["ns_per_op"]["median"])
            continue
        for x in d.get("results", []):
            try:
                size = int(x["row"])
            except ValueError:
                continue
            if x.get("unit") != "ns" and r["bench"] == "p2p" and "bandwidth" not in x["test"]:
                continue  # message-rate tables repeat the bandwidth samples
            s = series.setdefault((r["bench"], r["npes"], x["test"]), {})
            s.setdefault(impl, {}).setdefault(size, []).append(x["ns_per_op"]["median"])
    # One PNG per benchmark and PE count, one panel per test: drawing dozens
    # of separate figures took minutes of CPU on a loaded host.
    pages = {}
    for (bench, npes, test), impls in sorted(series.items()):
        if all(len(v) < 2 for v in impls.values()):
            continue
        pages.setdefault((bench, npes), []).append((test, impls))
    n = 0
    for (bench, npes), panels in sorted(pages.items()):
        cols = min(3, len(panels))
        rows = (len(panels) + cols - 1) // cols
        fig, axes = plt.subplots(rows, cols, figsize=(4.6 * cols, 3.3 * rows), squeeze=False)
        for ax in axes.flat[len(panels):]:
            ax.set_visible(False)
        for ax, (test, impls) in zip(axes.flat, panels):
            bw = "bandwidth" in test
            for impl, pts in sorted(impls.items()):
                xs = sorted(pts)
                ys = [statistics.median(pts[x]) for x in xs]
                if bw:
                    ys = [x / y * 1e3 if y > 0 else 0 for x, y in zip(xs, ys)]  # MB/s
                ax.plot(xs, ys, marker="o", ms=3, label=impl)
                if not bw:
                    ax.fill_between(xs, [min(pts[x]) for x in xs], [max(pts[x]) for x in xs],
                                    alpha=0.15)
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_xlabel("bytes" + (" per PE" if bench == "scoll" else ""), fontsize=8)
            ax.set_ylabel("MB/s (median of runs)" if bw else "ns per op (median, min..max)",
                          fontsize=8)
            ax.set_title(test, fontsize=9)
            ax.tick_params(labelsize=7)
            ax.grid(True, which="major", alpha=0.3)
            ax.legend(fontsize=7)
        fig.suptitle("%s, %d PEs (ratios: summary.md)" % (bench, npes), fontsize=11)
        fig.tight_layout()
        fig.savefig(os.path.join(pdir, "%s-n%d.png" % (bench, npes)), dpi=72)
        plt.close(fig)
        n += 1
    log("# %d plot pages in %s" % (n, pdir))
