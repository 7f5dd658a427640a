//! Errors: one variant per `SYM_ERR_*` status, each with the library's
//! detail message (`sym_last_error()`, which names the operation, the PEs
//! and the sizes).

use std::ffi::CStr;
use std::fmt;

use symheap_sys as sys;

/// The status of a failed call and its message.
///
/// Every variant but [`Error::Truncated`] and [`Error::Unknown`] carries the
/// message only; [`Error::status`] gives the C status code and
/// [`Error::name`] its name (`"SYM_ERR_TIMEOUT"`).  Arguments the crate
/// rejects itself before calling the library (a slice of the wrong length,
/// a PE number that does not fit a C `int`) come back as the variant the
/// library would use, with a message naming the Rust call.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// `SYM_ERR_INVALID_ARG`: a bad argument (a wrong count, a bad team,
    /// an op the datatype does not support, ...).
    InvalidArg(String),
    /// `SYM_ERR_INVALID_PE`: a PE number out of range.
    InvalidPe(String),
    /// `SYM_ERR_NOT_SYMMETRIC`: an address outside the symmetric heap.
    NotSymmetric(String),
    /// `SYM_ERR_NO_MEMORY`: not enough symmetric memory.
    NoMemory(String),
    /// `SYM_ERR_TIMEOUT`: a wait reached its deadline; the message names
    /// what it waited for and which PEs did not arrive.
    Timeout(String),
    /// `SYM_ERR_PEER_LOST`: a PE died or exited without finalizing.
    PeerLost(String),
    /// `SYM_ERR_NOT_INITIALIZED`.
    NotInitialized(String),
    /// `SYM_ERR_ALREADY_INITIALIZED`: another [`crate::Symheap`] is alive.
    AlreadyInitialized(String),
    /// `SYM_ERR_CONFIG`: a malformed `SYMHEAP_*` variable.
    Config(String),
    /// `SYM_ERR_SYSTEM`: an operating system call failed.
    System(String),
    /// `SYM_ERR_ABORTED`: the job was aborted.
    Aborted(String),
    /// `SYM_ERR_BOOTSTRAP`: the job could not be formed.
    Bootstrap(String),
    /// `SYM_ERR_MISMATCH`: PEs made different collective calls.
    Mismatch(String),
    /// `SYM_ERR_TRUNCATED`: a message larger than the receive buffer;
    /// `needed` is its size in bytes.
    Truncated {
        /// Bytes the message needs.
        needed: usize,
        /// The library's message.
        message: String,
    },
    /// `SYM_ERR_UNAVAILABLE`: a feature or transport this build lacks.
    Unavailable(String),
    /// `SYM_ERR_TRANSPORT`: the transport failed.
    Transport(String),
    /// `SYM_ERR_INTERNAL`: a bug in symheap.
    Internal(String),
    /// A status this crate does not know (a newer library).
    Unknown {
        /// The C status code.
        status: i32,
        /// The library's message.
        message: String,
    },
}

/// `Result` with [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// The error of C status `status` with `message`; `None` for `SYM_OK`.
    pub fn from_status(status: i32, message: String) -> Option<Error> {
        Some(match status {
            sys::SYM_OK => return None,
            sys::SYM_ERR_INVALID_ARG => Error::InvalidArg(message),
            sys::SYM_ERR_INVALID_PE => Error::InvalidPe(message),
            sys::SYM_ERR_NOT_SYMMETRIC => Error::NotSymmetric(message),
            sys::SYM_ERR_NO_MEMORY => Error::NoMemory(message),
            sys::SYM_ERR_TIMEOUT => Error::Timeout(message),
            sys::SYM_ERR_PEER_LOST => Error::PeerLost(message),
            sys::SYM_ERR_NOT_INITIALIZED => Error::NotInitialized(message),
            sys::SYM_ERR_ALREADY_INITIALIZED => Error::AlreadyInitialized(message),
            sys::SYM_ERR_CONFIG => Error::Config(message),
            sys::SYM_ERR_SYSTEM => Error::System(message),
            sys::SYM_ERR_ABORTED => Error::Aborted(message),
            sys::SYM_ERR_BOOTSTRAP => Error::Bootstrap(message),
            sys::SYM_ERR_MISMATCH => Error::Mismatch(message),
            sys::SYM_ERR_TRUNCATED => Error::Truncated { needed: 0, message },
            sys::SYM_ERR_UNAVAILABLE => Error::Unavailable(message),
            sys::SYM_ERR_TRANSPORT => Error::Transport(message),
            sys::SYM_ERR_INTERNAL => Error::Internal(message),
            status => Error::Unknown { status, message },
        })
    }

    /// The C status code (`SYM_ERR_*`, negative).
    pub fn status(&self) -> i32 {
        match self {
            Error::InvalidArg(_) => sys::SYM_ERR_INVALID_ARG,
            Error::InvalidPe(_) => sys::SYM_ERR_INVALID_PE,
            Error::NotSymmetric(_) => sys::SYM_ERR_NOT_SYMMETRIC,
            Error::NoMemory(_) => sys::SYM_ERR_NO_MEMORY,
            Error::Timeout(_) => sys::SYM_ERR_TIMEOUT,
            Error::PeerLost(_) => sys::SYM_ERR_PEER_LOST,
            Error::NotInitialized(_) => sys::SYM_ERR_NOT_INITIALIZED,
            Error::AlreadyInitialized(_) => sys::SYM_ERR_ALREADY_INITIALIZED,
            Error::Config(_) => sys::SYM_ERR_CONFIG,
            Error::System(_) => sys::SYM_ERR_SYSTEM,
            Error::Aborted(_) => sys::SYM_ERR_ABORTED,
            Error::Bootstrap(_) => sys::SYM_ERR_BOOTSTRAP,
            Error::Mismatch(_) => sys::SYM_ERR_MISMATCH,
            Error::Truncated { .. } => sys::SYM_ERR_TRUNCATED,
            Error::Unavailable(_) => sys::SYM_ERR_UNAVAILABLE,
            Error::Transport(_) => sys::SYM_ERR_TRANSPORT,
            Error::Internal(_) => sys::SYM_ERR_INTERNAL,
            Error::Unknown { status, .. } => *status,
        }
    }

    /// The detail message.
    pub fn message(&self) -> &str {
        match self {
            Error::InvalidArg(m)
            | Error::InvalidPe(m)
            | Error::NotSymmetric(m)
            | Error::NoMemory(m)
            | Error::Timeout(m)
            | Error::PeerLost(m)
            | Error::NotInitialized(m)
            | Error::AlreadyInitialized(m)
            | Error::Config(m)
            | Error::System(m)
            | Error::Aborted(m)
            | Error::Bootstrap(m)
            | Error::Mismatch(m)
            | Error::Unavailable(m)
            | Error::Transport(m)
            | Error::Internal(m) => m,
            Error::Truncated { message, .. } | Error::Unknown { message, .. } => message,
        }
    }

    /// The status's name, `"SYM_ERR_TIMEOUT"` (`sym_status_name`).
    pub fn name(&self) -> &'static str {
        static_str(unsafe {
            // SAFETY: sym_status_name is thread-safe, accepts any value and
            // returns a pointer to a static NUL-terminated string.
            sys::sym_status_name(self.status())
        })
    }

    /// The status's static description, `"timed out"` (`sym_strerror`).
    pub fn description(&self) -> &'static str {
        static_str(unsafe {
            // SAFETY: as in name(): any value, a static string back.
            sys::sym_strerror(self.status())
        })
    }

    pub(crate) fn invalid_arg(message: String) -> Error {
        Error::InvalidArg(message)
    }
}

/// A static C string of the library as `&'static str` ("?" if NULL or not
/// UTF-8, which the library's ASCII names never are).
fn static_str(p: *const std::os::raw::c_char) -> &'static str {
    if p.is_null() {
        return "?";
    }
    // SAFETY: p is non-NULL and points to a NUL-terminated string in the
    // library's static storage (the callers' contract), alive for 'static.
    unsafe { CStr::from_ptr(p) }.to_str().unwrap_or("?")
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.message().is_empty() {
            write!(f, "{} ({})", self.description(), self.name())
        } else {
            write!(f, "{} ({})", self.message(), self.name())
        }
    }
}

impl std::error::Error for Error {}

/// The calling thread's detail message of its last failed call.
pub(crate) fn last_error() -> String {
    // SAFETY: sym_last_error is thread-safe and returns a pointer to this
    // thread's NUL-terminated buffer (never NULL), valid until this thread's
    // next failing call; it is copied out at once.
    let p = unsafe { sys::sym_last_error() };
    if p.is_null() {
        return String::new();
    }
    // SAFETY: non-NULL, NUL-terminated, not changed while we copy (only
    // this thread writes it, and it is here).
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

/// `Ok(())` for `SYM_OK`, else the error with this thread's message.
pub(crate) fn check(status: sys::sym_status_t) -> Result<()> {
    match Error::from_status(status, String::new()) {
        None => Ok(()),
        Some(_) => Err(Error::from_status(status, last_error()).expect("an error status")),
    }
}
