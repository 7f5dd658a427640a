"""The torch.distributed backend "symheap".

    import torch, torch.distributed as dist
    import symheap.torch                      # registers the backend
    dist.init_process_group("symheap")        # torchrun, symrun, mpirun, srun

One symheap job per process: the first group created in a process starts
it (sym_init); it lasts until the interpreter exits (sym_finalize at exit).
A later init_process_group after destroy_process_group reuses the running
job when its rank and world size match (else it raises).

destroy_process_group(group) destroys that group's symheap team (collective
over the group's ranks, as torch has every member call it);
destroy_process_group() destroys the default group and every symheap group,
collectively over all ranks, and readies the next init_process_group:
torch's group numbering goes on instead of restarting at 0 (torchrun's
store outlives the group, and torch 1.13 names its store keys by that
number: a restarted numbering found the first group's keys there and waited
for ever), and under symrun or a PMIx launcher rank 0 picks a new
MASTER_PORT for the next group's store.

How the job starts:
- under torchrun (or RANK/WORLD_SIZE/MASTER_ADDR/MASTER_PORT set by hand),
  through the c10d Store torch gives the backend, the job's trust anchor as
  it is torch's: rank 0 draws a random job secret (32 bytes, os.urandom) and
  a free port on MASTER_ADDR, publishes both in the store, and every rank
  sets SYMHEAP_BOOTSTRAP=tcp, SYMHEAP_RANK, SYMHEAP_SIZE, SYMHEAP_ROOT_ADDR
  and SYMHEAP_JOB_SECRET before sym_init;
- under symrun, or a PMIx launcher (mpirun, srun --mpi=pmix), with the
  library's own bootstrap: importing this module then joins the job at once
  and, unless they are set already, sets RANK, WORLD_SIZE, LOCAL_RANK,
  MASTER_ADDR and MASTER_PORT (rank 0's free port, broadcast through
  symheap) so that env:// needs nothing else.

Sub-groups (dist.new_group) are symheap teams made by sym_team_create over
the world, which every process of the job calls: this module wraps
dist.new_group (as torch requires, every process calls it) so that the team
exists before torch creates the group on its members, and
dist.destroy_process_group so that the team goes with the group.  (Code
that took those functions from torch.distributed before importing this
module calls torch's own.)

The init_process_group (or new_group) timeout bounds every operation of the
group; SYMHEAP_TIMEOUT (unless set) becomes that timeout too, which bounds
the library's own waits (point-to-point messages, finalize).
"""

import atexit
import datetime
import os
import socket

import torch  # noqa: F401  (the c10d types must be registered first)
import torch.distributed as dist
import torch.distributed.distributed_c10d as _c10d

from . import _symheap, _torch_backend

ProcessGroupSymheap = _torch_backend.ProcessGroupSymheap
BACKEND = "symheap"

_pending_teams = {}  # tuple(global ranks) -> team handle, made by new_group
_groups = {}  # the live ProcessGroupSymheap objects, in creation order
_finalize_registered = False
_own_master_port = False  # MASTER_PORT was set here (symrun, PMIx)


def _launcher():
    """symrun, pmix or None (torch's rendezvous then provides the store)."""
    if os.environ.get("SYMHEAP_SYMRUN_FD"):
        return "symrun"
    if os.environ.get("PMIX_NAMESPACE"):
        return "pmix"
    return None


def _finalize():
    if _symheap.initialized():
        try:
            _symheap.finalize()
        except Exception as e:  # noqa: BLE001  (at exit: report, do not mask)
            print(f"symheap: finalize at exit: {e}", flush=True)


def _start_job(store=None, rank=None, size=None, timeout_s=None):
    """sym_init once per process; through the store when no launcher runs."""
    global _finalize_registered
    if _symheap.initialized():
        return
    if timeout_s is not None and "SYMHEAP_TIMEOUT" not in os.environ:
        os.environ["SYMHEAP_TIMEOUT"] = str(max(1, int(round(timeout_s))))
    if _launcher() is None and store is not None:
        if rank == 0:
            host = os.environ.get("MASTER_ADDR", "127.0.0.1")
            host = socket.getaddrinfo(host, None)[0][4][0]
            family = socket.AF_INET6 if ":" in host else socket.AF_INET
            with socket.socket(family, socket.SOCK_STREAM) as s:
                s.bind((host, 0))
                port = s.getsockname()[1]
            addr = f"[{host}]:{port}" if family == socket.AF_INET6 else f"{host}:{port}"
            store.set("symheap/root_addr", addr)
            store.set("symheap/secret", os.urandom(32).hex())
        addr = store.get("symheap/root_addr").decode()
        secret = store.get("symheap/secret").decode()
        os.environ.update(SYMHEAP_BOOTSTRAP="tcp", SYMHEAP_RANK=str(rank),
                          SYMHEAP_SIZE=str(size), SYMHEAP_ROOT_ADDR=addr,
                          SYMHEAP_JOB_SECRET=secret)
    _symheap.init()
    if not _finalize_registered:
        atexit.register(_finalize)
        _finalize_registered = True


def _create(opts, pg_options=None):
    """The backend's creator (torch's extended API): one ProcessGroupSymheap
    on the world team or the team new_group made for these ranks."""
    timeout_s = opts.timeout.total_seconds() if hasattr(opts.timeout, "total_seconds") \
        else float(opts.timeout)
    ranks = list(opts.global_ranks_in_group)
    if not ranks:  # the default group
        _start_job(opts.store, opts.group_rank, opts.group_size, timeout_s)
        if _symheap.my_pe() != opts.group_rank or _symheap.n_pes() != opts.group_size:
            raise RuntimeError(
                f"symheap: torch's rank {opts.group_rank} of {opts.group_size} is PE "
                f"{_symheap.my_pe()} of {_symheap.n_pes()} in the running symheap job (one job "
                "per process: a new default group must keep the rank and world size)")
        team = _torch_backend.team_world()
    elif len(ranks) == _symheap.n_pes() and ranks == sorted(ranks):
        team = _torch_backend.team_world()
    else:
        team = _pending_teams.pop(tuple(ranks), None)
        if team is None:
            raise RuntimeError(
                f"symheap: no team for group {ranks}: create sub-groups with "
                "torch.distributed.new_group after `import symheap.torch`, on every process")
    pg = ProcessGroupSymheap(opts.group_rank, opts.group_size, team, timeout_s)
    _groups[pg] = None
    return pg


_orig_new_group = _c10d.new_group


def new_group(ranks=None, timeout=_c10d.default_pg_timeout, backend=None, pg_options=None):
    """torch.distributed.new_group; for a symheap group, first the team of its
    ranks (sym_team_create, collective over every process as new_group)."""
    if dist.is_initialized():
        eff = backend if backend is not None else dist.get_backend()
        world = dist.get_world_size()
        if str(eff).lower() == BACKEND and ranks is not None:
            members = sorted(int(r) for r in ranks)
            if members != list(range(world)):
                team = _torch_backend.team_create(members)
                if team:
                    _torch_backend.team_set_timeout(team, timeout.total_seconds())
                    _pending_teams[tuple(members)] = team
    return _orig_new_group(ranks, timeout, backend, pg_options)


_orig_destroy = _c10d.destroy_process_group


def _release(pg):
    _groups.pop(pg, None)
    pg._release()


def destroy_process_group(group=None):
    """torch.distributed.destroy_process_group; a symheap group's team goes
    with it.  For the default group (group None or WORLD): every symheap
    group's team, in creation order, then a world barrier (a rank's store
    of this group is closed before any rank starts the next); collective
    over all ranks then."""
    default = group is None or group is _c10d.GroupMember.WORLD
    if not default:
        _orig_destroy(group)
        if isinstance(group, ProcessGroupSymheap):
            _release(group)
        return
    symheap_default = isinstance(_c10d.GroupMember.WORLD, ProcessGroupSymheap)
    count = _c10d._group_count
    _orig_destroy(group)
    errors = []
    for pg in list(_groups):
        try:
            _release(pg)
        except RuntimeError as e:  # the others are still released
            errors.append(e)
    if symheap_default:
        _c10d._group_count = count
        _next_rendezvous()
    if errors:
        raise errors[0]


def _next_rendezvous():
    """After the default group: every rank is done with its store before
    any starts the next one, and a MASTER_PORT this module chose is
    replaced by a new one (rank 0's old store may outlive its group)."""
    if not _own_master_port:
        _symheap.barrier_all()
        return
    import numpy as np
    port = np.zeros(1, np.int64)
    if _symheap.my_pe() == 0:
        port[0] = _free_port()
    _symheap.broadcast(port, 0)
    _symheap.barrier_all()
    os.environ["MASTER_PORT"] = str(int(port[0]))


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _set_launcher_env():
    """Under symrun or a PMIx launcher: join the job now and give torch's
    env:// what it needs, unless the environment already has it."""
    if _launcher() is None:
        return
    need = [v for v in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")
            if v not in os.environ]
    if not need:
        return
    global _own_master_port
    import numpy as np
    _start_job()
    port = np.zeros(1, np.int64)
    if _symheap.my_pe() == 0:
        port[0] = _free_port()
    _symheap.broadcast(port, 0)
    os.environ.setdefault("RANK", str(_symheap.my_pe()))
    os.environ.setdefault("WORLD_SIZE", str(_symheap.n_pes()))
    os.environ.setdefault("LOCAL_RANK", str(_symheap.my_pe()))
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    if "MASTER_PORT" not in os.environ:
        os.environ["MASTER_PORT"] = str(int(port[0]))
        _own_master_port = True


if BACKEND.upper() not in dist.Backend._plugins:
    dist.Backend.register_backend(BACKEND, _create, extended_api=True)
    dist.new_group = new_group
    _c10d.new_group = new_group
    dist.destroy_process_group = destroy_process_group
    _c10d.destroy_process_group = destroy_process_group
_set_launcher_env()
