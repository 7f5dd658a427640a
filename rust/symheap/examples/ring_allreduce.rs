//! The textbook ring all-reduce (reduce-scatter, then all-gather, n - 1
//! steps each) written against the one-sided `Symmetric` transport: each
//! step puts one chunk into the right neighbour's buffer and waits at a
//! barrier.  The result is checked against symheap's own allreduce.
//!
//! Run: `symrun -n 4 target/debug/examples/ring_allreduce`
use std::process::ExitCode;

use symheap::transport::{Symmetric, SymmetricTransport};
use symheap::{CollOpts, Op, Symheap};

/// Elements `start(p) .. start(p + 1)` are chunk p of `len` split into `n`.
fn start(len: usize, n: usize, p: usize) -> usize {
    p * (len / n) + p.min(len % n)
}

/// Sum `data` over every rank, in place, with puts and barriers only.  The
/// transport's buffer holds two chunk-sized areas: step s writes area s % 2,
/// so one barrier a step keeps a slow reader's area intact.
fn ring_allreduce<T: Symmetric>(t: &T, data: &mut [f32]) -> Result<(), T::Error> {
    let (r, n, len) = (t.rank(), t.world_size(), data.len());
    let chunk = len / n + usize::from(len % n != 0);
    let area = chunk * 4;
    assert!(t.len() >= 2 * area, "transport buffer too small");
    let right = (r + 1) % n;
    let mut incoming = vec![0.0f32; chunk];
    // Reduce-scatter: after step s, rank r holds the sum of s + 2 ranks'
    // chunk (r - s - 1) mod n; after n - 1 steps, chunk (r + 1) mod n in full.
    for s in 0..n.saturating_sub(1) {
        let send = (r + n - s) % n;
        let recv = (r + n - s - 1) % n;
        let (a, b) = (start(len, n, send), start(len, n, send + 1));
        t.put(right, (s % 2) * area, bytemuck::cast_slice(&data[a..b]))?;
        t.barrier()?;
        let (a, b) = (start(len, n, recv), start(len, n, recv + 1));
        t.get(r, (s % 2) * area, bytemuck::cast_slice_mut(&mut incoming[..b - a]))?;
        for (x, y) in data[a..b].iter_mut().zip(&incoming) {
            *x += *y;
        }
    }
    // All-gather: pass the finished chunks around the ring.
    for s in 0..n.saturating_sub(1) {
        let step = n - 1 + s;
        let send = (r + 1 + n - s) % n;
        let recv = (r + n - s) % n;
        let (a, b) = (start(len, n, send), start(len, n, send + 1));
        t.put(right, (step % 2) * area, bytemuck::cast_slice(&data[a..b]))?;
        t.barrier()?;
        let (a, b) = (start(len, n, recv), start(len, n, recv + 1));
        t.get(r, (step % 2) * area, bytemuck::cast_slice_mut(&mut incoming[..b - a]))?;
        data[a..b].copy_from_slice(&incoming[..b - a]);
    }
    Ok(())
}

fn run() -> Result<bool, symheap::Error> {
    let sym = Symheap::init()?;
    let (me, n) = (sym.my_pe(), sym.n_pes());
    let world = sym.world();
    let mut ok = true;
    // Sizes 0, 1, odd, fewer than the ranks, and larger than a mailbox.
    for &len in &[0usize, 1, 3, 1001, 100_003] {
        let input: Vec<f32> = (0..len).map(|i| ((me * 7 + i) % 13) as f32).collect();
        let chunk = len / n + usize::from(len % n != 0);
        let transport = SymmetricTransport::new(&sym, 2 * chunk * 4)?;
        let mut ring = input.clone();
        ring_allreduce(&transport, &mut ring)?;
        let mut native = vec![0.0f32; len];
        world.allreduce(&mut native, &input, Op::Sum, &CollOpts::default())?;
        // small integers: every order of summation gives the same bits
        let same = ring == native;
        if !same {
            let i = ring.iter().zip(&native).position(|(a, b)| a != b).unwrap_or(0);
            eprintln!(
                "PE {}: ring_allreduce of {} floats differs at {}: {} vs {}",
                me, len, i, ring[i], native[i]
            );
        }
        ok &= same;
    }
    // Every PE's verdict, so each one exits with the job's.
    let mut all = [u8::from(ok)];
    world.allreduce_in_place(&mut all, Op::Min, &CollOpts::default())?;
    if me == 0 && all[0] == 1 {
        println!("ring_allreduce over Symmetric: {} PEs, matches symheap's allreduce", n);
    }
    Ok(all[0] == 1)
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("ring_allreduce: {}", e);
            ExitCode::FAILURE
        }
    }
}
