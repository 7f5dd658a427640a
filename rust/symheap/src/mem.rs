//! Symmetric memory: `SymVec<T>` and `SymBox<T>` on the symmetric heap.
//!
//! Peers write this memory whenever their program decides to (a put, an
//! atomic, a signal), so the crate never hands out a Rust reference into
//! it: a `&T` or `&mut T` promises that nothing else changes the value,
//! which a remote PE may break at any moment.  Local reads and writes copy
//! through the library (`read`, `write`, `load`), as remote ones do;
//! [`SymVec::as_ptr`] is there for code that brings its own `unsafe`.

use std::marker::PhantomData;
use std::mem::size_of;

use bytemuck::Pod;
use symheap_sys as sys;

use crate::error::{check, last_error, Error, Result};
use crate::runtime::{Symheap, ThreadLevel};

/// A symmetric array of `len` elements of `T`, zeroed when made: the same
/// object on every PE.  Made and freed collectively: every PE makes the
/// same sequence of `SymVec::new` / `SymBox::new` calls and drops them in
/// the same order (`sym_calloc` / `sym_free`, each with a barrier).
///
/// A drop whose free fails (a peer dropped something else, or died) cannot
/// report it; [`SymVec::free`] returns the status.  A PE that unwinds from
/// a panic does not free (its peers are not in the same call), so its
/// peers learn of the lost PE instead of a mismatch.
pub struct SymVec<'h, T: Pod, L: ThreadLevel = crate::Funneled> {
    ptr: *mut T,
    len: usize,
    sym: &'h Symheap<L>,
    _owns: PhantomData<T>,
}

// SAFETY: the memory is symmetric heap memory that the crate only reaches
// through the library's calls (never through Rust references), which at
// SYM_THREAD_MULTIPLE any thread may make at once; allocation and freeing
// take the handle's lock.  So a SymVec may move to and be shared by the
// threads that may use its handle: exactly when &Symheap<L> is Send, i.e.
// Symheap<L> is Sync.
unsafe impl<T: Pod + Send, L: ThreadLevel> Send for SymVec<'_, T, L> where Symheap<L>: Sync {}
unsafe impl<T: Pod + Send, L: ThreadLevel> Sync for SymVec<'_, T, L> where Symheap<L>: Sync {}

impl<'h, T: Pod, L: ThreadLevel> SymVec<'h, T, L> {
    /// `len` zeroed elements on every PE (`sym_calloc`, collective).
    /// `len` 0 (or a zero-sized `T`) makes an empty object without
    /// synchronising, on every PE alike.
    ///
    /// Errors: [`Error::NoMemory`] naming the requested and free bytes,
    /// [`Error::Mismatch`] when the PEs' calls differ (nothing is
    /// allocated on any PE), [`Error::PeerLost`], [`Error::Timeout`].
    pub fn new(sym: &'h Symheap<L>, len: usize) -> Result<Self> {
        if len == 0 || size_of::<T>() == 0 {
            return Ok(SymVec { ptr: std::ptr::NonNull::dangling().as_ptr(), len, sym, _owns: PhantomData });
        }
        if len.checked_mul(size_of::<T>()).is_none() {
            return Err(Error::NoMemory(format!(
                "SymVec::new: {} elements of {} bytes overflow the address space",
                len,
                size_of::<T>()
            )));
        }
        let _g = sym.alloc_guard();
        // SAFETY: collective allocation, serialised by the lock; the size
        // does not overflow (checked).  Returns 64-byte aligned zeroed
        // memory (valid for any Pod T, whose alignment the heap's 64 bytes
        // cover for every primitive) or NULL with the reason recorded.
        let p = unsafe { sys::sym_calloc(len, size_of::<T>()) } as *mut T;
        if p.is_null() {
            return Err(last_failure());
        }
        if (p as usize) % std::mem::align_of::<T>() != 0 {
            // Alignments above 64 bytes: ask for them explicitly.
            // SAFETY: p came from sym_calloc just above; every PE gets the
            // same misaligned offset and frees it alike.
            unsafe { sys::sym_free(p as *mut _) };
            return Err(Error::invalid_arg(format!(
                "SymVec::new: {} needs {}-byte alignment, the heap gives 64",
                std::any::type_name::<T>(),
                std::mem::align_of::<T>()
            )));
        }
        Ok(SymVec { ptr: p, len, sym, _owns: PhantomData })
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes of the object.
    pub fn byte_len(&self) -> usize {
        self.len * size_of::<T>()
    }

    /// This PE's address of the object.  Dereferencing it is the caller's
    /// `unsafe` business: peers may write the memory at any time.
    pub fn as_ptr(&self) -> *mut T {
        self.ptr
    }

    /// The handle this object belongs to.
    pub fn symheap(&self) -> &'h Symheap<L> {
        self.sym
    }

    /// The object's symmetric offset (`sym_addr_to_offset`): the same on
    /// every PE.  `None` for an empty object, which has no storage.
    pub fn offset(&self) -> Result<Option<u64>> {
        if self.byte_len() == 0 {
            return Ok(None);
        }
        let mut off = 0u64;
        // SAFETY: the range is this live object's; off is a valid out-pointer.
        check(unsafe { sys::sym_addr_to_offset(self.ptr as *const _, self.byte_len(), &mut off) })?;
        Ok(Some(off))
    }

    /// A reference to element `index`, for atomics, signals and waits.
    /// Panics if `index >= len`, as slice indexing does.
    pub fn at(&self, index: usize) -> SymRef<'_, T> {
        assert!(index < self.len, "SymVec::at: index {} out of range (len {})", index, self.len);
        // SAFETY: index < len: inside the allocation.
        SymRef { ptr: unsafe { self.ptr.add(index) }, _p: PhantomData }
    }

    /// A copy of this PE's elements.
    pub fn read(&self) -> Result<Vec<T>> {
        let mut v = vec![T::zeroed(); self.len];
        self.read_into(0, &mut v)?;
        Ok(v)
    }

    /// Copy this PE's elements `offset ..` into `dst`.
    pub fn read_into(&self, offset: usize, dst: &mut [T]) -> Result<()> {
        self.sym.get(dst, self, offset, self.sym.my_pe())
    }

    /// Write `src` into this PE's elements `offset ..`.
    pub fn write(&self, offset: usize, src: &[T]) -> Result<()> {
        self.sym.put(self, offset, src, self.sym.my_pe())
    }

    /// Free it now (`sym_free`, collective) and return the status.
    pub fn free(self) -> Result<()> {
        let me = std::mem::ManuallyDrop::new(self);
        me.release()
    }

    fn release(&self) -> Result<()> {
        if self.byte_len() == 0 {
            return Ok(());
        }
        let _g = self.sym.alloc_guard();
        let before = (last_status(), last_error());
        // SAFETY: ptr is the start of this live object, freed once (free
        // consumes self and skips Drop); nothing borrows it (a SymRef
        // borrows self).
        unsafe { sys::sym_free(self.ptr as *mut _) };
        // sym_free returns nothing: a failure is a new status and message.
        if (last_status(), last_error()) != before {
            return Err(last_failure());
        }
        Ok(())
    }

    /// The (pointer, byte length) of elements `offset .. offset + n`, or
    /// `InvalidArg` naming `what` when that is not inside the object.
    pub(crate) fn range(&self, offset: usize, n: usize, what: &str) -> Result<(*mut T, usize)> {
        match offset.checked_add(n) {
            Some(end) if end <= self.len => {
                // SAFETY: offset <= len: inside the allocation or one past it.
                Ok((unsafe { self.ptr.add(offset) }, n * size_of::<T>()))
            }
            _ => Err(Error::invalid_arg(format!(
                "{}: elements {}..{}+{} are outside the symmetric object of {} elements",
                what, offset, offset, n, self.len
            ))),
        }
    }
}

impl<T: Pod, L: ThreadLevel> Drop for SymVec<'_, T, L> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            return;
        }
        let _ = self.release();
    }
}

impl<T: Pod, L: ThreadLevel> std::fmt::Debug for SymVec<'_, T, L> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SymVec").field("ptr", &self.ptr).field("len", &self.len).finish()
    }
}

/// One symmetric `T`: a [`SymVec`] of one element.
pub struct SymBox<'h, T: Pod, L: ThreadLevel = crate::Funneled> {
    vec: SymVec<'h, T, L>,
}

impl<'h, T: Pod, L: ThreadLevel> SymBox<'h, T, L> {
    /// One `T` on every PE, set to `value` on this PE (collective, two
    /// barriers: the allocation's, and one after the value is in place, so
    /// that no peer's put or atomic lands before it).
    pub fn new(sym: &'h Symheap<L>, value: T) -> Result<Self> {
        let vec = SymVec::new(sym, 1)?;
        // The allocation zeroed it before its own barrier; anything else
        // must be in place before a peer's put or atomic can reach it.
        if bytemuck::bytes_of(&value).iter().any(|&b| b != 0) {
            vec.write(0, std::slice::from_ref(&value))?;
        }
        sym.barrier_all()?;
        Ok(SymBox { vec })
    }

    /// This PE's value.
    pub fn load(&self) -> Result<T> {
        let mut v = [T::zeroed()];
        self.vec.read_into(0, &mut v)?;
        Ok(v[0])
    }

    /// Set this PE's value.
    pub fn store(&self, value: T) -> Result<()> {
        self.vec.write(0, std::slice::from_ref(&value))
    }

    /// The reference atomics, signals and waits take.
    pub fn at(&self) -> SymRef<'_, T> {
        self.vec.at(0)
    }

    /// As a one-element [`SymVec`] (puts and gets take that).
    pub fn as_vec(&self) -> &SymVec<'h, T, L> {
        &self.vec
    }

    /// Free it now and return the status.
    pub fn free(self) -> Result<()> {
        self.vec.free()
    }
}

impl<T: Pod, L: ThreadLevel> std::fmt::Debug for SymBox<'_, T, L> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SymBox").field("ptr", &self.vec.ptr).finish()
    }
}

/// The symmetric address of one `T` of a [`SymVec`] or [`SymBox`]: the
/// target of atomics, signals and waits, on any PE.
#[derive(Clone, Copy)]
pub struct SymRef<'a, T> {
    pub(crate) ptr: *mut T,
    _p: PhantomData<&'a T>,
}

impl<'a, T> SymRef<'a, T> {
    /// This PE's address of the element.
    pub fn as_ptr(&self) -> *mut T {
        self.ptr
    }
}

impl<'a, T: Pod, L: ThreadLevel> From<&'a SymBox<'_, T, L>> for SymRef<'a, T> {
    fn from(b: &'a SymBox<'_, T, L>) -> Self {
        b.at()
    }
}

fn last_status() -> i32 {
    // SAFETY: thread-safe query of this thread's last failure.
    unsafe { sys::sym_last_status() }
}

/// The error of this thread's last failed call (one that returns no
/// status: an allocation's NULL, sym_free).
fn last_failure() -> Error {
    let st = last_status();
    let st = if st == sys::SYM_OK { sys::SYM_ERR_INTERNAL } else { st };
    Error::from_status(st, last_error()).unwrap_or_else(|| Error::Internal(String::new()))
}
