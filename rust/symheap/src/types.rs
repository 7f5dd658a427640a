//! Element types: what the collectives reduce, the atomics update and the
//! waits compare; half-precision floats; ops, algorithms, comparisons and
//! per-call options.

use std::os::raw::c_int;
use std::time::Duration;

use bytemuck::{Pod, Zeroable};
use symheap_sys as sys;

use crate::error::{Error, Result};

mod sealed {
    pub trait Sealed {}
}

/// An element type of the collectives: `i8` .. `u64`, `f32`, `f64`,
/// [`F16`] and [`Bf16`] (`sym_datatype_t`).  Sealed: the library reduces
/// these and no others.
pub trait Element: Pod + Send + Sync + sealed::Sealed {
    /// The library's datatype.
    const DATATYPE: sys::sym_datatype_t;
    /// Whether the bitwise ops apply (integers).
    const INTEGER: bool;
}

macro_rules! element {
    ($t:ty, $dt:ident, $int:expr) => {
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const DATATYPE: sys::sym_datatype_t = sys::$dt;
            const INTEGER: bool = $int;
        }
    };
}
element!(i8, SYM_INT8, true);
element!(i16, SYM_INT16, true);
element!(i32, SYM_INT32, true);
element!(i64, SYM_INT64, true);
element!(u8, SYM_UINT8, true);
element!(u16, SYM_UINT16, true);
element!(u32, SYM_UINT32, true);
element!(u64, SYM_UINT64, true);
element!(f32, SYM_FLOAT, false);
element!(f64, SYM_DOUBLE, false);
element!(F16, SYM_FLOAT16, false);
element!(Bf16, SYM_BFLOAT16, false);

/// An IEEE binary16 value, as its bits (`SYM_FLOAT16`); reductions
/// accumulate in `f32`.  Conversions round as the library's reductions do.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct F16(pub u16);

/// A bfloat16 value, as its bits (`SYM_BFLOAT16`); reductions accumulate
/// in `f32`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct Bf16(pub u16);

// SAFETY: both are repr(transparent) over u16: no padding, every bit
// pattern valid, all-zero valid (+0.0), Copy and 'static.
unsafe impl Zeroable for F16 {}
unsafe impl Pod for F16 {}
unsafe impl Zeroable for Bf16 {}
unsafe impl Pod for Bf16 {}

impl F16 {
    /// Round `v` to nearest, ties to even (`sym_f16_from_float`).
    pub fn from_f32(v: f32) -> F16 {
        // SAFETY: a pure function of its argument, usable before init.
        F16(unsafe { sys::sym_f16_from_float(v) })
    }
    /// The exact `f32` value (`sym_float_from_f16`).
    pub fn to_f32(self) -> f32 {
        // SAFETY: pure.
        unsafe { sys::sym_float_from_f16(self.0) }
    }
}

impl Bf16 {
    /// Round `v` to nearest, ties to even (`sym_bf16_from_float`).
    pub fn from_f32(v: f32) -> Bf16 {
        // SAFETY: pure.
        Bf16(unsafe { sys::sym_bf16_from_float(v) })
    }
    /// The exact `f32` value (`sym_float_from_bf16`).
    pub fn to_f32(self) -> f32 {
        // SAFETY: pure.
        unsafe { sys::sym_float_from_bf16(self.0) }
    }
}

/// A reduction (`sym_op_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// Sum.
    Sum,
    /// Product.
    Prod,
    /// Minimum.
    Min,
    /// Maximum.
    Max,
    /// Sum divided by the team's size (integers: summed in 64 bits,
    /// truncated).
    Avg,
    /// Bitwise and (integers only).
    Band,
    /// Bitwise or (integers only).
    Bor,
    /// Bitwise xor (integers only).
    Bxor,
}

impl Op {
    pub(crate) fn raw(self) -> sys::sym_op_t {
        match self {
            Op::Sum => sys::SYM_OP_SUM,
            Op::Prod => sys::SYM_OP_PROD,
            Op::Min => sys::SYM_OP_MIN,
            Op::Max => sys::SYM_OP_MAX,
            Op::Avg => sys::SYM_OP_AVG,
            Op::Band => sys::SYM_OP_BAND,
            Op::Bor => sys::SYM_OP_BOR,
            Op::Bxor => sys::SYM_OP_BXOR,
        }
    }

    /// Every op, in the library's order.
    pub const ALL: [Op; 8] = [Op::Sum, Op::Prod, Op::Min, Op::Max, Op::Avg, Op::Band, Op::Bor, Op::Bxor];
}

/// A collective algorithm (`sym_algorithm_t`).  Which collective takes
/// which is in `include/symheap/coll.h`; another is `InvalidArg`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// Chosen by size and team size (`SYMHEAP_<COLL>_ALGORITHM` first).
    #[default]
    Auto,
    /// Every PE exchanges directly with every peer.
    Naive,
    /// Neighbour to neighbour, pipelined chunks.
    Ring,
    /// Binomial tree.
    Tree,
    /// Recursive doubling.
    RecursiveDoubling,
    /// Pairwise exchange (all-to-all).
    Pairwise,
    /// Members on one host read each other's buffers where they lie
    /// (falls back to the automatic choice where it cannot run).
    Direct,
}

impl Algorithm {
    pub(crate) fn raw(self) -> sys::sym_algorithm_t {
        match self {
            Algorithm::Auto => sys::SYM_ALGO_AUTO,
            Algorithm::Naive => sys::SYM_ALGO_NAIVE,
            Algorithm::Ring => sys::SYM_ALGO_RING,
            Algorithm::Tree => sys::SYM_ALGO_TREE,
            Algorithm::RecursiveDoubling => sys::SYM_ALGO_RD,
            Algorithm::Pairwise => sys::SYM_ALGO_PAIRWISE,
            Algorithm::Direct => sys::SYM_ALGO_DIRECT,
        }
    }

    /// Every algorithm.
    pub const ALL: [Algorithm; 7] = [
        Algorithm::Auto,
        Algorithm::Naive,
        Algorithm::Ring,
        Algorithm::Tree,
        Algorithm::RecursiveDoubling,
        Algorithm::Pairwise,
        Algorithm::Direct,
    ];
}

/// Per-call options of a collective (`sym_coll_opts_t`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CollOpts {
    /// The algorithm; `Auto` by default.
    pub algorithm: Algorithm,
    /// This call's deadline; `None`: the team's timeout.
    pub timeout: Option<Duration>,
    /// The caller's word that every member's buffers of the call are on
    /// the symmetric heap (`SymVec`s): the automatic choice may then read
    /// them in place from a smaller size on.  A hint, the same on every
    /// member; any buffer is still handled correctly.
    pub symmetric: bool,
}

impl CollOpts {
    /// Options with this algorithm.
    pub fn algorithm(algorithm: Algorithm) -> CollOpts {
        CollOpts { algorithm, ..CollOpts::default() }
    }

    /// These options with a deadline.
    pub fn with_timeout(mut self, timeout: Duration) -> CollOpts {
        self.timeout = Some(timeout);
        self
    }

    /// These options with the caller's word that the buffers are symmetric.
    pub fn with_symmetric(mut self) -> CollOpts {
        self.symmetric = true;
        self
    }

    pub(crate) fn raw(&self) -> sys::sym_coll_opts_t {
        sys::sym_coll_opts_t {
            algorithm: self.algorithm.raw(),
            timeout_s: self.timeout.map_or(0.0, |d| d.as_secs_f64()),
            symmetric: i32::from(self.symmetric),
        }
    }
}

/// Per-call options of a point-to-point call (`sym_p2p_opts_t`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct P2pOpts {
    /// This call's deadline; `None`: the world team's timeout.
    pub timeout: Option<Duration>,
}

impl P2pOpts {
    /// Options with a deadline.
    pub fn timeout(timeout: Duration) -> P2pOpts {
        P2pOpts { timeout: Some(timeout) }
    }

    pub(crate) fn raw(&self) -> sys::sym_p2p_opts_t {
        sys::sym_p2p_opts_t { timeout_s: self.timeout.map_or(0.0, |d| d.as_secs_f64()) }
    }
}

/// A comparison of the waits (`sym_cmp_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cmp {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `<`
    Lt,
    /// `<=`
    Le,
}

impl Cmp {
    pub(crate) fn raw(self) -> sys::sym_cmp_t {
        match self {
            Cmp::Eq => sys::SYM_CMP_EQ,
            Cmp::Ne => sys::SYM_CMP_NE,
            Cmp::Gt => sys::SYM_CMP_GT,
            Cmp::Ge => sys::SYM_CMP_GE,
            Cmp::Lt => sys::SYM_CMP_LT,
            Cmp::Le => sys::SYM_CMP_LE,
        }
    }
}

/// How a put-with-signal updates the signal word (`sym_signal_op_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SignalOp {
    /// The word becomes the value.
    Set,
    /// The value is added to the word, atomically.
    Add,
}

impl SignalOp {
    pub(crate) fn raw(self) -> sys::sym_signal_op_t {
        match self {
            SignalOp::Set => sys::SYM_SIGNAL_SET,
            SignalOp::Add => sys::SYM_SIGNAL_ADD,
        }
    }
}

/// A count or number as a C int, or `InvalidArg` naming it.
pub(crate) fn c_int_of(v: usize, what: &str) -> Result<c_int> {
    c_int::try_from(v).map_err(|_| Error::invalid_arg(format!("{}: {} does not fit a C int", what, v)))
}
