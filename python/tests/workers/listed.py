"""The package's collectives, ops and algorithms are the library's lists:
one function per collective (with its signature in the docstring), the op
and algorithm names the library gives, broadcast_v (a broadcast that
carries its length) and the errors that name the valid choices.  Run under
symrun at 2 or more PEs.  Prints failures and "CASES <run> FAILED <n>";
exits 1 if any failed."""
import sys

import numpy as np

import symheap

ran = 0
failures = []


def check(case, cond, msg=""):
    global ran
    ran += 1
    if not cond:
        failures.append(f"PE {symheap.my_pe()}: {case}: {msg}")


with symheap.init():
    me, n = symheap.my_pe(), symheap.n_pes()
    for name in ("barrier", "broadcast", "reduce", "allreduce", "reduce_scatter", "all_gather",
                 "all_gatherv", "all_to_all", "all_to_allv", "gather", "scatter", "broadcast_v"):
        f = getattr(symheap, name, None)
        check(f"{name} is a collective", name in symheap.COLLECTIVES and callable(f))
        check(f"{name} documents its arguments",
              f is not None and (f.__doc__ or "").startswith(name + "("), repr(f and f.__doc__))
    check("ops", symheap.OPS == {"sum": 1, "prod": 2, "min": 3, "max": 4, "avg": 5, "band": 6,
                                 "bor": 7, "bxor": 8}, str(symheap.OPS))
    check("op constants", (symheap.SUM, symheap.MAX, symheap.BXOR) == (1, 4, 8))
    check("algorithms", list(symheap.ALGORITHMS)[:6] ==
          ["auto", "naive", "ring", "tree", "rd", "pairwise"], str(symheap.ALGORITHMS))

    # every algorithm name and number selects that algorithm (or is refused
    # by the collective on every PE alike)
    for algo, number in symheap.ALGORITHMS.items():
        for a in (algo, number):
            out = np.empty(3, np.int64)
            try:
                symheap.allreduce(out, np.full(3, me + 1, np.int64), algorithm=a)
                check(f"allreduce algorithm={a!r}", (out == n * (n + 1) // 2).all(), str(out))
            except symheap.InvalidArgError as e:
                check(f"allreduce algorithm={a!r} refused by name", algo in str(e), str(e))
    for name, number in symheap.OPS.items():
        out = np.empty(2, np.int32)
        symheap.allreduce(out, np.full(2, me + 2, np.int32), number)
        want = {"sum": sum(p + 2 for p in range(n)), "max": n + 1, "min": 2}.get(name)
        if want is not None:
            check(f"op {name} by number", (out == want).all(), f"{out} != {want}")

    try:
        symheap.allreduce(np.empty(1), np.ones(1), algorithm="fastest")
        check("unknown algorithm raises", False)
    except ValueError as e:
        check("unknown algorithm names the choices", "'auto', 'naive', 'ring'" in str(e), str(e))
    try:
        symheap.allreduce(np.empty(1), np.ones(1), "mean")
        check("unknown op raises", False)
    except ValueError as e:
        check("unknown op names the choices", "symheap.SUM, PROD" in str(e), str(e))

    # broadcast_v: the root's length travels with the data
    for root in (0, n - 1):
        for k in (0, 1, 5, 3000):
            buf = np.arange(3000, dtype=np.float32) * (root + 1) if me == root else \
                np.zeros(3000, np.float32)
            got = symheap.broadcast_v(buf, k if me == root else None, root)
            want = np.arange(k, dtype=np.float32) * (root + 1)
            check(f"broadcast_v root {root} count {k}",
                  got == k and np.array_equal(buf[:k], want), f"{got} {buf[:3]}")
    small = np.zeros(2, np.int16) if me != 0 else np.arange(7, dtype=np.int16)
    try:
        got = symheap.broadcast_v(small, None, 0)
        check("broadcast_v into a short buffer", me == 0 and got == 7, str(got))
    except symheap.TruncatedError as e:
        check("broadcast_v into a short buffer: truncated off the root", me != 0, str(e))
    symheap.barrier()
    try:
        symheap.broadcast_v(np.zeros(4), 5, 0) if me == 0 else None
        check("broadcast_v count beyond buf raises", me != 0)
    except ValueError as e:
        check("broadcast_v count beyond buf", "outside buf" in str(e), str(e))
    symheap.barrier()

for f_ in failures[:50]:
    print(f_, flush=True)
print(f"CASES {ran} FAILED {len(failures)}", flush=True)
sys.exit(1 if failures else 0)
