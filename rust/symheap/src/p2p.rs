//! Point-to-point tagged messages (global PE numbers).

use std::mem::size_of;
use std::os::raw::{c_int, c_void};

use bytemuck::Pod;
use symheap_sys as sys;

use crate::error::{check, Error, Result};
use crate::runtime::{Symheap, ThreadLevel};
use crate::types::P2pOpts;

/// What a receive or probe found: the sender, the tag and the size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MsgStatus {
    /// The sender's global PE number.
    pub source: usize,
    /// The message's tag.
    pub tag: u32,
    /// Its size in bytes.
    pub nbytes: usize,
}

impl MsgStatus {
    fn from_raw(s: &sys::sym_msg_status_t) -> MsgStatus {
        MsgStatus { source: s.source.max(0) as usize, tag: s.tag.max(0) as u32, nbytes: s.nbytes }
    }

    /// The number of whole `T` the message holds.
    pub fn count<T>(&self) -> usize {
        if size_of::<T>() == 0 {
            0
        } else {
            self.nbytes / size_of::<T>()
        }
    }
}

fn raw_status() -> sys::sym_msg_status_t {
    sys::sym_msg_status_t { source: -1, tag: -1, nbytes: 0 }
}

fn tag_c(tag: Option<u32>, what: &str) -> Result<c_int> {
    match tag {
        None => Ok(sys::SYM_ANY_TAG),
        Some(t) => c_int::try_from(t)
            .map_err(|_| Error::InvalidArg(format!("{}: tag {} is above {}", what, t, c_int::MAX))),
    }
}

/// Messages between PEs: `send` returns when the buffer may be reused;
/// `recv` takes the oldest matching message of a sender (`None` as the
/// source: any PE, served in turn; `None` as the tag: any tag).  Every call
/// has a deadline: `opts.timeout`, else the world team's timeout.  A PE's
/// point-to-point calls run one at a time (the handle serialises them).
impl<L: ThreadLevel> Symheap<L> {
    /// Send `buf` to `pe` with `tag` (`sym_send_opts`).
    pub fn send<T: Pod>(&self, buf: &[T], pe: usize, tag: u32, opts: &P2pOpts) -> Result<()> {
        let pe = self.pe(pe, "Symheap::send")?;
        let tag = tag_c(Some(tag), "Symheap::send")?;
        let o = opts.raw();
        let _g = self.p2p_guard();
        // SAFETY: buf is its byte length of readable memory; the library
        // copies it before returning.
        check(unsafe {
            sys::sym_send_opts(buf.as_ptr() as *const c_void, std::mem::size_of_val(buf), pe, tag, &o)
        })
    }

    /// Receive the next matching message into `buf` (`sym_recv_opts`).  A
    /// message larger than `buf` is [`Error::Truncated`] with the size
    /// needed, and stays queued for a larger buffer.
    pub fn recv<T: Pod>(
        &self,
        buf: &mut [T],
        from: Option<usize>,
        tag: Option<u32>,
        opts: &P2pOpts,
    ) -> Result<MsgStatus> {
        let src = match from {
            None => sys::SYM_ANY_PE,
            Some(p) => self.pe(p, "Symheap::recv")?,
        };
        let tag = tag_c(tag, "Symheap::recv")?;
        let o = opts.raw();
        let mut st = raw_status();
        let _g = self.p2p_guard();
        // SAFETY: buf is its byte length of writable memory, exclusively
        // borrowed; the library writes at most that many bytes (a larger
        // message is TRUNCATED, nothing written); any bytes are valid Pod.
        let r = check(unsafe {
            sys::sym_recv_opts(
                buf.as_mut_ptr() as *mut c_void,
                std::mem::size_of_val(buf),
                src,
                tag,
                &o,
                &mut st,
            )
        });
        match r {
            Ok(()) => Ok(MsgStatus::from_raw(&st)),
            Err(Error::Truncated { message, .. }) => Err(Error::Truncated { needed: st.nbytes, message }),
            Err(e) => Err(e),
        }
    }

    /// Receive the next matching message whatever its size, as bytes: a
    /// probe, then a receive of the message it found.
    pub fn recv_vec(
        &self,
        from: Option<usize>,
        tag: Option<u32>,
        opts: &P2pOpts,
    ) -> Result<(Vec<u8>, MsgStatus)> {
        let found = self.probe(from, tag, opts)?;
        let mut v = vec![0u8; found.nbytes];
        let st = self.recv(&mut v, Some(found.source), Some(found.tag), opts)?;
        v.truncate(st.nbytes);
        Ok((v, st))
    }

    /// Send `sendbuf` to `dest` and receive from `from` at once
    /// (`sym_sendrecv_opts`): never deadlocks.
    #[allow(clippy::too_many_arguments)]
    pub fn sendrecv<T: Pod, U: Pod>(
        &self,
        sendbuf: &[T],
        dest: usize,
        sendtag: u32,
        recvbuf: &mut [U],
        from: Option<usize>,
        recvtag: Option<u32>,
        opts: &P2pOpts,
    ) -> Result<MsgStatus> {
        let dest = self.pe(dest, "Symheap::sendrecv")?;
        let src = match from {
            None => sys::SYM_ANY_PE,
            Some(p) => self.pe(p, "Symheap::sendrecv")?,
        };
        let stag = tag_c(Some(sendtag), "Symheap::sendrecv")?;
        let rtag = tag_c(recvtag, "Symheap::sendrecv")?;
        let o = opts.raw();
        let mut st = raw_status();
        let _g = self.p2p_guard();
        // SAFETY: two distinct borrows (Rust forbids the overlap the
        // library rejects); each its byte length; writes bounded by
        // recvbuf's length.
        let r = check(unsafe {
            sys::sym_sendrecv_opts(
                sendbuf.as_ptr() as *const c_void,
                std::mem::size_of_val(sendbuf),
                dest,
                stag,
                recvbuf.as_mut_ptr() as *mut c_void,
                std::mem::size_of_val(recvbuf),
                src,
                rtag,
                &o,
                &mut st,
            )
        });
        match r {
            Ok(()) => Ok(MsgStatus::from_raw(&st)),
            Err(Error::Truncated { message, .. }) => Err(Error::Truncated { needed: st.nbytes, message }),
            Err(e) => Err(e),
        }
    }

    /// Wait until a matching message is there and describe it, without
    /// receiving it (`sym_probe`).
    pub fn probe(&self, from: Option<usize>, tag: Option<u32>, opts: &P2pOpts) -> Result<MsgStatus> {
        let src = match from {
            None => sys::SYM_ANY_PE,
            Some(p) => self.pe(p, "Symheap::probe")?,
        };
        let tag = tag_c(tag, "Symheap::probe")?;
        let o = opts.raw();
        let mut st = raw_status();
        let _g = self.p2p_guard();
        // SAFETY: options and an out-pointer.
        check(unsafe { sys::sym_probe(src, tag, &o, &mut st) })?;
        Ok(MsgStatus::from_raw(&st))
    }

    /// A matching message if one is there now (`sym_iprobe`).
    pub fn iprobe(&self, from: Option<usize>, tag: Option<u32>) -> Result<Option<MsgStatus>> {
        let src = match from {
            None => sys::SYM_ANY_PE,
            Some(p) => self.pe(p, "Symheap::iprobe")?,
        };
        let tag = tag_c(tag, "Symheap::iprobe")?;
        let mut found: c_int = 0;
        let mut st = raw_status();
        let _g = self.p2p_guard();
        // SAFETY: two out-pointers.
        check(unsafe { sys::sym_iprobe(src, tag, &mut found, &mut st) })?;
        Ok(if found != 0 { Some(MsgStatus::from_raw(&st)) } else { None })
    }
}
