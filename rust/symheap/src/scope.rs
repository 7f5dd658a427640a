//! Non-blocking operations: puts and gets completed by `sym_quiet`, and
//! non-blocking collectives completed by `sym_wait`, inside a scope.
//!
//! The library reads a non-blocking put's source and writes a get's or a
//! collective's destination after the call returned, until the operation
//! completes.  A handle that the caller could forget (`mem::forget`) cannot
//! keep those buffers borrowed, so, as `std::thread::scope` does for
//! threads, the buffers are borrowed for a scope whose end completes every
//! operation started in it: `Symheap::scope` returns only after waiting for
//! every request and a quiet.  Requests may be waited (or tested) inside
//! the scope to use their results early.
//!
//! What the library writes besides the buffers while a request runs
//! (`sym_ibroadcast_v`'s length) lives in the scope too, so it outlives
//! every request; the request hands it over once complete.

use std::cell::{Cell, RefCell};
use std::marker::PhantomData;
use std::os::raw::{c_int, c_void};
use std::rc::Rc;

use bytemuck::Pod;
use symheap_sys as sys;

use crate::error::{check, Error, Result};
use crate::mem::{SymRef, SymVec};
use crate::runtime::{Symheap, ThreadLevel};
use crate::team::{broadcast_v_outcome, same_len, sum, Team};
use crate::types::{CollOpts, Element, Op, SignalOp};

/// Operations started inside [`Symheap::scope`]; see the module docs.
pub struct Scope<'scope, 'env: 'scope, L: ThreadLevel> {
    sym: &'env Symheap<L>,
    /// Every request started in the scope, by slot.
    pending: RefCell<Vec<Slot>>,
    /// A non-blocking put was started (the end needs a quiet).
    puts: Cell<bool>,
    /// A non-blocking get was started (a failed quiet cannot be returned).
    gets: Cell<bool>,
    _scope: PhantomData<&'scope mut &'scope ()>,
    _env: PhantomData<&'env mut &'env ()>,
}

/// A non-blocking collective in flight.  Wait for it ([`Request::wait`])
/// to use its result inside the scope; one that is dropped unwaited is
/// waited for by the end of its scope, which returns its error.
///
/// `O` is what the collective gives back besides its status: nothing for
/// most, the length in bytes for [`Scope::ibroadcast_v`].
#[must_use = "a request is complete only once waited on; its scope waits for it at the latest"]
pub struct Request<'scope, O = ()> {
    slot: usize,
    pending: &'scope RefCell<Vec<Slot>>,
    op: &'static str,
    /// The result of the completed request (read from its slot).
    value: fn(&Slot) -> O,
}

/// One request of a scope.
struct Slot {
    /// The library's request; NULL once completed.
    raw: sys::sym_request_t,
    /// `sym_ibroadcast_v`'s length: read (at the root) and written
    /// (elsewhere) by the library while the request runs, through a
    /// pointer taken when it started.  An `Rc` keeps the value at one
    /// address while the vector of slots grows, and the slot keeps it
    /// until the scope ends, after every request completed.  Rust reads
    /// it only once the request completed.
    nbytes: Option<Rc<Cell<usize>>>,
    /// The status of a request that [`Request::test`] completed, for its
    /// later `test` or `wait`.
    done: Option<Result<()>>,
}

impl Slot {
    /// The status `r` of this completed request, where a truncated
    /// `ibroadcast_v` says how many bytes its buffer needs.
    fn outcome(&self, r: Result<()>) -> Result<()> {
        match &self.nbytes {
            Some(n) => broadcast_v_outcome(r, n.get()).map(drop),
            None => r,
        }
    }

    /// `ibroadcast_v`'s length (after completion).
    fn nbytes(&self) -> usize {
        self.nbytes.as_ref().map_or(0, |n| n.get())
    }
}

/// Complete slot `i` of `pending` if it is still running (`sym_wait`) and
/// return its status; `None` for a slot a [`Request::test`] completed.
fn wait_slot(pending: &RefCell<Vec<Slot>>, i: usize) -> Option<Result<()>> {
    let mut raw = std::mem::replace(&mut pending.borrow_mut()[i].raw, sys::SYM_REQUEST_NULL);
    if raw.is_null() {
        return None;
    }
    // SAFETY: a live request of this scope, waited once (its slot is
    // cleared first); its buffers, and its length for ibroadcast_v, are
    // borrowed or held until the scope ends, which has not happened yet.
    let st = unsafe { sys::sym_wait(&mut raw) };
    Some(pending.borrow()[i].outcome(check(st)))
}

impl<L: ThreadLevel> Symheap<L> {
    /// Run `f` with a [`Scope`] in which non-blocking puts, gets and
    /// collectives borrow their buffers; return once every one of them has
    /// completed.  The result is `f`'s, or else the first error of a
    /// request left for the end, or of the quiet.
    ///
    /// A quiet that fails after a non-blocking get aborts the process
    /// (after printing the error): the transport may still write into the
    /// get's buffer (`symheap/rma.h`), which would be handed back to
    /// safe code.  Over shared memory a quiet does not fail.
    pub fn scope<'env, R, F>(&'env self, f: F) -> Result<R>
    where
        F: for<'scope> FnOnce(&'scope Scope<'scope, 'env, L>) -> Result<R>,
    {
        let scope = Scope {
            sym: self,
            pending: RefCell::new(Vec::new()),
            puts: Cell::new(false),
            gets: Cell::new(false),
            _scope: PhantomData,
            _env: PhantomData,
        };
        // The guard completes everything even if f panics.
        let guard = Finish { scope: &scope, done: false };
        let r = f(&scope);
        let end = guard.finish();
        match (r, end) {
            (Err(e), _) => Err(e),
            (Ok(_), Err(e)) => Err(e),
            (Ok(v), Ok(())) => Ok(v),
        }
    }
}

struct Finish<'a, 'scope, 'env, L: ThreadLevel> {
    scope: &'a Scope<'scope, 'env, L>,
    done: bool,
}

impl<L: ThreadLevel> Finish<'_, '_, '_, L> {
    fn finish(mut self) -> Result<()> {
        self.done = true;
        self.scope.complete()
    }
}

impl<L: ThreadLevel> Drop for Finish<'_, '_, '_, L> {
    fn drop(&mut self) {
        if !self.done {
            let _ = self.scope.complete();
        }
    }
}

impl<'scope, 'env, L: ThreadLevel> Scope<'scope, 'env, L> {
    /// Wait for every pending request, then quiet: the end of the scope.
    fn complete(&self) -> Result<()> {
        let mut first: Result<()> = Ok(());
        let n = self.pending.borrow().len();
        for i in 0..n {
            // A request that test completed returned its status already.
            if let Some(r) = wait_slot(&self.pending, i) {
                if first.is_ok() {
                    first = r;
                }
            }
        }
        if self.puts.get() || self.gets.get() {
            let q = self.sym.quiet();
            if let Err(e) = &q {
                if self.gets.get() {
                    eprintln!(
                        "symheap: PE {}: completing non-blocking gets failed ({}); their buffers \
                         may still be written: aborting",
                        self.sym.my_pe(),
                        e
                    );
                    std::process::abort();
                }
            }
            if first.is_ok() {
                first = q;
            }
        }
        first
    }

    /// The handle.
    pub fn symheap(&self) -> &'env Symheap<L> {
        self.sym
    }

    /// Start copying `src` into elements `offset ..` of `dest` on `pe`
    /// (`sym_put_nbi`); complete at the end of the scope or at a
    /// [`Symheap::quiet`].
    pub fn put<T: Pod>(
        &'scope self,
        dest: &'scope SymVec<'env, T, L>,
        offset: usize,
        src: &'scope [T],
        pe: usize,
    ) -> Result<()> {
        let (d, n) = dest.range(offset, src.len(), "Scope::put")?;
        let pe = self.sym.pe(pe, "Scope::put")?;
        if n == 0 {
            return Ok(());
        }
        self.puts.set(true);
        // SAFETY: d..d+n in the live object dest, src n readable bytes;
        // both stay borrowed until the scope's quiet completes the put.
        check(unsafe { sys::sym_put_nbi(d as *mut c_void, src.as_ptr() as *const c_void, n, pe) })
    }

    /// Start copying elements `offset ..` of `src` on `pe` into `dst`
    /// (`sym_get_nbi`); `dst` is final at the end of the scope (it stays
    /// borrowed until then).
    pub fn get<T: Pod>(
        &'scope self,
        dst: &'scope mut [T],
        src: &'scope SymVec<'env, T, L>,
        offset: usize,
        pe: usize,
    ) -> Result<()> {
        let (s, n) = src.range(offset, dst.len(), "Scope::get")?;
        let pe = self.sym.pe(pe, "Scope::get")?;
        if n == 0 {
            return Ok(());
        }
        self.gets.set(true);
        // SAFETY: s..s+n in the live object src, dst n writable bytes,
        // exclusively borrowed until the scope's quiet; any bytes are a
        // valid T (Pod).
        check(unsafe { sys::sym_get_nbi(dst.as_mut_ptr() as *mut c_void, s as *const c_void, n, pe) })
    }

    /// Start putting `src` into elements `offset ..` of `dest` on `pe`,
    /// then updating the signal word `sig` on that PE with `op` and
    /// `signal` (`sym_put_signal_nbi`): a PE that sees the signal change
    /// may read the data.  Complete, and `src` free, at the end of the
    /// scope or at a [`Symheap::quiet`]; `src`, `dest` and `sig` stay
    /// borrowed until the scope ends.  Errors as [`Symheap::put_signal`].
    #[allow(clippy::too_many_arguments)]
    pub fn put_signal<T: Pod>(
        &'scope self,
        dest: &'scope SymVec<'env, T, L>,
        offset: usize,
        src: &'scope [T],
        sig: impl Into<SymRef<'scope, u64>>,
        signal: u64,
        op: SignalOp,
        pe: usize,
    ) -> Result<()> {
        let sig = sig.into();
        let (d, n, pe) = self.sym.signal_target(dest, offset, src.len(), &sig, pe, "Scope::put_signal")?;
        self.puts.set(true);
        // SAFETY: d..d+n inside the live object dest (or n == 0 with a
        // valid symmetric address), src n readable bytes, sig a live
        // symmetric u64; all three stay borrowed until the scope's quiet
        // completes the put and its signal.
        check(unsafe {
            sys::sym_put_signal_nbi(d, src.as_ptr() as *const c_void, n, sig.ptr, signal, op.raw(), pe)
        })
    }

    /// Register a started request that gives back nothing but its status.
    fn started(
        &'scope self,
        st: sys::sym_status_t,
        raw: sys::sym_request_t,
        op: &'static str,
    ) -> Result<Request<'scope>> {
        self.started_with(st, raw, op, None, |_| ())
    }

    /// Register a started request: the slot keeps `nbytes` (which the
    /// library holds a pointer to, when the call succeeded) until the scope
    /// ends; `value` reads the result from the slot once complete.
    fn started_with<O>(
        &'scope self,
        st: sys::sym_status_t,
        raw: sys::sym_request_t,
        op: &'static str,
        nbytes: Option<Rc<Cell<usize>>>,
        value: fn(&Slot) -> O,
    ) -> Result<Request<'scope, O>> {
        check(st)?;
        let mut p = self.pending.borrow_mut();
        p.push(Slot { raw, nbytes, done: None });
        Ok(Request { slot: p.len() - 1, pending: &self.pending, op, value })
    }

    /// Start a barrier on `team` (`sym_ibarrier`).
    pub fn ibarrier(&'scope self, team: &'scope Team<'env, L>, opts: &CollOpts) -> Result<Request<'scope>> {
        let o = opts.raw();
        let mut r = sys::SYM_REQUEST_NULL;
        let _g = (self.sym.team_read(), self.sym.issue_guard());
        // SAFETY: a live team borrowed for the scope; r an out-pointer.
        let st = unsafe { sys::sym_ibarrier(team.as_raw(), &o, &mut r) };
        self.started(st, r, "ibarrier")
    }

    /// Start a broadcast (`sym_ibroadcast`).
    pub fn ibroadcast<T: Element>(
        &'scope self,
        team: &'scope Team<'env, L>,
        buf: &'scope mut [T],
        root: usize,
        opts: &CollOpts,
    ) -> Result<Request<'scope>> {
        let root = team.root(root, "Scope::ibroadcast")?;
        let o = opts.raw();
        let mut r = sys::SYM_REQUEST_NULL;
        let _g = (self.sym.team_read(), self.sym.issue_guard());
        // SAFETY: buf holds its length of elements, exclusively borrowed
        // until the request completes (at the latest at the scope's end).
        let st = unsafe {
            sys::sym_ibroadcast(
                team.as_raw(),
                buf.as_mut_ptr() as *mut c_void,
                buf.len(),
                T::DATATYPE,
                root,
                &o,
                &mut r,
            )
        };
        self.started(st, r, "ibroadcast")
    }

    /// Start a broadcast that carries its length (`sym_ibroadcast_v`): at
    /// `root` the whole of `buf` is the message; elsewhere `buf` is the
    /// capacity.  The request's [`Request::wait`] returns the message's
    /// length in bytes; a member whose buffer is too small gets
    /// [`Error::Truncated`] with the length needed (from `wait`, `test`
    /// or the scope's end) and nothing in `buf`; the others complete.
    pub fn ibroadcast_v(
        &'scope self,
        team: &'scope Team<'env, L>,
        buf: &'scope mut [u8],
        root: usize,
        opts: &CollOpts,
    ) -> Result<Request<'scope, usize>> {
        let root = team.root(root, "Scope::ibroadcast_v")?;
        let nbytes = Rc::new(Cell::new(buf.len()));
        let o = opts.raw();
        let mut r = sys::SYM_REQUEST_NULL;
        let _g = (self.sym.team_read(), self.sym.issue_guard());
        // SAFETY: buf holds buf.len() bytes, exclusively borrowed until the
        // request completes; the library writes at most that many.  The
        // length's cell is read and written through this pointer until
        // then, and the slot keeps it (at one address) until the scope
        // ends; Rust reads it only after completion.
        let st = unsafe {
            sys::sym_ibroadcast_v(
                team.as_raw(),
                buf.as_mut_ptr() as *mut c_void,
                buf.len(),
                nbytes.as_ptr(),
                root,
                &o,
                &mut r,
            )
        };
        self.started_with(st, r, "ibroadcast_v", Some(nbytes), Slot::nbytes)
    }

    /// Start an allreduce (`sym_iallreduce`).
    pub fn iallreduce<T: Element>(
        &'scope self,
        team: &'scope Team<'env, L>,
        dst: &'scope mut [T],
        src: &'scope [T],
        op: Op,
        opts: &CollOpts,
    ) -> Result<Request<'scope>> {
        same_len("Scope::iallreduce: dst", dst.len(), src.len())?;
        let o = opts.raw();
        let mut r = sys::SYM_REQUEST_NULL;
        let _g = (self.sym.team_read(), self.sym.issue_guard());
        // SAFETY: both hold src.len() elements, borrowed (dst exclusively)
        // until the request completes.
        let st = unsafe {
            sys::sym_iallreduce(
                team.as_raw(),
                dst.as_mut_ptr() as *mut c_void,
                src.as_ptr() as *const c_void,
                src.len(),
                T::DATATYPE,
                op.raw(),
                &o,
                &mut r,
            )
        };
        self.started(st, r, "iallreduce")
    }

    /// Start a reduce to `root` (`sym_ireduce`); `dst` is used at the root.
    #[allow(clippy::too_many_arguments)]
    pub fn ireduce<T: Element>(
        &'scope self,
        team: &'scope Team<'env, L>,
        dst: &'scope mut [T],
        src: &'scope [T],
        op: Op,
        root: usize,
        opts: &CollOpts,
    ) -> Result<Request<'scope>> {
        let root_c = team.root(root, "Scope::ireduce")?;
        let d = if team.my_pe() == root {
            same_len("Scope::ireduce: dst at the root", dst.len(), src.len())?;
            dst.as_mut_ptr() as *mut c_void
        } else {
            std::ptr::null_mut()
        };
        let o = opts.raw();
        let mut r = sys::SYM_REQUEST_NULL;
        let _g = (self.sym.team_read(), self.sym.issue_guard());
        // SAFETY: as iallreduce; dst only at the root.
        let st = unsafe {
            sys::sym_ireduce(
                team.as_raw(),
                d,
                src.as_ptr() as *const c_void,
                src.len(),
                T::DATATYPE,
                op.raw(),
                root_c,
                &o,
                &mut r,
            )
        };
        self.started(st, r, "ireduce")
    }

    /// Start a reduce-scatter (`sym_ireduce_scatter`).
    pub fn ireduce_scatter<T: Element>(
        &'scope self,
        team: &'scope Team<'env, L>,
        dst: &'scope mut [T],
        src: &'scope [T],
        op: Op,
        opts: &CollOpts,
    ) -> Result<Request<'scope>> {
        team.blocks("Scope::ireduce_scatter: src", src.len(), dst.len())?;
        let o = opts.raw();
        let mut r = sys::SYM_REQUEST_NULL;
        let _g = (self.sym.team_read(), self.sym.issue_guard());
        // SAFETY: dst holds n, src n * members (checked); borrowed until done.
        let st = unsafe {
            sys::sym_ireduce_scatter(
                team.as_raw(),
                dst.as_mut_ptr() as *mut c_void,
                src.as_ptr() as *const c_void,
                dst.len(),
                T::DATATYPE,
                op.raw(),
                &o,
                &mut r,
            )
        };
        self.started(st, r, "ireduce_scatter")
    }

    /// Start an all-gather (`sym_iall_gather`).
    pub fn iall_gather<T: Element>(
        &'scope self,
        team: &'scope Team<'env, L>,
        dst: &'scope mut [T],
        src: &'scope [T],
        opts: &CollOpts,
    ) -> Result<Request<'scope>> {
        team.blocks("Scope::iall_gather: dst", dst.len(), src.len())?;
        let o = opts.raw();
        let mut r = sys::SYM_REQUEST_NULL;
        let _g = (self.sym.team_read(), self.sym.issue_guard());
        // SAFETY: src holds n, dst n * members (checked); borrowed until done.
        let st = unsafe {
            sys::sym_iall_gather(
                team.as_raw(),
                dst.as_mut_ptr() as *mut c_void,
                src.as_ptr() as *const c_void,
                src.len(),
                T::DATATYPE,
                &o,
                &mut r,
            )
        };
        self.started(st, r, "iall_gather")
    }

    /// Start an uneven all-gather (`sym_iall_gatherv`; `counts` is copied).
    pub fn iall_gatherv<T: Element>(
        &'scope self,
        team: &'scope Team<'env, L>,
        dst: &'scope mut [T],
        src: &'scope [T],
        counts: &[usize],
        opts: &CollOpts,
    ) -> Result<Request<'scope>> {
        same_len("Scope::iall_gatherv: counts (one per member)", counts.len(), team.n_pes())?;
        same_len("Scope::iall_gatherv: src (counts[my_pe])", src.len(), counts[team.my_pe()])?;
        same_len("Scope::iall_gatherv: dst (sum of counts)", dst.len(), sum(counts)?)?;
        let o = opts.raw();
        let mut r = sys::SYM_REQUEST_NULL;
        let _g = (self.sym.team_read(), self.sym.issue_guard());
        // SAFETY: as all_gatherv; the library copies counts.
        let st = unsafe {
            sys::sym_iall_gatherv(
                team.as_raw(),
                dst.as_mut_ptr() as *mut c_void,
                src.as_ptr() as *const c_void,
                counts.as_ptr(),
                T::DATATYPE,
                &o,
                &mut r,
            )
        };
        self.started(st, r, "iall_gatherv")
    }

    /// Start an all-to-all (`sym_iall_to_all`).
    pub fn iall_to_all<T: Element>(
        &'scope self,
        team: &'scope Team<'env, L>,
        dst: &'scope mut [T],
        src: &'scope [T],
        opts: &CollOpts,
    ) -> Result<Request<'scope>> {
        same_len("Scope::iall_to_all: dst", dst.len(), src.len())?;
        let n = team.n_pes();
        if n == 0 || src.len() % n != 0 {
            return Err(Error::InvalidArg(format!(
                "Scope::iall_to_all: {} elements are not {} equal blocks",
                src.len(),
                n
            )));
        }
        let o = opts.raw();
        let mut r = sys::SYM_REQUEST_NULL;
        let _g = (self.sym.team_read(), self.sym.issue_guard());
        // SAFETY: both hold count * members elements; borrowed until done.
        let st = unsafe {
            sys::sym_iall_to_all(
                team.as_raw(),
                dst.as_mut_ptr() as *mut c_void,
                src.as_ptr() as *const c_void,
                src.len() / n,
                T::DATATYPE,
                &o,
                &mut r,
            )
        };
        self.started(st, r, "iall_to_all")
    }

    /// Start an uneven all-to-all (`sym_iall_to_allv`; the counts are
    /// copied): `send_counts[j]` elements of `src` go to member j,
    /// `recv_counts[i]` elements from member i land in `dst`.
    pub fn iall_to_allv<T: Element>(
        &'scope self,
        team: &'scope Team<'env, L>,
        src: &'scope [T],
        send_counts: &[usize],
        dst: &'scope mut [T],
        recv_counts: &[usize],
        opts: &CollOpts,
    ) -> Result<Request<'scope>> {
        team.to_allv("Scope::iall_to_allv", src.len(), send_counts, dst.len(), recv_counts)?;
        let o = opts.raw();
        let mut r = sys::SYM_REQUEST_NULL;
        let _g = (self.sym.team_read(), self.sym.issue_guard());
        // SAFETY: the counts have one entry per member (the library copies
        // them); src and dst hold their sums (checked), which bound what is
        // read and written; both borrowed (dst exclusively) until done.
        let st = unsafe {
            sys::sym_iall_to_allv(
                team.as_raw(),
                src.as_ptr() as *const c_void,
                send_counts.as_ptr(),
                dst.as_mut_ptr() as *mut c_void,
                recv_counts.as_ptr(),
                T::DATATYPE,
                &o,
                &mut r,
            )
        };
        self.started(st, r, "iall_to_allv")
    }

    /// Start a gather to `root` (`sym_igather`); `dst` is used at the root.
    pub fn igather<T: Element>(
        &'scope self,
        team: &'scope Team<'env, L>,
        dst: &'scope mut [T],
        src: &'scope [T],
        root: usize,
        opts: &CollOpts,
    ) -> Result<Request<'scope>> {
        let root_c = team.root(root, "Scope::igather")?;
        let d = if team.my_pe() == root {
            team.blocks("Scope::igather: dst at the root", dst.len(), src.len())?;
            dst.as_mut_ptr() as *mut c_void
        } else {
            std::ptr::null_mut()
        };
        let o = opts.raw();
        let mut r = sys::SYM_REQUEST_NULL;
        let _g = (self.sym.team_read(), self.sym.issue_guard());
        // SAFETY: as gather; borrowed until done.
        let st = unsafe {
            sys::sym_igather(
                team.as_raw(),
                d,
                src.as_ptr() as *const c_void,
                src.len(),
                T::DATATYPE,
                root_c as c_int,
                &o,
                &mut r,
            )
        };
        self.started(st, r, "igather")
    }

    /// Start a scatter from `root` (`sym_iscatter`); `src` is used at the
    /// root.
    pub fn iscatter<T: Element>(
        &'scope self,
        team: &'scope Team<'env, L>,
        dst: &'scope mut [T],
        src: &'scope [T],
        root: usize,
        opts: &CollOpts,
    ) -> Result<Request<'scope>> {
        let root_c = team.root(root, "Scope::iscatter")?;
        let s = if team.my_pe() == root {
            team.blocks("Scope::iscatter: src at the root", src.len(), dst.len())?;
            src.as_ptr() as *const c_void
        } else {
            std::ptr::null()
        };
        let o = opts.raw();
        let mut r = sys::SYM_REQUEST_NULL;
        let _g = (self.sym.team_read(), self.sym.issue_guard());
        // SAFETY: as scatter; borrowed until done.
        let st = unsafe {
            sys::sym_iscatter(
                team.as_raw(),
                dst.as_mut_ptr() as *mut c_void,
                s,
                dst.len(),
                T::DATATYPE,
                root_c,
                &o,
                &mut r,
            )
        };
        self.started(st, r, "iscatter")
    }
}

impl<'scope, O> Request<'scope, O> {
    /// Complete the collective (`sym_wait`) and return its status and
    /// result (for [`Scope::ibroadcast_v`] the length); after a
    /// [`Request::test`] that completed it, the same status.
    pub fn wait(self) -> Result<O> {
        let r = match wait_slot(self.pending, self.slot) {
            Some(r) => r,
            None => self.pending.borrow_mut()[self.slot].done.take().unwrap_or(Ok(())),
        };
        r.map(|()| (self.value)(&self.pending.borrow()[self.slot]))
    }

    /// Make progress; `Ok(true)` (and the request is complete) once the
    /// collective finished, `Ok(false)` while it runs (`sym_test`).  A
    /// completed request's result is its [`Request::wait`]'s, at once.
    pub fn test(&mut self) -> Result<bool> {
        let mut p = self.pending.borrow_mut();
        let slot = &mut p[self.slot];
        if slot.raw.is_null() {
            return slot.done.clone().unwrap_or(Ok(())).map(|()| true);
        }
        let mut done: c_int = 0;
        // SAFETY: a live request; on completion the library frees it and
        // sets the slot to NULL, so it is never waited twice.
        let r = check(unsafe { sys::sym_test(&mut slot.raw, &mut done) });
        if done == 0 {
            return r.map(|()| false);
        }
        slot.raw = sys::SYM_REQUEST_NULL;
        let r = slot.outcome(r);
        slot.done = Some(r.clone());
        r.map(|()| true)
    }

    /// The collective's name ("iallreduce").
    pub fn op(&self) -> &'static str {
        self.op
    }
}

impl<O> std::fmt::Debug for Request<'_, O> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Request").field("op", &self.op).field("slot", &self.slot).finish()
    }
}
