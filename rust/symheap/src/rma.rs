//! One-sided puts and gets, atomics, put-with-signal and the waits.

use std::mem::size_of;
use std::os::raw::{c_int, c_void};

use bytemuck::Pod;
use symheap_sys as sys;

use crate::error::{check, Result};
use crate::mem::{SymRef, SymVec};
use crate::runtime::{Symheap, ThreadLevel};
use crate::types::{Cmp, SignalOp};

impl<L: ThreadLevel> Symheap<L> {
    /// Copy `src` into elements `offset ..` of `dest` on PE `pe`
    /// (`sym_put`).  Blocking: `src` may be reused on return; visible at
    /// the target after [`Symheap::quiet`] (at once over shared memory).
    ///
    /// Errors: [`Error::InvalidPe`], [`Error::InvalidArg`] when the range
    /// is not inside `dest`, [`Error::PeerLost`], [`Error::Transport`].
    pub fn put<T: Pod>(&self, dest: &SymVec<'_, T, L>, offset: usize, src: &[T], pe: usize) -> Result<()> {
        let (d, n) = dest.range(offset, src.len(), "Symheap::put")?;
        let pe = self.pe(pe, "Symheap::put")?;
        if n == 0 {
            return Ok(());
        }
        // SAFETY: d..d+n lies in the live symmetric object `dest` (checked
        // by range), src is n readable bytes; the library copies them and
        // keeps no pointer after returning.
        check(unsafe { sys::sym_put(d as *mut c_void, src.as_ptr() as *const c_void, n, pe) })
    }

    /// Copy elements `offset .. offset + dst.len()` of `src` on PE `pe`
    /// into `dst` (`sym_get`).  Blocking: the data is there on return.
    /// Errors as [`Symheap::put`]; after an error `dst` holds unspecified
    /// values, and nothing is written into it after the call returned.
    pub fn get<T: Pod>(&self, dst: &mut [T], src: &SymVec<'_, T, L>, offset: usize, pe: usize) -> Result<()> {
        let (s, n) = src.range(offset, dst.len(), "Symheap::get")?;
        let pe = self.pe(pe, "Symheap::get")?;
        if n == 0 {
            return Ok(());
        }
        // SAFETY: s..s+n lies in the live object `src`; dst is n writable
        // bytes, exclusively borrowed; any bit pattern is a valid T (Pod).
        // A failed get writes nothing after it returns (symheap/rma.h).
        check(unsafe { sys::sym_get(dst.as_mut_ptr() as *mut c_void, s as *const c_void, n, pe) })
    }

    /// Put `src` into `dest` on `pe`, then update the signal word `sig` on
    /// that PE with `op` and `signal` (`sym_put_signal`): a PE that sees
    /// the signal change may read the data.
    #[allow(clippy::too_many_arguments)]
    pub fn put_signal<'r, T: Pod>(
        &self,
        dest: &SymVec<'_, T, L>,
        offset: usize,
        src: &[T],
        sig: impl Into<SymRef<'r, u64>>,
        signal: u64,
        op: SignalOp,
        pe: usize,
    ) -> Result<()> {
        let sig = sig.into();
        let (d, n, pe) = self.signal_target(dest, offset, src.len(), &sig, pe, "Symheap::put_signal")?;
        // SAFETY: d..d+n inside `dest` (or n == 0 with a valid symmetric
        // address), src readable, sig a live symmetric u64 (a SymRef
        // borrows its object).  Blocking with respect to src.
        check(unsafe {
            sys::sym_put_signal(d, src.as_ptr() as *const c_void, n, sig.ptr, signal, op.raw(), pe)
        })
    }

    /// A put-with-signal's checked target: the address of elements
    /// `offset .. offset + len` of `dest` (for an empty put the signal
    /// word's, which the library still checks as symmetric), their length
    /// in bytes, and the PE; `InvalidArg` / `InvalidPe` naming `what`.
    pub(crate) fn signal_target<T: Pod>(
        &self,
        dest: &SymVec<'_, T, L>,
        offset: usize,
        len: usize,
        sig: &SymRef<'_, u64>,
        pe: usize,
        what: &str,
    ) -> Result<(*mut c_void, usize, c_int)> {
        let (d, n) = dest.range(offset, len, what)?;
        let pe = self.pe(pe, what)?;
        Ok((if n == 0 { sig.ptr as *mut c_void } else { d as *mut c_void }, n, pe))
    }

    /// Read this PE's signal word atomically (`sym_signal_fetch`).
    pub fn signal_fetch<'r>(&self, sig: impl Into<SymRef<'r, u64>>) -> Result<u64> {
        let mut v = 0u64;
        // SAFETY: sig is a live symmetric u64 of this PE; v an out-pointer.
        check(unsafe { sys::sym_signal_fetch(sig.into().ptr, &mut v) })?;
        Ok(v)
    }

    /// Wait until this PE's signal word satisfies `cmp value`; returns the
    /// value that did (`sym_signal_wait_until`).  Errors:
    /// [`Error::Timeout`] naming the word and condition,
    /// [`Error::PeerLost`], [`Error::Aborted`].
    pub fn signal_wait_until<'r>(
        &self,
        sig: impl Into<SymRef<'r, u64>>,
        cmp: Cmp,
        value: u64,
    ) -> Result<u64> {
        let mut v = 0u64;
        // SAFETY: sig is a live symmetric u64 of this PE; v an out-pointer.
        check(unsafe { sys::sym_signal_wait_until(sig.into().ptr, cmp.raw(), value, &mut v) })?;
        Ok(v)
    }

    /// Wait until this PE's word `ivar` satisfies `cmp value`
    /// (`sym_wait_until_<type>`; the comparison follows T's signedness).
    pub fn wait_until<'r, T: WaitInt>(
        &self,
        ivar: impl Into<SymRef<'r, T>>,
        cmp: Cmp,
        value: T,
    ) -> Result<()> {
        // SAFETY: a live symmetric, naturally aligned T of this PE.
        check(unsafe { T::wait_until(ivar.into().ptr, cmp.raw(), value) })
    }

    /// Whether this PE's word `ivar` satisfies `cmp value` now
    /// (`sym_test_<type>`); never blocks.
    pub fn test<'r, T: WaitInt>(&self, ivar: impl Into<SymRef<'r, T>>, cmp: Cmp, value: T) -> Result<bool> {
        let mut sat: c_int = 0;
        // SAFETY: as wait_until; sat an out-pointer.
        check(unsafe { T::test(ivar.into().ptr, cmp.raw(), value, &mut sat) })?;
        Ok(sat != 0)
    }

    /// Wait until some element of this PE's `ivars` satisfies `cmp value`
    /// and return its index (`sym_wait_until_any_<type>`); `None` for an
    /// empty vector.
    pub fn wait_until_any<T: WaitInt>(
        &self,
        ivars: &SymVec<'_, T, L>,
        cmp: Cmp,
        value: T,
    ) -> Result<Option<usize>> {
        if ivars.is_empty() {
            return Ok(None);
        }
        let mut idx = 0usize;
        // SAFETY: ivars is a live symmetric array of len elements; no
        // status array; idx an out-pointer.
        check(unsafe { T::wait_any(ivars.as_ptr(), ivars.len(), cmp.raw(), value, &mut idx) })?;
        Ok(if idx == usize::MAX { None } else { Some(idx) })
    }

    /// Wait until every element of this PE's `ivars` satisfies `cmp value`
    /// (`sym_wait_until_all_<type>`).
    pub fn wait_until_all<T: WaitInt>(&self, ivars: &SymVec<'_, T, L>, cmp: Cmp, value: T) -> Result<()> {
        if ivars.is_empty() {
            return Ok(());
        }
        // SAFETY: as wait_until_any.
        check(unsafe { T::wait_all(ivars.as_ptr(), ivars.len(), cmp.raw(), value) })
    }

    fn amo_pe(&self, pe: usize) -> Result<c_int> {
        self.pe(pe, "Symheap::atomic")
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A word type of the waits: `i32`, `i64`, `u32`, `u64`.
pub trait WaitInt: Pod + sealed::Sealed {
    #[doc(hidden)]
    unsafe fn wait_until(p: *mut Self, cmp: sys::sym_cmp_t, v: Self) -> sys::sym_status_t;
    #[doc(hidden)]
    unsafe fn test(p: *mut Self, cmp: sys::sym_cmp_t, v: Self, sat: *mut c_int) -> sys::sym_status_t;
    #[doc(hidden)]
    unsafe fn wait_any(
        p: *mut Self,
        n: usize,
        cmp: sys::sym_cmp_t,
        v: Self,
        idx: *mut usize,
    ) -> sys::sym_status_t;
    #[doc(hidden)]
    unsafe fn wait_all(p: *mut Self, n: usize, cmp: sys::sym_cmp_t, v: Self) -> sys::sym_status_t;
}

macro_rules! wait_int {
    ($t:ty, $wu:ident, $te:ident, $wany:ident, $wall:ident) => {
        impl sealed::Sealed for $t {}
        impl WaitInt for $t {
            unsafe fn wait_until(p: *mut Self, cmp: sys::sym_cmp_t, v: Self) -> sys::sym_status_t {
                sys::$wu(p, cmp, v)
            }
            unsafe fn test(p: *mut Self, cmp: sys::sym_cmp_t, v: Self, sat: *mut c_int) -> sys::sym_status_t {
                sys::$te(p, cmp, v, sat)
            }
            unsafe fn wait_any(
                p: *mut Self,
                n: usize,
                cmp: sys::sym_cmp_t,
                v: Self,
                idx: *mut usize,
            ) -> sys::sym_status_t {
                sys::$wany(p, n, std::ptr::null(), cmp, v, idx)
            }
            unsafe fn wait_all(p: *mut Self, n: usize, cmp: sys::sym_cmp_t, v: Self) -> sys::sym_status_t {
                sys::$wall(p, n, std::ptr::null(), cmp, v)
            }
        }
    };
}
wait_int!(i32, sym_wait_until_int32, sym_test_int32, sym_wait_until_any_int32, sym_wait_until_all_int32);
wait_int!(i64, sym_wait_until_int64, sym_test_int64, sym_wait_until_any_int64, sym_wait_until_all_int64);
wait_int!(u32, sym_wait_until_uint32, sym_test_uint32, sym_wait_until_any_uint32, sym_wait_until_all_uint32);
wait_int!(u64, sym_wait_until_uint64, sym_test_uint64, sym_wait_until_any_uint64, sym_wait_until_all_uint64);

/// An integer type of the atomics: `i32`, `u32`, `i64`, `u64`.  Signed
/// values travel as their two's complement bits: the library's arithmetic
/// wraps, so the unsigned operations serve signed integers too.
pub trait AtomicInt: Pod + sealed::Sealed {
    #[doc(hidden)]
    fn to_u64(self) -> u64;
    #[doc(hidden)]
    fn from_u64(v: u64) -> Self;
}

macro_rules! atomic_int {
    ($t:ty, $bits:ty) => {
        impl AtomicInt for $t {
            fn to_u64(self) -> u64 {
                self as $bits as u64
            }
            fn from_u64(v: u64) -> Self {
                v as $bits as $t
            }
        }
    };
}
atomic_int!(i32, u32);
atomic_int!(u32, u32);
atomic_int!(i64, u64);
atomic_int!(u64, u64);

/// Atomics on a symmetric `T` (`sym_atomic_*`): the target is a
/// [`SymRef`] (`&SymBox<T>` or `vec.at(i)`), the word of that object on PE
/// `pe`.  A fetching atomic is complete on return; a non-fetching one on a
/// peer reached through libfabric may still be in flight until
/// [`Symheap::quiet`].
impl<L: ThreadLevel> Symheap<L> {
    /// The word's value.
    pub fn atomic_fetch<'r, T: AtomicInt>(&self, target: impl Into<SymRef<'r, T>>, pe: usize) -> Result<T> {
        let pe = self.amo_pe(pe)?;
        let p = target.into().ptr;
        let mut old = 0u64;
        // SAFETY: p is a live symmetric T (SymRef borrows its object), of
        // the width selected; old is large enough for either width.
        let st = unsafe {
            if size_of::<T>() == 4 {
                let mut o = 0u32;
                let st = sys::sym_atomic_fetch32(&mut o, p as *const u32, pe);
                old = o as u64;
                st
            } else {
                sys::sym_atomic_fetch64(&mut old, p as *const u64, pe)
            }
        };
        check(st)?;
        Ok(T::from_u64(old))
    }

    /// Set the word to `value`.
    pub fn atomic_set<'r, T: AtomicInt>(
        &self,
        target: impl Into<SymRef<'r, T>>,
        value: T,
        pe: usize,
    ) -> Result<()> {
        self.nonfetching(target, pe, value, NonFetching::Set)
    }

    /// Add `value` (wrapping).
    pub fn atomic_add<'r, T: AtomicInt>(
        &self,
        target: impl Into<SymRef<'r, T>>,
        value: T,
        pe: usize,
    ) -> Result<()> {
        self.nonfetching(target, pe, value, NonFetching::Add)
    }

    /// Add one.
    pub fn atomic_inc<'r, T: AtomicInt>(&self, target: impl Into<SymRef<'r, T>>, pe: usize) -> Result<()> {
        self.nonfetching(target, pe, T::zeroed(), NonFetching::Inc)
    }

    /// Bitwise and, or, xor with `value`.
    pub fn atomic_bitwise<'r, T: AtomicInt>(
        &self,
        target: impl Into<SymRef<'r, T>>,
        op: Bitwise,
        value: T,
        pe: usize,
    ) -> Result<()> {
        self.nonfetching(target, pe, value, NonFetching::Bitwise(op))
    }

    /// Set the word to `value`; returns the old value.
    pub fn atomic_swap<'r, T: AtomicInt>(
        &self,
        target: impl Into<SymRef<'r, T>>,
        value: T,
        pe: usize,
    ) -> Result<T> {
        self.fetching(target, pe, value, Fetching::Swap)
    }

    /// If the word equals `cond`, set it to `value`; returns the old
    /// value either way.
    pub fn atomic_compare_swap<'r, T: AtomicInt>(
        &self,
        target: impl Into<SymRef<'r, T>>,
        cond: T,
        value: T,
        pe: usize,
    ) -> Result<T> {
        self.fetching(target, pe, value, Fetching::CompareSwap(cond.to_u64()))
    }

    /// Add `value`; returns the old value.
    pub fn atomic_fetch_add<'r, T: AtomicInt>(
        &self,
        target: impl Into<SymRef<'r, T>>,
        value: T,
        pe: usize,
    ) -> Result<T> {
        self.fetching(target, pe, value, Fetching::Add)
    }

    /// Add one; returns the old value.
    pub fn atomic_fetch_inc<'r, T: AtomicInt>(
        &self,
        target: impl Into<SymRef<'r, T>>,
        pe: usize,
    ) -> Result<T> {
        self.fetching(target, pe, T::zeroed(), Fetching::Inc)
    }

    /// Bitwise and, or, xor; returns the old value.
    pub fn atomic_fetch_bitwise<'r, T: AtomicInt>(
        &self,
        target: impl Into<SymRef<'r, T>>,
        op: Bitwise,
        value: T,
        pe: usize,
    ) -> Result<T> {
        self.fetching(target, pe, value, Fetching::Bitwise(op))
    }

    fn nonfetching<'r, T: AtomicInt>(
        &self,
        target: impl Into<SymRef<'r, T>>,
        pe: usize,
        value: T,
        kind: NonFetching,
    ) -> Result<()> {
        let pe = self.amo_pe(pe)?;
        let p = target.into().ptr;
        let v = value.to_u64();
        // SAFETY: p is a live symmetric word of T's width (SymRef borrows
        // its object).
        let st = unsafe {
            if size_of::<T>() == 4 {
                let (p, v) = (p as *mut u32, v as u32);
                match kind {
                    NonFetching::Set => sys::sym_atomic_set32(p, v, pe),
                    NonFetching::Add => sys::sym_atomic_add32(p, v, pe),
                    NonFetching::Inc => sys::sym_atomic_inc32(p, pe),
                    NonFetching::Bitwise(Bitwise::And) => sys::sym_atomic_and32(p, v, pe),
                    NonFetching::Bitwise(Bitwise::Or) => sys::sym_atomic_or32(p, v, pe),
                    NonFetching::Bitwise(Bitwise::Xor) => sys::sym_atomic_xor32(p, v, pe),
                }
            } else {
                let p = p as *mut u64;
                match kind {
                    NonFetching::Set => sys::sym_atomic_set64(p, v, pe),
                    NonFetching::Add => sys::sym_atomic_add64(p, v, pe),
                    NonFetching::Inc => sys::sym_atomic_inc64(p, pe),
                    NonFetching::Bitwise(Bitwise::And) => sys::sym_atomic_and64(p, v, pe),
                    NonFetching::Bitwise(Bitwise::Or) => sys::sym_atomic_or64(p, v, pe),
                    NonFetching::Bitwise(Bitwise::Xor) => sys::sym_atomic_xor64(p, v, pe),
                }
            }
        };
        check(st)
    }

    fn fetching<'r, T: AtomicInt>(
        &self,
        target: impl Into<SymRef<'r, T>>,
        pe: usize,
        value: T,
        kind: Fetching,
    ) -> Result<T> {
        let pe = self.amo_pe(pe)?;
        let p = target.into().ptr;
        let v: u64 = value.to_u64();
        let st;
        let old: u64;
        // SAFETY: p is a live symmetric word of T's width (SymRef borrows
        // its object); the old value goes to a local of that width.
        unsafe {
            if size_of::<T>() == 4 {
                let (p, v) = (p as *mut u32, v as u32);
                let mut o = 0u32;
                st = match kind {
                    Fetching::Swap => sys::sym_atomic_swap32(p, v, &mut o, pe),
                    Fetching::CompareSwap(c) => sys::sym_atomic_compare_swap32(p, c as u32, v, &mut o, pe),
                    Fetching::Add => sys::sym_atomic_fetch_add32(p, v, &mut o, pe),
                    Fetching::Inc => sys::sym_atomic_fetch_inc32(p, &mut o, pe),
                    Fetching::Bitwise(Bitwise::And) => sys::sym_atomic_fetch_and32(p, v, &mut o, pe),
                    Fetching::Bitwise(Bitwise::Or) => sys::sym_atomic_fetch_or32(p, v, &mut o, pe),
                    Fetching::Bitwise(Bitwise::Xor) => sys::sym_atomic_fetch_xor32(p, v, &mut o, pe),
                };
                old = o as u64;
            } else {
                let p = p as *mut u64;
                let mut o = 0u64;
                st = match kind {
                    Fetching::Swap => sys::sym_atomic_swap64(p, v, &mut o, pe),
                    Fetching::CompareSwap(c) => sys::sym_atomic_compare_swap64(p, c, v, &mut o, pe),
                    Fetching::Add => sys::sym_atomic_fetch_add64(p, v, &mut o, pe),
                    Fetching::Inc => sys::sym_atomic_fetch_inc64(p, &mut o, pe),
                    Fetching::Bitwise(Bitwise::And) => sys::sym_atomic_fetch_and64(p, v, &mut o, pe),
                    Fetching::Bitwise(Bitwise::Or) => sys::sym_atomic_fetch_or64(p, v, &mut o, pe),
                    Fetching::Bitwise(Bitwise::Xor) => sys::sym_atomic_fetch_xor64(p, v, &mut o, pe),
                };
                old = o;
            }
        }
        check(st)?;
        Ok(T::from_u64(old))
    }
}

/// The bitwise atomics.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Bitwise {
    /// `&`
    And,
    /// `|`
    Or,
    /// `^`
    Xor,
}

#[derive(Clone, Copy)]
enum NonFetching {
    Set,
    Add,
    Inc,
    Bitwise(Bitwise),
}

#[derive(Clone, Copy)]
enum Fetching {
    Swap,
    CompareSwap(u64),
    Add,
    Inc,
    Bitwise(Bitwise),
}
