"""The backend's list operations on lists of tensors that are views of one
buffer (torch.chunk / split), which it reads and writes in place, and on
the lists it must copy (reversed chunks, non-contiguous tensors, separate
tensors), against local references.  Run by symrun or torchrun at 2+ ranks.
Prints failures and "CASES <run> FAILED <n>"; exits 1 if any failed."""
import sys

import torch
import torch.distributed as dist

import symheap.torch  # noqa: F401

ran = 0
failures = []


def check(case, got, want):
    global ran
    ran += 1
    if not torch.equal(got, want):
        failures.append(f"rank {dist.get_rank()}: {case}: {got.tolist()[:8]} != "
                        f"{want.tolist()[:8]}")


def data(rank, k, salt=0):
    return torch.arange(k, dtype=torch.float32) + 100 * rank + 10 * salt


def lists(n, k):
    """Output lists of n tensors of k elements, with how each is laid out:
    views of one buffer (in order: used in place), reversed views and
    strided views (copied), separate tensors (copied)."""
    flat = torch.zeros(n * k)
    wide = torch.zeros(n, 2 * k)
    return {
        "chunks": (list(flat.chunk(n)) if k else [torch.zeros(0) for _ in range(n)], flat),
        "reversed chunks": (list(reversed(torch.zeros(n * k).chunk(n))) if k else
                            [torch.zeros(0) for _ in range(n)], None),
        "strided": ([wide[i, ::2] for i in range(n)], None),
        "separate": ([torch.zeros(k) for _ in range(n)], None),
    }


dist.init_process_group("symheap")
me, n = dist.get_rank(), dist.get_world_size()
for k in (0, 1, 1000):
    mine = data(me, k)
    for how, (outs, flat) in lists(n, k).items():
        dist.all_gather(outs, mine)
        for r in range(n):
            check(f"all_gather {how} k={k} block {r}", outs[r], data(r, k))
        if flat is not None:
            check(f"all_gather {how} k={k}: the buffer holds them", flat,
                  torch.cat([data(r, k) for r in range(n)]))

        # all_to_all: block j of rank i's input goes to rank j's output i
        ins, _ = lists(n, k)[how]
        for j in range(n):
            ins[j].copy_(data(me, k, j))
        outs2, _ = lists(n, k)[how]
        dist.all_to_all(outs2, ins)
        for i in range(n):
            check(f"all_to_all {how} k={k} from {i}", outs2[i], data(i, k, me))

        # reduce_scatter: the sum over ranks of their block `me`
        rs_in, _ = lists(n, k)[how]
        for j in range(n):
            rs_in[j].copy_(data(me, k, j))
        out = torch.empty(k)
        dist.reduce_scatter(out, rs_in)
        check(f"reduce_scatter {how} k={k}", out, sum(data(r, k, me) for r in range(n)))

        # gather and scatter at the last rank
        root = n - 1
        g_out, _ = lists(n, k)[how]
        dist.gather(mine, g_out if me == root else None, dst=root)
        if me == root:
            for r in range(n):
                check(f"gather {how} k={k} block {r}", g_out[r], data(r, k))
        s_in, _ = lists(n, k)[how]
        for j in range(n):
            s_in[j].copy_(data(root, k, j))
        s_out = torch.empty(k)
        dist.scatter(s_out, s_in if me == root else None, src=root)
        check(f"scatter {how} k={k}", s_out, data(root, k, me))

    # all_gather in place: this rank's input is its own block of the output
    flat = torch.zeros(n * k)
    blocks = list(flat.chunk(n)) if k else [torch.zeros(0) for _ in range(n)]
    blocks[me].copy_(mine)
    dist.all_gather(blocks, blocks[me])
    check(f"all_gather in place k={k}", torch.cat(blocks),
          torch.cat([data(r, k) for r in range(n)]))

    # all_reduce_coalesced on views of one buffer and on separate tensors
    for how in ("views", "separate"):
        buf = torch.cat([data(me, k), data(me, 3, 1)])
        ts = list(buf.split([k, 3])) if how == "views" else [data(me, k), data(me, 3, 1)]
        dist.all_reduce_coalesced(ts)
        check(f"all_reduce_coalesced {how} k={k}", torch.cat(ts),
              torch.cat([sum(data(r, k) for r in range(n)), sum(data(r, 3, 1) for r in range(n))]))



def copies(fn):
    """The tensor copies and new buffers fn makes (torch's profiler)."""
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CPU]) as p:
        fn()
    return sum(e.count for e in p.key_averages() if e.key in ("aten::copy_", "aten::cat",
                                                                "aten::empty"))


def counted(case, got, want):
    global ran
    ran += 1
    if got != want:
        failures.append(f"rank {me}: {case}: {got} copies/buffers, expected {want}")


# views of one buffer are used in place: no copy, no buffer; others are
flat = torch.zeros(n * 4096)
views = list(flat.chunk(n))
separate = [torch.zeros(4096) for _ in range(n)]
x = data(me, 4096)
counted("all_gather into views of one buffer", copies(lambda: dist.all_gather(views, x)), 0)
counted("all_gather into separate tensors: copied out",
        copies(lambda: dist.all_gather(separate, x)) > 0, True)
sources, part = list(torch.ones(n * 4096).chunk(n)), torch.empty(4096)
counted("all_to_all between views", copies(lambda: dist.all_to_all(views, sources)), 0)
counted("reduce_scatter from views", copies(lambda: dist.reduce_scatter(part, sources)), 0)
counted("all_reduce of a tensor", copies(lambda: dist.all_reduce(x)), 0)

dist.destroy_process_group()
for f in failures[:50]:
    print(f, flush=True)
print(f"CASES {ran} FAILED {len(failures)}", flush=True)
sys.exit(1 if failures else 0)
