//! The handle: joining and leaving the job, thread levels, queries, and the
//! locks that serialise what the C library leaves to its caller.

use std::cell::Cell;
use std::marker::PhantomData;
use std::os::raw::c_int;
use std::sync::{Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};

use symheap_sys as sys;

use crate::error::{check, Error, Result};
use crate::team::Team;

mod sealed {
    pub trait Sealed {}
}

/// A thread level: a marker type that decides, at compile time, which
/// threads may use a [`Symheap`] and the objects borrowed from it.
///
/// | level | C level | the handle is |
/// | --- | --- | --- |
/// | [`Funneled`] | `SYM_THREAD_FUNNELED` | neither `Send` nor `Sync`: only the thread that made it uses it |
/// | [`Serialized`] | `SYM_THREAD_SERIALIZED` | `Send`: it may move to another thread, one thread uses it at a time |
/// | [`Multiple`] | `SYM_THREAD_MULTIPLE` | `Send + Sync`: threads share it (`std::thread::scope`) |
///
/// There is no `SYM_THREAD_SINGLE` level: it promises that the process has
/// one thread, which a Rust library cannot know; `Funneled` is what a
/// handle that never leaves its thread needs.
pub trait ThreadLevel: sealed::Sealed + 'static {
    /// The `sym_thread_level_t` value.
    const LEVEL: c_int;
}

/// Only the thread that initialised symheap calls it.
#[derive(Debug)]
pub struct Funneled(PhantomData<*const ()>);
/// Any thread, one at a time.
#[derive(Debug)]
pub struct Serialized(PhantomData<Cell<()>>);
/// Any threads at once.
#[derive(Debug)]
pub struct Multiple;

impl sealed::Sealed for Funneled {}
impl sealed::Sealed for Serialized {}
impl sealed::Sealed for Multiple {}
impl ThreadLevel for Funneled {
    const LEVEL: c_int = sys::SYM_THREAD_FUNNELED as c_int;
}
impl ThreadLevel for Serialized {
    const LEVEL: c_int = sys::SYM_THREAD_SERIALIZED as c_int;
}
impl ThreadLevel for Multiple {
    const LEVEL: c_int = sys::SYM_THREAD_MULTIPLE as c_int;
}

/// This PE's membership of a symheap job.  Dropping it finalizes the
/// library (`sym_finalize`, collective over every PE); [`Symheap::finalize`]
/// does the same and returns its status.
///
/// Everything made from the handle (symmetric memory, teams, scopes of
/// non-blocking operations) borrows it, so none of it can outlive the
/// finalize.  The thread level `L` decides whether the handle is `Send` and
/// `Sync` (see [`ThreadLevel`]).
///
/// ```no_run
/// use symheap::{Op, Symheap};
/// let sym = Symheap::init()?;
/// let world = sym.world();
/// let grad = vec![1.0f32; 1000];
/// let mut sum = vec![0.0f32; 1000];
/// world.allreduce(&mut sum, &grad, Op::Sum, &Default::default())?;
/// assert!(sum.iter().all(|&x| x == sym.n_pes() as f32));
/// # Ok::<(), symheap::Error>(())
/// ```
pub struct Symheap<L: ThreadLevel = Funneled> {
    me: usize,
    npes: usize,
    /// Symmetric allocation and freeing (collective, caller-serialised).
    pub(crate) alloc_lock: Mutex<()>,
    /// Read by every call on a team, written by team creation, recovery
    /// and destruction, which the caller must serialise with every other
    /// call on the parent and on the team.
    pub(crate) team_lock: RwLock<()>,
    /// Issuing non-blocking collectives (one thread at a time per team).
    pub(crate) issue_lock: Mutex<()>,
    /// Point-to-point calls (one at a time per PE).
    pub(crate) p2p_lock: Mutex<()>,
    finalized: bool,
    _level: PhantomData<L>,
}

// Send and Sync follow from the marker: the handle's own fields are plain
// numbers and std locks (Send + Sync), and `PhantomData<L>` gives it L's
// auto traits.  That matches the C library's rules: at
// SYM_THREAD_SERIALIZED any thread may call symheap, one at a time, so the
// handle may move (Send) but not be shared (no Sync); at
// SYM_THREAD_MULTIPLE threads may call at once (Send + Sync), and the calls
// the library leaves to its caller to serialise (allocation, team creation
// and destruction, issuing non-blocking collectives, point-to-point calls)
// take the locks above; Funneled holds a raw pointer: neither.

impl Symheap<Funneled> {
    /// Join the job (`sym_init_thread(SYM_THREAD_FUNNELED)`): started by
    /// `symrun`, by a PMIx launcher (mpirun, srun), through the TCP
    /// rendezvous, or alone as PE 0 of 1.  Collective over every PE.
    ///
    /// Errors: those of `sym_init` ([`Error::AlreadyInitialized`] while
    /// another handle is alive, [`Error::Config`], [`Error::Bootstrap`],
    /// [`Error::Timeout`], ...), and [`Error::InvalidArg`] when other
    /// threads are running and the executable's global variables would be
    /// remapped (see [`Symheap::init_thread`]).
    pub fn init() -> Result<Symheap<Funneled>> {
        Symheap::<Funneled>::init_thread()
    }
}

impl<L: ThreadLevel> Symheap<L> {
    /// Join the job at thread level `L`:
    /// `Symheap::<symheap::Multiple>::init_thread()`.
    ///
    /// `sym_init` makes the executable's global and static variables
    /// symmetric by remapping its data segment onto shared memory
    /// (`SYMHEAP_GLOBALS=auto|remap`); a write another thread made to a
    /// global variable meanwhile (a lock of the standard library, say)
    /// could be lost.  So this fails with [`Error::InvalidArg`] when the
    /// process runs other threads, unless `SYMHEAP_GLOBALS` is `cma` or
    /// `off` (nothing of the crate uses global variables as symmetric
    /// objects).  Start threads after this call.
    pub fn init_thread() -> Result<Symheap<L>> {
        check_single_threaded()?;
        let mut provided: c_int = -1;
        // SAFETY: no other thread runs (checked above) or the data segment
        // is not remapped; `provided` is a valid out-pointer.  A second
        // handle cannot exist: the library refuses a second init.
        check(unsafe { sys::sym_init_thread(L::LEVEL, &mut provided) })?;
        if provided < L::LEVEL {
            // SAFETY: the library was initialised just above, by us.
            unsafe { sys::sym_finalize() };
            return Err(Error::Unavailable(format!(
                "Symheap::init_thread: thread level {} requested, the library provides {}",
                L::LEVEL,
                provided
            )));
        }
        // SAFETY: initialised: the queries return this PE's number and the
        // job's size, both >= 0.
        let (me, npes) = unsafe { (sys::sym_my_pe(), sys::sym_n_pes()) };
        Ok(Symheap {
            me: me as usize,
            npes: npes as usize,
            alloc_lock: Mutex::new(()),
            team_lock: RwLock::new(()),
            issue_lock: Mutex::new(()),
            p2p_lock: Mutex::new(()),
            finalized: false,
            _level: PhantomData,
        })
    }

    /// Finalize (`sym_finalize`, collective) and return its status: a
    /// finalize that met a peer's barrier, collective or allocation, or a
    /// dead peer, is an error.  Dropping the handle does the same and
    /// ignores the status.
    pub fn finalize(mut self) -> Result<()> {
        self.finalized = true;
        // SAFETY: the handle owns the initialisation and is consumed here
        // (Drop sees `finalized` and does not finalize again); nothing
        // borrowed from it is alive, or self could not be moved in.
        check(unsafe { sys::sym_finalize() })
    }

    /// This PE's number, 0 .. n_pes() - 1.
    pub fn my_pe(&self) -> usize {
        self.me
    }

    /// The number of PEs in the job.
    pub fn n_pes(&self) -> usize {
        self.npes
    }

    /// The thread level in force (a `sym_thread_level_t` value).
    pub fn thread_level(&self) -> i32 {
        // SAFETY: a query, thread-safe.
        unsafe { sys::sym_thread_level() }
    }

    /// The team of every PE (`sym_team_world`); local numbers are global
    /// numbers.  It is never destroyed.
    pub fn world(&self) -> Team<'_, L> {
        // SAFETY: initialised: the world team handle is valid until
        // finalize, which the borrow outlives.
        Team::world(self, unsafe { sys::sym_team_world() })
    }

    /// Complete every outstanding put, get, atomic and signal of this PE
    /// (`sym_quiet`).
    pub fn quiet(&self) -> Result<()> {
        // SAFETY: no arguments; thread-safe.
        check(unsafe { sys::sym_quiet() })
    }

    /// Order this PE's puts, atomics and signals to each target
    /// (`sym_fence`).
    pub fn fence(&self) -> Result<()> {
        // SAFETY: no arguments; thread-safe.
        check(unsafe { sys::sym_fence() })
    }

    /// Complete this PE's operations, then wait for every PE
    /// (`sym_barrier_all`).
    pub fn barrier_all(&self) -> Result<()> {
        let _g = self.alloc_guard();
        // SAFETY: no arguments.  The world barrier carries the fingerprints
        // of allocation calls, so it is serialised with them.
        check(unsafe { sys::sym_barrier_all() })
    }

    /// Wait for every PE without completing outstanding operations
    /// (`sym_sync_all`).
    pub fn sync_all(&self) -> Result<()> {
        let _g = self.alloc_guard();
        // SAFETY: as barrier_all.
        check(unsafe { sys::sym_sync_all() })
    }

    /// One progress pass of the transports that need this PE's calls
    /// (`sym_make_progress`).
    pub fn make_progress(&self) {
        // SAFETY: no arguments; thread-safe.
        unsafe { sys::sym_make_progress() }
    }

    /// Symmetric heap bytes still free and the largest block
    /// (`sym_heap_free`).
    pub fn heap_free(&self) -> Result<(usize, usize)> {
        let (mut free, mut largest) = (0usize, 0usize);
        let _g = self.alloc_guard();
        // SAFETY: two valid out-pointers; serialised with allocation.
        check(unsafe { sys::sym_heap_free(&mut free, &mut largest) })?;
        Ok((free, largest))
    }

    /// `pe` as a C int, checked against the job's size.
    pub(crate) fn pe(&self, pe: usize, what: &str) -> Result<c_int> {
        if pe >= self.npes {
            return Err(Error::InvalidPe(format!(
                "{}: PE {} out of range (job has {} PEs)",
                what, pe, self.npes
            )));
        }
        Ok(pe as c_int)
    }

    pub(crate) fn alloc_guard(&self) -> MutexGuard<'_, ()> {
        self.alloc_lock.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn team_read(&self) -> RwLockReadGuard<'_, ()> {
        self.team_lock.read().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn team_write(&self) -> RwLockWriteGuard<'_, ()> {
        self.team_lock.write().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn issue_guard(&self) -> MutexGuard<'_, ()> {
        self.issue_lock.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn p2p_guard(&self) -> MutexGuard<'_, ()> {
        self.p2p_lock.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl<L: ThreadLevel> Drop for Symheap<L> {
    fn drop(&mut self) {
        // A PE that unwinds from a panic leaves without the collective
        // finalize: its peers are not in one, and would make it wait out the
        // timeout; they learn of the lost PE within about a second instead.
        if self.finalized || std::thread::panicking() {
            return;
        }
        // SAFETY: the handle owns the initialisation; nothing borrowed from
        // it is alive (the borrow checker ends every borrow before drop).
        unsafe { sys::sym_finalize() };
    }
}

impl<L: ThreadLevel> std::fmt::Debug for Symheap<L> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Symheap")
            .field("my_pe", &self.me)
            .field("n_pes", &self.npes)
            .field("level", &L::LEVEL)
            .finish()
    }
}

/// `Err` when other threads run and `sym_init` would remap the data
/// segment under them.
fn check_single_threaded() -> Result<()> {
    let globals = std::env::var("SYMHEAP_GLOBALS").unwrap_or_default();
    if globals == "cma" || globals == "off" {
        return Ok(());
    }
    let threads = std::fs::read_dir("/proc/self/task").map(|d| d.count()).unwrap_or(1);
    if threads > 1 {
        return Err(Error::invalid_arg(format!(
            "Symheap::init: {} threads are running, and initialising remaps the executable's \
             global variables under them: initialise before starting threads, or set \
             SYMHEAP_GLOBALS=cma (or off)",
            threads
        )));
    }
    Ok(())
}
