"""symheap from Python: one-sided communication over a symmetric heap and
collectives on numpy arrays.

    import numpy as np, symheap
    with symheap.init():                      # sym_init ... sym_finalize
        me, n = symheap.my_pe(), symheap.n_pes()
        x = symheap.zeros(4, np.int64)        # symmetric: same object on every PE
        symheap.put(x, np.full(4, me), (me + 1) % n)
        symheap.barrier_all()
        total = np.empty(4, np.int64)
        symheap.allreduce(total, x, symheap.SUM)

Start PEs with `symrun -n N python3 script.py`, a PMIx launcher (mpirun,
srun) or the TCP rendezvous (SYMHEAP_ROOT_ADDR); one symheap job per process.

Collectives (one per collective of the library: COLLECTIVES names them)
take any C-contiguous numpy array (symmetric or not), infer the datatype
from it (int8..uint64, float16/32/64; bool with logical ops), and accept
team=, algorithm= (a name of ALGORITHMS: 'auto', 'naive', 'ring', ...) and
timeout= (seconds; 0: the team's); reductions take op= (a name of OPS, or
symheap.SUM ...).  Every failure raises a subclass of symheap.Error with
.status and the library's message.
"""

import numpy as _np

from ._version import __version__  # noqa: F401  (meson.build's version)
from . import _symheap
from . import _errors
from ._errors import *  # noqa: F401,F403  (the Error classes)
from ._errors import Error

_symheap._set_error_factory(_errors.from_status)

from ._symheap import (  # noqa: E402  (after the error factory is in place)
    finalize, initialized, my_pe, n_pes, put, get, wait_until, quiet, fence,
    barrier_all, status_name, COLLECTIVES,
)

# The collectives (barrier, broadcast, ..., all_to_allv), the reduction ops
# (SUM, PROD, ...: sym_op_t values) and the algorithm names, as the library
# lists them.
globals().update({_name: getattr(_symheap, _name) for _name in COLLECTIVES})
OPS = dict(_symheap.OPS)
ALGORITHMS = dict(_symheap.ALGORITHMS)
globals().update({_name.upper(): _value for _name, _value in OPS.items()})
SIGNAL_SET, SIGNAL_ADD = 1, 2
CMP_EQ, CMP_NE, CMP_GT, CMP_GE, CMP_LT, CMP_LE = range(1, 7)


class _Session:
    """What init() returns: a context manager that finalizes on exit."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if _symheap.initialized():
            finalize()
        return False


def init():
    """Join the job (sym_init at thread level multiple); collective.  Use as
    `with symheap.init(): ...` to finalize at the end of the block."""
    _symheap.init()
    return _Session()


# ---------------------------------------------------------------------------
# Symmetric arrays
# ---------------------------------------------------------------------------

def empty(shape, dtype=_np.float64):
    """A numpy array on the symmetric heap (zeroed); collective: every PE
    makes the same calls with the same shapes.  It lives until free(a) or
    finalize(): freeing is collective, so the garbage collector never does."""
    dtype = _np.dtype(dtype)
    count = int(_np.prod(shape, dtype=_np.int64)) if _np.ndim(shape) else int(shape)
    mem = _symheap._malloc(count * dtype.itemsize)
    return _np.frombuffer(mem, dtype=dtype, count=count).reshape(shape)


def zeros(shape, dtype=_np.float64):
    """Like empty(): symmetric memory is zeroed when allocated."""
    return empty(shape, dtype)


def ones(shape, dtype=_np.float64):
    a = empty(shape, dtype)
    a[...] = 1
    return a


def full(shape, value, dtype=_np.float64):
    a = empty(shape, dtype)
    a[...] = value
    return a


def zeros_like(a):
    return empty(_np.shape(a), _np.asarray(a).dtype)


def free(a):
    """Release a symmetric array made by empty/zeros/ones/full; collective.
    The array must not be used afterwards."""
    base = a
    while getattr(base, "base", None) is not None and not isinstance(base, memoryview):
        base = base.base
    _symheap._free(_symheap._address(base))


# ---------------------------------------------------------------------------
# Signals and atomics on 64-bit words (int64 or uint64 arrays, element index)
# ---------------------------------------------------------------------------

def put_signal(dest, src, sig, signal, pe, sig_op=SIGNAL_SET):
    """Put src into symmetric dest on pe, then set (SIGNAL_SET) or add
    (SIGNAL_ADD) `signal` to the symmetric 64-bit word sig[0] there."""
    _symheap.put_signal(dest, src, sig, signal, sig_op, pe)


def signal_wait_until(sig, cmp, value):
    """Wait until the local signal word sig[0] satisfies `cmp value`."""
    return wait_until(sig, cmp, value, 0)


_AMO = {name: i for i, name in enumerate(
    ["fetch", "set", "swap", "compare_swap", "add", "fetch_add", "and", "or", "xor",
     "fetch_and", "fetch_or", "fetch_xor"])}


def atomic_fetch(a, pe, index=0):
    return _symheap._amo(_AMO["fetch"], a, index, 0, 0, pe)


def atomic_set(a, value, pe, index=0):
    _symheap._amo(_AMO["set"], a, index, value, 0, pe)


def atomic_swap(a, value, pe, index=0):
    return _symheap._amo(_AMO["swap"], a, index, value, 0, pe)


def atomic_compare_swap(a, cond, value, pe, index=0):
    return _symheap._amo(_AMO["compare_swap"], a, index, value, cond, pe)


def atomic_add(a, value, pe, index=0):
    _symheap._amo(_AMO["add"], a, index, value, 0, pe)


def atomic_fetch_add(a, value, pe, index=0):
    return _symheap._amo(_AMO["fetch_add"], a, index, value, 0, pe)


def atomic_inc(a, pe, index=0):
    _symheap._amo(_AMO["add"], a, index, 1, 0, pe)


def atomic_fetch_inc(a, pe, index=0):
    return _symheap._amo(_AMO["fetch_add"], a, index, 1, 0, pe)


def atomic_and(a, value, pe, index=0):
    _symheap._amo(_AMO["and"], a, index, value, 0, pe)


def atomic_or(a, value, pe, index=0):
    _symheap._amo(_AMO["or"], a, index, value, 0, pe)


def atomic_xor(a, value, pe, index=0):
    _symheap._amo(_AMO["xor"], a, index, value, 0, pe)


def atomic_fetch_and(a, value, pe, index=0):
    return _symheap._amo(_AMO["fetch_and"], a, index, value, 0, pe)


def atomic_fetch_or(a, value, pe, index=0):
    return _symheap._amo(_AMO["fetch_or"], a, index, value, 0, pe)


def atomic_fetch_xor(a, value, pe, index=0):
    return _symheap._amo(_AMO["fetch_xor"], a, index, value, 0, pe)


# ---------------------------------------------------------------------------
# Teams
# ---------------------------------------------------------------------------

class Team:
    """A symheap team: an ordered subset of the PEs with its own numbering.
    Pass it as team= to any collective.  Made by Team.world(), split_strided,
    split_2d or create; those return None to PEs outside the new team."""

    __slots__ = ("_handle",)

    def __init__(self, handle):
        self._handle = handle

    @staticmethod
    def world():
        return Team(_symheap._team_world())

    def my_pe(self):
        return _symheap._team_my_pe(self)

    def n_pes(self):
        return _symheap._team_n_pes(self)

    def members(self):
        """Global PE numbers of the members, in team order."""
        return _symheap._team_members(self)

    def translate_pe(self, pe, dest_team):
        """Number of this team's member `pe` in dest_team (-1 if none)."""
        return _symheap._team_translate_pe(self, pe, dest_team)

    def set_timeout(self, seconds):
        _symheap._team_set_timeout(self, seconds)

    def destroy(self):
        """Release the team; collective over its members."""
        _symheap._team_destroy(self)

    def __repr__(self):
        return f"<symheap.Team {_symheap._team_name(self)}>"


def _wrap(h):
    return Team(h) if h else None


def split_strided(parent, start, stride, size):
    """The team of parent's PEs start, start+stride, ... (size of them);
    collective over parent.  None on PEs outside it."""
    return _wrap(_symheap._team_split_strided(parent, start, stride, size))


def split_2d(parent, xrange, ragged=False):
    """(row team, column team) of this PE in parent viewed as rows of xrange.
    xrange must divide parent's size (InvalidArgError otherwise) unless
    ragged=True, which accepts a short last row."""
    x, y = _symheap._team_split_2d(parent, xrange, bool(ragged))
    return _wrap(x), _wrap(y)


def create(parent, members):
    """The team of parent's PEs `members` (in that order); collective over
    parent, same list everywhere.  None on PEs outside it."""
    return _wrap(_symheap._team_create(parent, list(members)))


def translate_pe(src_team, pe, dest_team):
    return _symheap._team_translate_pe(src_team, pe, dest_team)
