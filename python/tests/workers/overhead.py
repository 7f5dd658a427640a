"""Python-level overhead of an 8-byte allreduce over the same native call
(1 PE): the best of many short rounds of each, interleaved, so a quiet
moment on a loaded host is caught.  Prints the figures; exits 1 when the
overhead is 2 us or more."""
import sys
import time

import numpy as np

import symheap

with symheap.init():
    a8, b8 = np.ones(1), np.empty(1)
    best_py = best_nat = 1e9
    for _ in range(int(sys.argv[1]) if len(sys.argv) > 1 else 15):
        k = 5000
        best_nat = min(best_nat, symheap._symheap._native_allreduce_loop(b8, a8, k))
        t0 = time.perf_counter()
        for _ in range(k):
            symheap.allreduce(b8, a8)
        best_py = min(best_py, (time.perf_counter() - t0) / k)
    over = best_py - best_nat
    print(f"allreduce 8 B, 1 PE: native {best_nat * 1e6:.3f} us, from Python "
          f"{best_py * 1e6:.3f} us: overhead {over * 1e6:.3f} us", flush=True)
sys.exit(0 if over < 2e-6 else 1)
