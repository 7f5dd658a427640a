//! The textbook binomial-tree broadcast written against the
//! `PointToPoint` transport (tagged send and receive): each rank receives
//! from its parent, then sends to its children, largest subtree first.  The
//! result is checked against symheap's own broadcast.
//!
//! Run: `symrun -n 4 target/debug/examples/binomial_broadcast`
use std::process::ExitCode;
use std::time::Duration;

use symheap::transport::{P2pTransport, PointToPoint};
use symheap::{CollOpts, Op, P2pOpts, Symheap};

const TAG: u32 = 7;

/// Broadcast `data` of `root` to every rank: ranks relative to the root
/// form a binomial tree in which rank v's parent is v without its lowest
/// set bit.
fn binomial_broadcast<T: PointToPoint>(t: &T, data: &mut Vec<u8>, root: usize) -> Result<(), T::Error> {
    let (n, r) = (t.world_size(), t.rank());
    let v = (r + n - root) % n;
    let mut mask = 1;
    while mask < n {
        if v & mask != 0 {
            *data = t.recv((v - mask + root) % n, TAG)?;
            break;
        }
        mask <<= 1;
    }
    mask >>= 1;
    while mask > 0 {
        if v + mask < n {
            t.send((v + mask + root) % n, TAG, data)?;
        }
        mask >>= 1;
    }
    Ok(())
}

fn run() -> Result<bool, symheap::Error> {
    let sym = Symheap::init()?;
    let (me, n) = (sym.my_pe(), sym.n_pes());
    let world = sym.world();
    let transport = P2pTransport::new(&sym, P2pOpts::timeout(Duration::from_secs(30)));
    let mut ok = true;
    // Every root; sizes 0, 1, odd and larger than a mailbox.
    for root in 0..n {
        for &len in &[0usize, 1, 77, 300_001] {
            let mine: Vec<u8> = (0..len).map(|i| (i * 31 + me * 17 + 5) as u8).collect();
            let mut tree = mine.clone();
            binomial_broadcast(&transport, &mut tree, root)?;
            let mut native = mine.clone();
            world.broadcast(&mut native, root, &CollOpts::default())?;
            if tree != native {
                eprintln!("PE {}: binomial_broadcast of {} bytes from {} differs", me, len, root);
                ok = false;
            }
        }
    }
    let mut all = [u8::from(ok)];
    world.allreduce_in_place(&mut all, Op::Min, &CollOpts::default())?;
    if me == 0 && all[0] == 1 {
        println!("binomial_broadcast over PointToPoint: {} PEs, matches symheap's broadcast", n);
    }
    Ok(all[0] == 1)
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("binomial_broadcast: {}", e);
            ExitCode::FAILURE
        }
    }
}
