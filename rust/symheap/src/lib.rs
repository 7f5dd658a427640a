//! Safe Rust API of symheap: one-sided, SHMEM-style communication over a
//! symmetric heap.
//!
//! Every process of a job (a PE) maps a symmetric heap; an object made by
//! [`SymVec::new`] exists on every PE, so one [`SymVec`] names the same
//! object everywhere, and [`Symheap::put`] / [`Symheap::get`] move data
//! between local slices and a peer's copy.  Atomics, put-with-signal and
//! waits synchronise PEs; [`Team`]s run collectives on slices; tagged
//! messages go point to point; the [`transport`] module offers the shapes
//! Rust ML communication layers build on.
//!
//! ```no_run
//! use symheap::{Op, Symheap, SymVec};
//! let sym = Symheap::init()?;                       // join the job (symrun -n 4 ...)
//! let (me, n) = (sym.my_pe(), sym.n_pes());
//! let inbox = SymVec::<u64>::new(&sym, 1)?;        // on every PE
//! sym.put(&inbox, 0, &[me as u64], (me + 1) % n)?; // into the right neighbour's
//! sym.barrier_all()?;
//! assert_eq!(inbox.read()?[0], ((me + n - 1) % n) as u64);
//! let mut sum = [0u64];
//! sym.world().allreduce(&mut sum, &[me as u64], Op::Sum, &Default::default())?;
//! assert_eq!(sum[0], (n * (n - 1) / 2) as u64);
//! # Ok::<(), symheap::Error>(())
//! ```
//!
//! Safety model (details in `rust/README.md`): symmetric memory is never
//! seen through a Rust reference (peers write it at any time), only copied
//! through the library; slice lengths are checked against what the library
//! will read or write before every call; buffers of non-blocking operations
//! are borrowed for a [`Scope`] that completes them; everything borrows the
//! [`Symheap`] handle, whose drop finalizes; thread levels are types.
#![warn(missing_docs)]

mod error;
mod mem;
mod p2p;
mod rma;
mod runtime;
mod scope;
mod team;
pub mod transport;
mod types;

pub use bytemuck::{Pod, Zeroable};
pub use error::{Error, Result};
pub use mem::{SymBox, SymRef, SymVec};
pub use p2p::MsgStatus;
pub use rma::{AtomicInt, Bitwise, WaitInt};
pub use runtime::{Funneled, Multiple, Serialized, Symheap, ThreadLevel};
pub use scope::{Request, Scope};
pub use team::Team;
pub use types::{Algorithm, Bf16, Cmp, CollOpts, Element, Op, P2pOpts, SignalOp, F16};

/// The raw bindings, for what the safe API does not cover.
pub use symheap_sys as sys;
