//! Teams and their blocking collectives.

use std::ffi::CStr;
use std::os::raw::{c_int, c_void};
use std::ptr;
use std::time::Duration;

use symheap_sys as sys;

use crate::error::{check, Error, Result};
use crate::runtime::{Symheap, ThreadLevel};
use crate::types::{c_int_of, CollOpts, Element, Op};

/// An ordered subset of the job's PEs with its own numbering (0 .. n-1),
/// mailboxes and sequence of collective calls.
///
/// The world team ([`Symheap::world`]) lives as long as the handle; a split
/// team is destroyed when dropped (`sym_team_destroy`, collective over its
/// members: they drop it in the same order), or by [`Team::destroy`],
/// which returns the status.  Every team borrows the handle, so none
/// outlives the finalize.
///
/// Every collective takes slices of an [`Element`] type and checks their
/// lengths against the team's size before calling the library, so nothing
/// is written past a slice: a wrong length is [`Error::InvalidArg`] naming
/// the lengths.  Members must make the same calls in the same order
/// (counts, op, root, algorithm); a disagreement is [`Error::Mismatch`].
pub struct Team<'h, L: ThreadLevel = crate::Funneled> {
    raw: sys::sym_team_t,
    owned: bool,
    sym: &'h Symheap<L>,
}

// SAFETY: a team handle is an opaque pointer the library validates on
// every call (a destroyed one is an error, never a crash); at
// SYM_THREAD_MULTIPLE blocking collectives on one team from several threads
// are serialised by the library's per-team lock, and creation and
// destruction by the handle's team lock (written) against every other call
// on a team (read).  So a Team may be shared by the threads that may share
// its handle.
unsafe impl<L: ThreadLevel> Send for Team<'_, L> where Symheap<L>: Sync {}
unsafe impl<L: ThreadLevel> Sync for Team<'_, L> where Symheap<L>: Sync {}

impl<'h, L: ThreadLevel> Team<'h, L> {
    pub(crate) fn world(sym: &'h Symheap<L>, raw: sys::sym_team_t) -> Self {
        Team { raw, owned: false, sym }
    }

    fn owned(&self, raw: sys::sym_team_t) -> Option<Team<'h, L>> {
        if raw.is_null() {
            None
        } else {
            Some(Team { raw, owned: true, sym: self.sym })
        }
    }

    /// The raw handle, for calls of `symheap-sys`.
    pub fn as_raw(&self) -> sys::sym_team_t {
        self.raw
    }

    /// This PE's number in the team.
    pub fn my_pe(&self) -> usize {
        // SAFETY: a query; the handle is live (the world, or owned and not
        // destroyed: destroy consumes the Team).
        unsafe { sys::sym_team_my_pe(self.raw) }.max(0) as usize
    }

    /// The number of members.
    pub fn n_pes(&self) -> usize {
        // SAFETY: as my_pe.
        unsafe { sys::sym_team_n_pes(self.raw) }.max(0) as usize
    }

    /// A printable name ("world", "team 3").
    pub fn name(&self) -> String {
        // SAFETY: returns a static or team-owned NUL-terminated string,
        // copied at once.
        let p = unsafe { sys::sym_team_name(self.raw) };
        if p.is_null() {
            return String::new();
        }
        // SAFETY: non-NULL and NUL-terminated (above).
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }

    /// The global PE number of each member, in team order.
    pub fn members(&self) -> Result<Vec<usize>> {
        let mut v: Vec<c_int> = vec![0; self.n_pes()];
        // SAFETY: v has room for n_pes() entries, as the call fills.
        check(unsafe { sys::sym_team_members(self.raw, v.as_mut_ptr()) })?;
        Ok(v.into_iter().map(|x| x as usize).collect())
    }

    /// The team number of global PE `pe`, if it is a member.
    pub fn global_to_local(&self, pe: usize) -> Option<usize> {
        let pe = c_int::try_from(pe).ok()?;
        // SAFETY: a query; any number is accepted.
        let r = unsafe { sys::sym_team_global_to_local(self.raw, pe) };
        usize::try_from(r).ok()
    }

    /// The global PE number of team member `pe`.
    pub fn local_to_global(&self, pe: usize) -> Option<usize> {
        let pe = c_int::try_from(pe).ok()?;
        // SAFETY: a query; any number is accepted.
        let r = unsafe { sys::sym_team_local_to_global(self.raw, pe) };
        usize::try_from(r).ok()
    }

    /// The number in `dest` of this team's member `pe`.
    pub fn translate_pe(&self, pe: usize, dest: &Team<'_, L>) -> Option<usize> {
        let pe = c_int::try_from(pe).ok()?;
        // SAFETY: a query on two live handles.
        let r = unsafe { sys::sym_team_translate_pe(self.raw, pe, dest.raw) };
        usize::try_from(r).ok()
    }

    /// Default deadline of the team's collectives (and, for the world
    /// team, of point-to-point calls).
    pub fn set_timeout(&self, timeout: Duration) -> Result<()> {
        let _g = self.sym.team_read();
        // SAFETY: a live handle; the library checks the value.
        check(unsafe { sys::sym_team_set_timeout(self.raw, timeout.as_secs_f64()) })
    }

    /// The deadline in force.
    pub fn timeout(&self) -> Result<Duration> {
        let mut s = 0.0f64;
        // SAFETY: a live handle, an out-pointer.
        check(unsafe { sys::sym_team_get_timeout(self.raw, &mut s) })?;
        Ok(Duration::from_secs_f64(s))
    }

    /// Wait until this PE's data on the team was consumed and every member
    /// finished the calls this PE made; return the team's state
    /// (`sym_team_sync`): how a PE that only sent learns of a mismatch.
    pub fn sync(&self) -> Result<()> {
        let _g = self.sym.team_read();
        // SAFETY: a live handle.
        check(unsafe { sys::sym_team_sync(self.raw) })
    }

    /// Start a new epoch on a broken team (`sym_team_recover`, collective).
    pub fn recover(&self) -> Result<()> {
        let _g = self.sym.team_write();
        // SAFETY: a live handle; serialised with every other team call.
        check(unsafe { sys::sym_team_recover(self.raw) })
    }

    /// Destroy the team now (collective over its members) and return the
    /// status: the error of a collective that failed on another member
    /// after this PE returned from it, if any.  The world team is not
    /// destroyed (Ok).
    pub fn destroy(self) -> Result<()> {
        let me = std::mem::ManuallyDrop::new(self);
        me.release()
    }

    fn release(&self) -> Result<()> {
        if !self.owned {
            return Ok(());
        }
        let _g = self.sym.team_write();
        // SAFETY: an owned, live handle, destroyed once (destroy consumes
        // the Team and skips Drop); serialised with every team call.
        check(unsafe { sys::sym_team_destroy(self.raw) })
    }

    /// The team of the PEs `start, start + stride, ...` (`size` of them,
    /// in this team's numbering), collective over this team; `None` on the
    /// PEs that are not members.
    pub fn split_strided(&self, start: usize, stride: isize, size: usize) -> Result<Option<Team<'h, L>>> {
        let start = c_int_of(start, "Team::split_strided: start")?;
        let stride = c_int::try_from(stride).map_err(|_| {
            Error::InvalidArg(format!("Team::split_strided: stride {} does not fit a C int", stride))
        })?;
        let size = c_int_of(size, "Team::split_strided: size")?;
        let mut t = sys::SYM_TEAM_INVALID;
        let _g = self.sym.team_write();
        // SAFETY: a live parent; t an out-pointer; serialised.
        check(unsafe { sys::sym_team_split_strided(self.raw, start, stride, size, &mut t) })?;
        Ok(self.owned(t))
    }

    /// View this team as rows of `xrange` PEs: this PE's row (x-axis) and
    /// column (y-axis) team (`sym_team_split_2d`; a short last row:
    /// `ragged`, as `sym_team_split_2d_ragged`).  Collective.
    pub fn split_2d(&self, xrange: usize, ragged: bool) -> Result<(Team<'h, L>, Team<'h, L>)> {
        let xrange = c_int_of(xrange, "Team::split_2d: xrange")?;
        let (mut x, mut y) = (sys::SYM_TEAM_INVALID, sys::SYM_TEAM_INVALID);
        let _g = self.sym.team_write();
        // SAFETY: a live parent; two out-pointers; serialised.
        let st = unsafe {
            if ragged {
                sys::sym_team_split_2d_ragged(self.raw, xrange, &mut x, &mut y)
            } else {
                sys::sym_team_split_2d(self.raw, xrange, &mut x, &mut y)
            }
        };
        check(st)?;
        match (self.owned(x), self.owned(y)) {
            (Some(x), Some(y)) => Ok((x, y)),
            _ => Err(Error::Internal("Team::split_2d: the library returned no team".into())),
        }
    }

    /// View this team as a row-major mesh of `shape` (last dimension
    /// fastest, as torch's DeviceMesh): the team of this PE along each
    /// dimension (`sym_team_split_mesh`).  Collective.
    pub fn split_mesh(&self, shape: &[usize]) -> Result<Vec<Team<'h, L>>> {
        if shape.is_empty() || shape.len() > sys::SYM_MESH_MAX_DIMS as usize {
            return Err(Error::InvalidArg(format!(
                "Team::split_mesh: {} dimensions (1 to {})",
                shape.len(),
                sys::SYM_MESH_MAX_DIMS
            )));
        }
        let dims: Vec<c_int> =
            shape.iter().map(|&d| c_int_of(d, "Team::split_mesh: a dimension")).collect::<Result<_>>()?;
        let mut out = vec![sys::SYM_TEAM_INVALID; shape.len()];
        let _g = self.sym.team_write();
        // SAFETY: dims and out have ndims entries each; serialised.
        check(unsafe {
            sys::sym_team_split_mesh(self.raw, dims.len() as c_int, dims.as_ptr(), out.as_mut_ptr())
        })?;
        out.into_iter()
            .map(|t| self.owned(t).ok_or_else(|| Error::Internal("Team::split_mesh: no team".into())))
            .collect()
    }

    /// The team of the listed PEs (this team's numbers; new number i is
    /// `members[i]`), collective over this team, every PE passing the same
    /// list; `None` on the PEs that are not members.
    pub fn create(&self, members: &[usize]) -> Result<Option<Team<'h, L>>> {
        let m: Vec<c_int> =
            members.iter().map(|&p| c_int_of(p, "Team::create: a member")).collect::<Result<_>>()?;
        let n = c_int_of(m.len(), "Team::create: the number of members")?;
        let mut t = sys::SYM_TEAM_INVALID;
        let _g = self.sym.team_write();
        // SAFETY: m holds n entries; t an out-pointer; serialised.
        check(unsafe { sys::sym_team_create(self.raw, m.as_ptr(), n, &mut t) })?;
        Ok(self.owned(t))
    }

    /// The team of this team's PEs that share memory with this PE
    /// (`sym_team_split_shared`).  Collective.
    pub fn split_shared(&self) -> Result<Team<'h, L>> {
        let mut t = sys::SYM_TEAM_INVALID;
        let _g = self.sym.team_write();
        // SAFETY: a live parent; an out-pointer; serialised.
        check(unsafe { sys::sym_team_split_shared(self.raw, &mut t) })?;
        self.owned(t).ok_or_else(|| Error::Internal("Team::split_shared: no team".into()))
    }

    // ---- collectives ---------------------------------------------------

    /// Run one blocking collective: the team lock (read), the options.
    fn coll(
        &self,
        f: impl FnOnce(sys::sym_team_t, *const sys::sym_coll_opts_t) -> sys::sym_status_t,
        opts: &CollOpts,
    ) -> Result<()> {
        let raw = opts.raw();
        let _g = self.sym.team_read();
        check(f(self.raw, &raw))
    }

    pub(crate) fn root(&self, root: usize, what: &str) -> Result<c_int> {
        if root >= self.n_pes() {
            return Err(Error::InvalidArg(format!(
                "{}: root {} out of range (team {} has {} members)",
                what,
                root,
                self.name(),
                self.n_pes()
            )));
        }
        Ok(root as c_int)
    }

    /// Return when every member has entered (`sym_barrier`).
    pub fn barrier(&self, opts: &CollOpts) -> Result<()> {
        // SAFETY: a live handle and options.
        self.coll(|t, o| unsafe { sys::sym_barrier(t, o) }, opts)
    }

    /// `buf` of member `root` into `buf` of every member
    /// (`sym_broadcast`); every member passes the same length.
    pub fn broadcast<T: Element>(&self, buf: &mut [T], root: usize, opts: &CollOpts) -> Result<()> {
        let root = self.root(root, "Team::broadcast")?;
        let (p, n) = (buf.as_mut_ptr() as *mut c_void, buf.len());
        // SAFETY: buf holds n elements of T's datatype, exclusively
        // borrowed for the call; the library writes at most n.
        self.coll(|t, o| unsafe { sys::sym_broadcast(t, p, n, T::DATATYPE, root, o) }, opts)
    }

    /// A broadcast that carries its length: at `root` the whole of `buf`
    /// is the message; elsewhere `buf` is the capacity.  Returns the
    /// message's length in bytes (`sym_broadcast_v`).  A member whose
    /// buffer is too small gets [`Error::Truncated`] with the size needed;
    /// the others complete.
    pub fn broadcast_v(&self, buf: &mut [u8], root: usize, opts: &CollOpts) -> Result<usize> {
        let root_c = self.root(root, "Team::broadcast_v")?;
        let mut nbytes = buf.len();
        let (p, cap) = (buf.as_mut_ptr() as *mut c_void, buf.len());
        let np = &mut nbytes as *mut usize;
        // SAFETY: buf holds cap bytes, exclusively borrowed; nbytes is an
        // in/out size the call reads at the root and writes elsewhere; the
        // library writes at most cap bytes.
        let r = self.coll(|t, o| unsafe { sys::sym_broadcast_v(t, p, cap, np, root_c, o) }, opts);
        broadcast_v_outcome(r, nbytes)
    }

    /// Combine `src` of every member with `op` into `dst` at `root`
    /// (`sym_reduce`); `dst` is used only at the root, where it holds as
    /// many elements as `src`.
    pub fn reduce<T: Element>(
        &self,
        dst: &mut [T],
        src: &[T],
        op: Op,
        root: usize,
        opts: &CollOpts,
    ) -> Result<()> {
        let root_c = self.root(root, "Team::reduce")?;
        let d = if self.my_pe() == root {
            same_len("Team::reduce: dst at the root", dst.len(), src.len())?;
            dst.as_mut_ptr() as *mut c_void
        } else {
            ptr::null_mut()
        };
        let (s, n) = (src.as_ptr() as *const c_void, src.len());
        // SAFETY: src holds n elements; at the root dst holds n, exclusively
        // borrowed and distinct from src (Rust borrows); elsewhere NULL,
        // which the library ignores.
        self.coll(|t, o| unsafe { sys::sym_reduce(t, d, s, n, T::DATATYPE, op.raw(), root_c, o) }, opts)
    }

    /// Combine `src` of every member into `dst` on every member
    /// (`sym_allreduce`).
    pub fn allreduce<T: Element>(&self, dst: &mut [T], src: &[T], op: Op, opts: &CollOpts) -> Result<()> {
        same_len("Team::allreduce: dst", dst.len(), src.len())?;
        let (d, s, n) = (dst.as_mut_ptr() as *mut c_void, src.as_ptr() as *const c_void, src.len());
        // SAFETY: both hold n elements; dst exclusively borrowed.
        self.coll(|t, o| unsafe { sys::sym_allreduce(t, d, s, n, T::DATATYPE, op.raw(), o) }, opts)
    }

    /// [`Team::allreduce`] in place: `buf` is the input and the result.
    pub fn allreduce_in_place<T: Element>(&self, buf: &mut [T], op: Op, opts: &CollOpts) -> Result<()> {
        let (d, n) = (buf.as_mut_ptr() as *mut c_void, buf.len());
        // SAFETY: buf holds n elements, exclusively borrowed; the library
        // allows dst == src.
        self.coll(|t, o| unsafe { sys::sym_allreduce(t, d, d, n, T::DATATYPE, op.raw(), o) }, opts)
    }

    /// `src` holds one block of `dst.len()` elements per member; member i
    /// gets the combined block i (`sym_reduce_scatter`).
    pub fn reduce_scatter<T: Element>(
        &self,
        dst: &mut [T],
        src: &[T],
        op: Op,
        opts: &CollOpts,
    ) -> Result<()> {
        self.blocks("Team::reduce_scatter: src", src.len(), dst.len())?;
        let (d, s, n) = (dst.as_mut_ptr() as *mut c_void, src.as_ptr() as *const c_void, dst.len());
        // SAFETY: dst holds n, src n * members elements (checked).
        self.coll(|t, o| unsafe { sys::sym_reduce_scatter(t, d, s, n, T::DATATYPE, op.raw(), o) }, opts)
    }

    /// Every member's `src` into `dst`, in team order (`sym_all_gather`);
    /// `dst` holds members × `src.len()` elements.
    pub fn all_gather<T: Element>(&self, dst: &mut [T], src: &[T], opts: &CollOpts) -> Result<()> {
        self.blocks("Team::all_gather: dst", dst.len(), src.len())?;
        let (d, s, n) = (dst.as_mut_ptr() as *mut c_void, src.as_ptr() as *const c_void, src.len());
        // SAFETY: src holds n, dst n * members elements (checked).
        self.coll(|t, o| unsafe { sys::sym_all_gather(t, d, s, n, T::DATATYPE, o) }, opts)
    }

    /// [`Team::all_gather`] with `counts[i]` elements from member i (the
    /// same `counts` on every member); `dst` holds their sum
    /// (`sym_all_gatherv`).
    pub fn all_gatherv<T: Element>(
        &self,
        dst: &mut [T],
        src: &[T],
        counts: &[usize],
        opts: &CollOpts,
    ) -> Result<()> {
        same_len("Team::all_gatherv: counts (one per member)", counts.len(), self.n_pes())?;
        same_len("Team::all_gatherv: src (counts[my_pe])", src.len(), counts[self.my_pe()])?;
        same_len("Team::all_gatherv: dst (sum of counts)", dst.len(), sum(counts)?)?;
        let (d, s, c) = (dst.as_mut_ptr() as *mut c_void, src.as_ptr() as *const c_void, counts.as_ptr());
        // SAFETY: counts has one entry per member; src and dst hold what
        // this PE's counts say (checked), which bounds what is written.
        self.coll(|t, o| unsafe { sys::sym_all_gatherv(t, d, s, c, T::DATATYPE, o) }, opts)
    }

    /// `src` holds one block per member, block j for member j; `dst`
    /// receives block i from every member i (`sym_all_to_all`).
    pub fn all_to_all<T: Element>(&self, dst: &mut [T], src: &[T], opts: &CollOpts) -> Result<()> {
        same_len("Team::all_to_all: dst", dst.len(), src.len())?;
        let n = self.n_pes();
        if n == 0 || src.len() % n != 0 {
            return Err(Error::InvalidArg(format!(
                "Team::all_to_all: {} elements are not {} equal blocks",
                src.len(),
                n
            )));
        }
        let count = src.len() / n;
        let (d, s) = (dst.as_mut_ptr() as *mut c_void, src.as_ptr() as *const c_void);
        // SAFETY: both hold count * members elements (checked).
        self.coll(|t, o| unsafe { sys::sym_all_to_all(t, d, s, count, T::DATATYPE, o) }, opts)
    }

    /// Uneven all-to-all: `send_counts[j]` elements of `src` go to member j,
    /// `recv_counts[i]` elements from member i land in `dst`
    /// (`sym_all_to_allv`).
    pub fn all_to_allv<T: Element>(
        &self,
        src: &[T],
        send_counts: &[usize],
        dst: &mut [T],
        recv_counts: &[usize],
        opts: &CollOpts,
    ) -> Result<()> {
        self.to_allv("Team::all_to_allv", src.len(), send_counts, dst.len(), recv_counts)?;
        let (s, sc) = (src.as_ptr() as *const c_void, send_counts.as_ptr());
        let (d, rc) = (dst.as_mut_ptr() as *mut c_void, recv_counts.as_ptr());
        // SAFETY: the counts have one entry per member; src and dst hold
        // their sums (checked), which bound what is read and written.
        self.coll(|t, o| unsafe { sys::sym_all_to_allv(t, s, sc, d, rc, T::DATATYPE, o) }, opts)
    }

    /// Every member's `src` lands in `dst` at `root`, in team order
    /// (`sym_gather`); `dst` is used only at the root (members × `src.len()`).
    pub fn gather<T: Element>(&self, dst: &mut [T], src: &[T], root: usize, opts: &CollOpts) -> Result<()> {
        let root_c = self.root(root, "Team::gather")?;
        let d = if self.my_pe() == root {
            self.blocks("Team::gather: dst at the root", dst.len(), src.len())?;
            dst.as_mut_ptr() as *mut c_void
        } else {
            ptr::null_mut()
        };
        let (s, n) = (src.as_ptr() as *const c_void, src.len());
        // SAFETY: src holds n; at the root dst n * members (checked);
        // elsewhere NULL, not used.
        self.coll(|t, o| unsafe { sys::sym_gather(t, d, s, n, T::DATATYPE, root_c, o) }, opts)
    }

    /// Block i of `src` at `root` (members × `dst.len()` elements there)
    /// lands in `dst` of member i (`sym_scatter`).
    pub fn scatter<T: Element>(&self, dst: &mut [T], src: &[T], root: usize, opts: &CollOpts) -> Result<()> {
        let root_c = self.root(root, "Team::scatter")?;
        let s = if self.my_pe() == root {
            self.blocks("Team::scatter: src at the root", src.len(), dst.len())?;
            src.as_ptr() as *const c_void
        } else {
            ptr::null()
        };
        let (d, n) = (dst.as_mut_ptr() as *mut c_void, dst.len());
        // SAFETY: dst holds n; at the root src n * members (checked).
        self.coll(|t, o| unsafe { sys::sym_scatter(t, d, s, n, T::DATATYPE, root_c, o) }, opts)
    }

    /// `InvalidArg` unless an uneven all-to-all's counts have one entry
    /// per member and `src` and `dst` hold their sums (what bounds what
    /// the library reads and writes).
    pub(crate) fn to_allv(
        &self,
        what: &str,
        src: usize,
        send_counts: &[usize],
        dst: usize,
        recv_counts: &[usize],
    ) -> Result<()> {
        let n = self.n_pes();
        same_len(&format!("{}: send_counts (one per member)", what), send_counts.len(), n)?;
        same_len(&format!("{}: recv_counts (one per member)", what), recv_counts.len(), n)?;
        same_len(&format!("{}: src (sum of send_counts)", what), src, sum(send_counts)?)?;
        same_len(&format!("{}: dst (sum of recv_counts)", what), dst, sum(recv_counts)?)
    }

    /// `InvalidArg` unless `total` is members × `block`.
    pub(crate) fn blocks(&self, what: &str, total: usize, block: usize) -> Result<()> {
        let want = block
            .checked_mul(self.n_pes())
            .ok_or_else(|| Error::InvalidArg(format!("{}: size overflows", what)))?;
        if total != want {
            return Err(Error::InvalidArg(format!(
                "{} holds {} elements, the team needs {} ({} members x {})",
                what,
                total,
                want,
                self.n_pes(),
                block
            )));
        }
        Ok(())
    }

    /// The handle the team belongs to.
    pub fn symheap(&self) -> &'h Symheap<L> {
        self.sym
    }
}

impl<L: ThreadLevel> Drop for Team<'_, L> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            return;
        }
        let _ = self.release();
    }
}

impl<L: ThreadLevel> std::fmt::Debug for Team<'_, L> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Team")
            .field("name", &self.name())
            .field("my_pe", &self.my_pe())
            .field("n_pes", &self.n_pes())
            .finish()
    }
}

/// `InvalidArg` unless `have == want`.
pub(crate) fn same_len(what: &str, have: usize, want: usize) -> Result<()> {
    if have != want {
        return Err(Error::InvalidArg(format!("{} holds {} elements, expected {}", what, have, want)));
    }
    Ok(())
}

/// A broadcast_v's result from its status and the length the library left
/// in `*nbytes_p`: the message's length, or [`Error::Truncated`] with the
/// length a buffer needs.
pub(crate) fn broadcast_v_outcome(r: Result<()>, nbytes: usize) -> Result<usize> {
    match r {
        Err(Error::Truncated { message, .. }) => Err(Error::Truncated { needed: nbytes, message }),
        Err(e) => Err(e),
        Ok(()) => Ok(nbytes),
    }
}

pub(crate) fn sum(counts: &[usize]) -> Result<usize> {
    counts
        .iter()
        .try_fold(0usize, |a, &c| a.checked_add(c))
        .ok_or_else(|| Error::InvalidArg("counts: their sum overflows".into()))
}
