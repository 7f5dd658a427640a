//! Transports in the shape Rust ML communication layers build their
//! collectives on, with symheap underneath.
//!
//! - [`PointToPoint`]: tagged `send` / `recv` of bytes between ranks, as a
//!   ring or tree collective over a message-passing transport needs;
//!   [`P2pTransport`] implements it with symheap's point-to-point messages.
//! - [`Symmetric`]: one-sided `put` / `get` on `(rank, offset, len)` of a
//!   buffer every rank holds, and a `barrier`; [`SymmetricTransport`]
//!   implements it over a symmetric heap object, which is exactly what that
//!   shape assumes (NVSHMEM's and OpenSHMEM's model).
//!
//! `examples/ring_allreduce.rs` and `examples/binomial_broadcast.rs` run the
//! textbook algorithms over them and check the result against symheap's
//! own collectives.

use crate::error::{Error, Result};
use crate::mem::SymVec;
use crate::runtime::{Symheap, ThreadLevel};
use crate::types::P2pOpts;

/// A message-passing transport: tagged sends and receives of bytes.
pub trait PointToPoint {
    /// The transport's error.
    type Error: std::error::Error;
    /// This rank, 0 .. world_size() - 1.
    fn rank(&self) -> usize;
    /// The number of ranks.
    fn world_size(&self) -> usize;
    /// Send `data` to `peer` with `tag`; returns when `data` may be reused.
    fn send(&self, peer: usize, tag: u32, data: &[u8]) -> std::result::Result<(), Self::Error>;
    /// Receive the next message from `peer` with `tag`, whatever its size.
    fn recv(&self, peer: usize, tag: u32) -> std::result::Result<Vec<u8>, Self::Error>;
}

/// A one-sided transport over a buffer of `len()` bytes on every rank.
pub trait Symmetric {
    /// The transport's error.
    type Error: std::error::Error;
    /// This rank.
    fn rank(&self) -> usize;
    /// The number of ranks.
    fn world_size(&self) -> usize;
    /// Bytes of each rank's buffer.
    fn len(&self) -> usize;
    /// Whether the buffers are empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Write `data` at `offset` of `rank`'s buffer (this rank's too).
    fn put(&self, rank: usize, offset: usize, data: &[u8]) -> std::result::Result<(), Self::Error>;
    /// Read `buf.len()` bytes at `offset` of `rank`'s buffer.
    fn get(&self, rank: usize, offset: usize, buf: &mut [u8]) -> std::result::Result<(), Self::Error>;
    /// Wait for every rank; every put issued before it is then visible.
    fn barrier(&self) -> std::result::Result<(), Self::Error>;
}

/// [`PointToPoint`] over symheap's messages (`sym_send` / `sym_recv`).
#[derive(Debug)]
pub struct P2pTransport<'h, L: ThreadLevel = crate::Funneled> {
    sym: &'h Symheap<L>,
    opts: P2pOpts,
}

impl<'h, L: ThreadLevel> P2pTransport<'h, L> {
    /// The transport of the job's PEs, ranks being PE numbers; every call
    /// has the deadline of `opts`.
    pub fn new(sym: &'h Symheap<L>, opts: P2pOpts) -> Self {
        P2pTransport { sym, opts }
    }
}

impl<L: ThreadLevel> PointToPoint for P2pTransport<'_, L> {
    type Error = Error;
    fn rank(&self) -> usize {
        self.sym.my_pe()
    }
    fn world_size(&self) -> usize {
        self.sym.n_pes()
    }
    fn send(&self, peer: usize, tag: u32, data: &[u8]) -> Result<()> {
        self.sym.send(data, peer, tag, &self.opts)
    }
    fn recv(&self, peer: usize, tag: u32) -> Result<Vec<u8>> {
        self.sym.recv_vec(Some(peer), Some(tag), &self.opts).map(|(v, _)| v)
    }
}

/// [`Symmetric`] over a symmetric heap object of `len` bytes: `put` and
/// `get` are `sym_put` / `sym_get` on it, `barrier` is `sym_barrier_all`
/// (which completes the puts first).
#[derive(Debug)]
pub struct SymmetricTransport<'h, L: ThreadLevel = crate::Funneled> {
    buf: SymVec<'h, u8, L>,
}

impl<'h, L: ThreadLevel> SymmetricTransport<'h, L> {
    /// Allocate the `len`-byte buffer on every PE (collective, zeroed).
    pub fn new(sym: &'h Symheap<L>, len: usize) -> Result<Self> {
        Ok(SymmetricTransport { buf: SymVec::new(sym, len)? })
    }

    /// The symmetric buffer.
    pub fn buffer(&self) -> &SymVec<'h, u8, L> {
        &self.buf
    }
}

impl<L: ThreadLevel> Symmetric for SymmetricTransport<'_, L> {
    type Error = Error;
    fn rank(&self) -> usize {
        self.buf.symheap().my_pe()
    }
    fn world_size(&self) -> usize {
        self.buf.symheap().n_pes()
    }
    fn len(&self) -> usize {
        self.buf.len()
    }
    fn put(&self, rank: usize, offset: usize, data: &[u8]) -> Result<()> {
        self.buf.symheap().put(&self.buf, offset, data, rank)
    }
    fn get(&self, rank: usize, offset: usize, buf: &mut [u8]) -> Result<()> {
        self.buf.symheap().get(buf, &self.buf, offset, rank)
    }
    fn barrier(&self) -> Result<()> {
        self.buf.symheap().barrier_all()
    }
}
