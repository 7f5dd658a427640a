"""The symheap Python package: numpy arrays on the symmetric heap, a put
to the right neighbour and an allreduce, each checked.

    PYTHONPATH=build/python build/symrun -n 4 /usr/bin/python3 examples/numpy_allreduce.py
"""
import numpy as np

import symheap

with symheap.init():  # sym_init .. sym_finalize
    me, n = symheap.my_pe(), symheap.n_pes()
    x = symheap.zeros(4, np.int64)  # on the symmetric heap
    symheap.put(x, np.arange(4) + 10 * me, (me + 1) % n)
    symheap.barrier_all()
    left = (me - 1) % n
    assert (x == np.arange(4) + 10 * left).all(), (me, x)

    total = np.empty(4, np.int64)
    symheap.allreduce(total, x, "sum", algorithm="ring", timeout=5)
    want = np.arange(4) * n + 10 * n * (n - 1) // 2
    assert (total == want).all(), (me, total, want)
    if me == 0:
        print(f"numpy allreduce on {n} PEs (symheap {symheap.__version__}): {total.tolist()} ok")
