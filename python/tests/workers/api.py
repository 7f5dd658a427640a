"""Every call of the symheap Python package against local references, at
the job's size (run under symrun at 1..4 PEs).  Prints failures and
"CASES <run> FAILED <n>"; exits 1 if any failed."""
import sys
import time

import numpy as np

import symheap

ran = 0
failures = []


def check(case, cond, msg=""):
    global ran
    ran += 1
    if not cond:
        failures.append(f"PE {symheap.my_pe()}: {case}: {msg}")


def data(pe, n, dtype, salt=0):
    v = (np.arange(n, dtype=np.int64) * (pe + 3) + salt + pe) % 3 + 1
    return (v == 1) if dtype == np.bool_ else v.astype(dtype)


check("before init", symheap.my_pe() == -1 and not symheap.initialized())
with symheap.init():
    me, n = symheap.my_pe(), symheap.n_pes()
    check("initialized", symheap.initialized() and 0 <= me < n)
    BIG = 40009
    SIZES = [0, 1, 7, BIG]
    right, left = (me + 1) % n, (me - 1) % n

    # symmetric arrays, put/get
    x = symheap.zeros(BIG, np.int64)
    check("zeros", x.shape == (BIG,) and not x.any())
    a2 = symheap.ones((3, 4), np.float32)
    check("ones", a2.shape == (3, 4) and (a2 == 1).all())
    f = symheap.full(5, 7, np.int16)
    check("full", (f == 7).all())
    for sz in SIZES:
        symheap.put(x[:sz], data(me, sz, np.int64), right)
        symheap.barrier_all()
        check(f"put/{sz}", np.array_equal(x[:sz], data(left, sz, np.int64)))
        got = np.empty(sz, np.int64)
        symheap.get(got, x[:sz], right)
        check(f"get/{sz}", np.array_equal(got, data(me, sz, np.int64)))
        symheap.barrier_all()

    # put_signal and wait_until
    sig = symheap.zeros(1, np.uint64)
    buf = symheap.zeros(16, np.float64)
    symheap.put_signal(buf, np.full(16, me, np.float64), sig, me + 1, right)
    v = symheap.signal_wait_until(sig, "eq", left + 1)
    check("put_signal", v == left + 1 and (buf == left).all(), f"{v} {buf[:2]}")
    symheap.barrier_all()

    # atomics on int64 / uint64 words
    w = symheap.zeros(4, np.int64)
    symheap.barrier_all()
    for pe in range(n):
        symheap.atomic_add(w, me + 1, pe)
        symheap.atomic_fetch_inc(w, pe, index=1)
        symheap.atomic_or(w, 1 << me, pe, index=2)
    symheap.barrier_all()
    check("atomic_add", w[0] == n * (n + 1) // 2, str(w))
    check("atomic_fetch_inc", w[1] == n, str(w))
    check("atomic_or", w[2] == (1 << n) - 1, str(w))
    old = symheap.atomic_fetch(w, right)
    check("atomic_fetch", old == n * (n + 1) // 2)
    symheap.barrier_all()
    if me == 0:
        o = symheap.atomic_compare_swap(w, (1 << n) - 1, -5, 0, index=2)
        check("compare_swap", o == (1 << n) - 1)
        check("swap", symheap.atomic_swap(w, 9, 0, index=3) == 0)
        check("fetch_add", symheap.atomic_fetch_add(w, 1, 0, index=3) == 9)
        symheap.atomic_set(w, 12, 0, index=3)
        check("fetch_and", symheap.atomic_fetch_and(w, 4, 0, index=3) == 12)
        check("fetch_or", symheap.atomic_fetch_or(w, 3, 0, index=3) == 4)
        check("fetch_xor", symheap.atomic_fetch_xor(w, 1, 0, index=3) == 7)
        symheap.atomic_and(w, 2, 0, index=3)
        symheap.atomic_xor(w, 1, 0, index=3)
        symheap.atomic_inc(w, 0, index=3)
        check("atomic results", w[2] == -5 and w[3] == 4, str(w))
        check("wait_until", symheap.wait_until(w, "ge", 4, 3) == 4)
    symheap.barrier_all()

    # collectives on plain numpy arrays, every dtype and size
    dtypes = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
              np.float16, np.float32, np.float64, np.bool_]
    for dt in dtypes:
        for sz in SIZES:
            tag = f"{np.dtype(dt).name}/{sz}"
            ins = [data(p, sz, dt) for p in range(n)]
            st = np.stack(ins) if sz else np.zeros((n, 0), dt)
            out = np.empty(sz, dt)
            if dt == np.bool_:
                refs = {"sum": st.any(0), "min": st.all(0), "max": st.any(0)}
            else:
                wide = st.astype(np.float64 if np.dtype(dt).kind == "f" else np.int64)
                refs = {"sum": wide.sum(0).astype(dt), "prod": wide.prod(0).astype(dt),
                        "min": wide.min(0).astype(dt) if sz else out,
                        "max": wide.max(0).astype(dt) if sz else out}
                if np.dtype(dt).kind != "f":
                    refs["bxor"] = np.bitwise_xor.reduce(st, 0) if sz else out
                    refs["avg"] = (wide.sum(0) // n).astype(dt)
            for op, want in refs.items():
                symheap.allreduce(out, ins[me], op)
                check(f"allreduce/{op}/{tag}", np.array_equal(out, want))
            for algo in ("naive", "ring", "tree"):
                b = ins[me].copy()
                symheap.broadcast(b, n - 1, algorithm=algo)
                check(f"broadcast/{algo}/{tag}", np.array_equal(b, ins[n - 1]))
            r = np.empty(sz, dt) if me == 0 else None
            symheap.reduce(r, ins[me], "max", 0)
            check(f"reduce/{tag}", me != 0 or np.array_equal(r, refs["max"]))
            g = np.empty(sz * n, dt)
            symheap.all_gather(g, ins[me], algorithm="ring")
            check(f"all_gather/{tag}", np.array_equal(g, st.reshape(-1)))
            gg = np.empty(sz * n, dt) if me == 0 else None
            symheap.gather(gg, ins[me], 0)
            check(f"gather/{tag}", me != 0 or np.array_equal(gg, st.reshape(-1)))
            sc = np.empty(sz, dt)
            symheap.scatter(sc, np.concatenate([data(0, sz, dt, p) for p in range(n)])
                            if me == 0 else None, 0)
            check(f"scatter/{tag}", np.array_equal(sc, data(0, sz, dt, me)))
            a2a = np.empty(sz * n, dt)
            symheap.all_to_all(a2a, np.concatenate([data(me, sz, dt, p) for p in range(n)]))
            check(f"all_to_all/{tag}",
                  np.array_equal(a2a, np.concatenate([data(p, sz, dt, me) for p in range(n)])))
            if dt != np.bool_:
                rs = np.empty(sz, dt)
                srcs = [np.concatenate([data(p, sz, dt, q) for q in range(n)]) for p in range(n)]
                symheap.reduce_scatter(rs, srcs[me], "sum")
                want = np.sum([data(p, sz, dt, me).astype(np.float64) for p in range(n)],
                              0).astype(dt)
                check(f"reduce_scatter/{tag}", np.array_equal(rs, want))
            if sz < BIG:
                counts = [sz + p for p in range(n)]
                gv = np.empty(sum(counts), dt)
                symheap.all_gatherv(gv, data(me, counts[me], dt), counts)
                check(f"all_gatherv/{tag}",
                      np.array_equal(gv, np.concatenate([data(p, counts[p], dt) for p in range(n)])))
                sc_ = [(me + j) % 3 * sz for j in range(n)]
                rc_ = [(i + me) % 3 * sz for i in range(n)]
                av = np.empty(sum(rc_), dt)
                symheap.all_to_allv(av, rc_, np.concatenate(
                    [data(me, sc_[j], dt, j) for j in range(n)]), sc_)
                check(f"all_to_allv/{tag}", np.array_equal(av, np.concatenate(
                    [data(i, rc_[i], dt, me) for i in range(n)])))

    # teams
    world = symheap.Team.world()
    check("team world", world.n_pes() == n and world.my_pe() == me and world.members() ==
          list(range(n)))
    evens = symheap.split_strided(world, 0, 2, (n + 1) // 2)
    check("split_strided membership", (evens is not None) == (me % 2 == 0))
    if evens is not None:
        check("split_strided numbering", evens.my_pe() == me // 2 and
              evens.members() == list(range(0, n, 2)))
        check("translate", evens.translate_pe(evens.my_pe(), world) == me)
        t = np.empty(3, np.int32)
        symheap.allreduce(t, np.full(3, me, np.int32), team=evens)
        check("team allreduce", (t == sum(range(0, n, 2))).all())
        evens.destroy()
    if n % 2:
        try:
            symheap.split_2d(world, 2)
            check("split_2d refuses a short last row", False)
        except symheap.InvalidArgError as e:
            check("split_2d refuses a short last row", "ragged" in str(e))
    xt, yt = symheap.split_2d(world, 2, ragged=True)
    check("split_2d", xt is not None and yt is not None and xt.my_pe() == me % 2 and
          yt.my_pe() == me // 2)
    rev = symheap.create(world, list(reversed(range(n))))
    check("create", rev.my_pe() == n - 1 - me and
          symheap.translate_pe(rev, 0, world) == n - 1)
    rev.set_timeout(5.0)
    symheap.barrier(team=rev, timeout=5.0)
    for t_ in (xt, yt, rev):
        t_.destroy()

    # errors: symheap.Error subclasses with .status and the message
    try:
        symheap.put(x[:1], np.zeros(1, np.int64), n + 5)
        check("invalid pe raises", False)
    except symheap.InvalidPEError as e:
        check("invalid pe", e.status == symheap._symheap.SYM_ERR_INVALID_PE and "out of range"
              in str(e), str(e))
    try:
        symheap.put(np.zeros(1, np.int64), np.zeros(1, np.int64), 0)
        check("not symmetric raises", False)
    except symheap.Error as e:
        check("not symmetric", isinstance(e, symheap.NotSymmetricError), repr(e))
    for name, call, text in (
            ("put longer than dest", lambda: symheap.put(x[:1], np.zeros(2, np.int64), me),
             "put: src has 16 bytes, dest only 8"),
            ("get longer than src", lambda: symheap.get(np.zeros(3, np.int64), x[:2], me),
             "get: dest has 24 bytes, src only 16")):
        try:
            call()
            check(name + " raises", False)
        except ValueError as e:
            check(name, text in str(e), str(e))
    try:
        symheap.allreduce(np.empty(3), np.empty(4))
        check("size mismatch raises", False)
    except ValueError as e:
        check("size mismatch", "3 elements" in str(e), str(e))
    try:
        symheap.allreduce(np.empty(3, np.complex64), np.empty(3, np.complex64))
        check("dtype raises", False)
    except TypeError as e:
        check("dtype", "datatype" in str(e), str(e))
    check("status_name", symheap.status_name(-5) == "SYM_ERR_TIMEOUT")

    symheap.free(x)
    symheap.free(a2)
    symheap.barrier_all()
check("after finalize", not symheap.initialized())
for f_ in failures[:50]:
    print(f_, flush=True)
print(f"CASES {ran} FAILED {len(failures)}", flush=True)
sys.exit(1 if failures else 0)
