//! One PE of a test job: `symrun -n N pe <case>`.  Each case checks the
//! safe API against references computed locally and exits non-zero (with
//! a message naming the PE) at the first difference.
use std::process::exit;
use std::time::{Duration, Instant};

use symheap::transport::{Symmetric, SymmetricTransport};
use symheap::{
    Algorithm, Bf16, Bitwise, Cmp, CollOpts, Element, Error, Multiple, Op, P2pOpts, SignalOp, SymBox, SymVec,
    Symheap, F16,
};

type R<T = ()> = Result<T, String>;

macro_rules! ensure {
    ($c:expr, $($fmt:tt)*) => {
        if !$c {
            return Err(format!($($fmt)*));
        }
    };
}

/// `?` for the crate's errors inside cases, naming the call.
fn ok<T>(r: symheap::Result<T>, what: &str) -> R<T> {
    r.map_err(|e| format!("{}: {}", what, e))
}

/// The sizes every data path runs at: 0, 1, odd, and larger than a
/// mailbox chunk (a team's area is 64 KiB by default).
const SIZES: [usize; 4] = [0, 1, 7, 70_001];

fn opts() -> CollOpts {
    CollOpts::default()
}

fn main() {
    let case = std::env::args().nth(1).unwrap_or_default();
    let r = match case.as_str() {
        "basics" => basics(),
        "rma" => rma(),
        "atomics" => atomics(),
        "signals" => signals(),
        "teams" => teams(),
        "collectives" => collectives(),
        "nonblocking" => nonblocking(),
        "nonblocking_v" => nonblocking_v(),
        "p2p" => p2p(),
        "errors" => errors(),
        "killed_peer" => killed_peer(),
        "threads" => threads(),
        "init_with_threads" => init_with_threads(),
        _ => Err(format!("unknown case '{}'", case)),
    };
    if let Err(msg) = r {
        eprintln!("FAILED {}: {}", case, msg);
        exit(1);
    }
}

fn init() -> R<Symheap> {
    ok(Symheap::init(), "Symheap::init")
}

/// Run a case's body on a fresh handle, then finalize (everything the body
/// made is dropped by then: it borrows the handle).
fn with_sym(f: impl FnOnce(&Symheap) -> R) -> R {
    let sym = init()?;
    f(&sym)?;
    ok(sym.finalize(), "finalize")
}

// ---- the handle, symmetric memory ------------------------------------------

fn basics() -> R {
    with_sym(|sym| {
        let (me, n) = (sym.my_pe(), sym.n_pes());
        ensure!(me < n && n >= 1, "my_pe {} of {}", me, n);
        match Symheap::init() {
            Err(Error::AlreadyInitialized(m)) => ensure!(!m.is_empty(), "no message"),
            other => return Err(format!("a second init gave {:?}", other.map(|_| ()))),
        }
        let world = sym.world();
        ensure!(world.my_pe() == me && world.n_pes() == n, "world team numbers");
        ensure!(ok(world.members(), "members")? == (0..n).collect::<Vec<_>>(), "world members");
        // A SymBox and a SymVec: zeroed, local writes read back, the same
        // offset on every PE.
        let b = ok(SymBox::new(sym, 41u64 + me as u64), "SymBox::new")?;
        ensure!(ok(b.load(), "load")? == 41 + me as u64, "SymBox value");
        let v = ok(SymVec::<i32>::new(sym, 1000), "SymVec::new")?;
        ensure!(ok(v.read(), "read")?.iter().all(|&x| x == 0), "SymVec not zeroed");
        let mine: Vec<i32> = (0..1000).map(|i| i * (me as i32 + 1)).collect();
        ok(v.write(0, &mine), "write")?;
        ensure!(ok(v.read(), "read")? == mine, "SymVec read back");
        let off = ok(v.offset(), "offset")?.expect("non-empty");
        let mut offs = vec![0u64; n];
        ok(world.all_gather(&mut offs, &[off], &opts()), "all_gather offsets")?;
        ensure!(offs.iter().all(|&o| o == off), "offsets differ between PEs: {:?}", offs);
        let empty = ok(SymVec::<u8>::new(sym, 0), "SymVec::new(0)")?;
        ensure!(empty.is_empty() && ok(empty.offset(), "offset")?.is_none(), "empty object");
        ok(sym.put(&empty, 0, &[], (me + 1) % n), "put of nothing")?;
        let (free, largest) = ok(sym.heap_free(), "heap_free")?;
        ensure!(largest <= free && free > 0, "heap_free {} {}", free, largest);
        ok(b.free(), "SymBox::free")?;
        ok(v.free(), "SymVec::free")?;
        Ok(())
    })
}

fn pattern(pe: usize, i: usize) -> f64 {
    (pe * 1_000_003 + i) as f64
}

fn rma() -> R {
    with_sym(|sym| {
        let (me, n) = (sym.my_pe(), sym.n_pes());
        let (right, left) = ((me + 1) % n, (me + n - 1) % n);
        for &len in &SIZES {
            let v = ok(SymVec::<f64>::new(sym, len), "SymVec::new")?;
            let src: Vec<f64> = (0..len).map(|i| pattern(me, i)).collect();
            ok(sym.put(&v, 0, &src, right), "put")?;
            ok(sym.barrier_all(), "barrier_all")?;
            let got = ok(v.read(), "read")?;
            ensure!(
                got.iter().enumerate().all(|(i, &x)| x == pattern(left, i)),
                "put of {}: wrong data",
                len
            );
            // get the left neighbour's copy (holding its own left's pattern)
            let mut dst = vec![0.0f64; len];
            ok(sym.get(&mut dst, &v, 0, left), "get")?;
            let ll = (left + n - 1) % n;
            ensure!(dst.iter().enumerate().all(|(i, &x)| x == pattern(ll, i)), "get of {}: wrong data", len);
            ok(sym.barrier_all(), "barrier_all")?;
            // non-blocking: a put into the middle and a get, completed by the scope
            if len >= 2 {
                let part: Vec<f64> = vec![-1.0 - me as f64; len / 2];
                let mut back = vec![0.0f64; len];
                ok(
                    sym.scope(|s| {
                        s.put(&v, 1, &part, right)?;
                        s.get(&mut back, &v, 0, me)
                    }),
                    "scope",
                )?;
                ok(sym.barrier_all(), "barrier_all")?;
                let got = ok(v.read(), "read")?;
                for (i, &x) in got.iter().enumerate() {
                    let want = if i >= 1 && i <= len / 2 { -1.0 - left as f64 } else { pattern(left, i) };
                    ensure!(x == want, "put_nbi of {}: element {} is {}, expected {}", len, i, x, want);
                }
                ok(sym.barrier_all(), "barrier_all")?;
            }
            ok(v.free(), "free")?;
        }
        // bytes at an odd offset of a u8 object
        let v = ok(SymVec::<u8>::new(sym, 101), "SymVec::new")?;
        let src: Vec<u8> = (0..37).map(|i| (i * 7 + me) as u8).collect();
        ok(sym.put(&v, 3, &src, right), "put u8")?;
        ok(sym.barrier_all(), "barrier_all")?;
        let got = ok(v.read(), "read")?;
        for (i, &x) in got.iter().enumerate() {
            let want = if (3..40).contains(&i) { ((i - 3) * 7 + left) as u8 } else { 0 };
            ensure!(x == want, "u8 put at offset 3: element {} is {}, expected {}", i, x, want);
        }
        Ok(())
    })
}

// ---- atomics and signals -----------------------------------------------------

fn atomics() -> R {
    with_sym(|sym| {
        let (me, n) = (sym.my_pe(), sym.n_pes());
        let c64 = ok(SymBox::new(sym, 0u64), "SymBox")?;
        let i64w = ok(SymBox::new(sym, 0i64), "SymBox")?;
        let c32 = ok(SymBox::new(sym, 0u32), "SymBox")?;
        let i32w = ok(SymBox::new(sym, 0i32), "SymBox")?;
        let bits = ok(SymBox::new(sym, 0u64), "SymBox")?;
        let winner = ok(SymBox::new(sym, u64::MAX), "SymBox")?;
        // every PE adds to PE 0's words, fetching and not
        let mut olds = Vec::new();
        for k in 0..10u64 {
            olds.push(ok(sym.atomic_fetch_add(&c64, k + 1, 0), "fetch_add u64")?);
            ok(sym.atomic_add(&i64w, -(k as i64) - 1, 0), "add i64")?;
            ok(sym.atomic_inc(&c32, 0), "inc u32")?;
            ok(sym.atomic_fetch_inc(&i32w, 0), "fetch_inc i32")?;
        }
        ensure!(olds.windows(2).all(|w| w[1] > w[0]), "fetch_add olds not increasing: {:?}", olds);
        ok(sym.atomic_bitwise(&bits, Bitwise::Or, 1u64 << (me % 64), 0), "or")?;
        let old = ok(sym.atomic_compare_swap(&winner, u64::MAX, me as u64, 0), "compare_swap")?;
        ok(sym.barrier_all(), "barrier_all")?;
        if me == 0 {
            let sum: u64 = (1..=10).sum::<u64>() * n as u64;
            ensure!(ok(c64.load(), "load")? == sum, "u64 sum {} != {}", ok(c64.load(), "")?, sum);
            ensure!(ok(i64w.load(), "load")? == -(sum as i64), "i64 sum");
            ensure!(ok(c32.load(), "load")? == 10 * n as u32, "u32 inc");
            ensure!(ok(i32w.load(), "load")? == 10 * n as i32, "i32 fetch_inc");
            let want: u64 = (0..n).fold(0, |a, p| a | 1u64 << (p % 64));
            ensure!(ok(bits.load(), "load")? == want, "or bits");
            ensure!((ok(winner.load(), "load")? as usize) < n, "no compare_swap winner");
        }
        ensure!(old == u64::MAX || (old as usize) < n, "compare_swap old {}", old);
        ok(sym.barrier_all(), "barrier_all")?;
        // fetch, swap, set, xor, fetch_and on the right neighbour's words
        let right = (me + 1) % n;
        let w = ok(SymBox::new(sym, 0u64), "SymBox")?;
        ok(sym.atomic_set(&w, 0xff00 + me as u64, right), "set")?;
        ok(sym.barrier_all(), "barrier_all")?;
        let left = (me + n - 1) % n;
        ensure!(ok(w.load(), "load")? == 0xff00 + left as u64, "set");
        ok(sym.barrier_all(), "barrier_all")?;
        ensure!(ok(sym.atomic_fetch(&w, right), "fetch")? == 0xff00 + me as u64, "fetch");
        ensure!(ok(sym.atomic_swap(&w, 7, right), "swap")? == 0xff00 + me as u64, "swap old");
        ensure!(ok(sym.atomic_fetch_bitwise(&w, Bitwise::Xor, 5, right), "fetch_xor")? == 7, "fetch_xor old");
        ensure!(ok(sym.atomic_fetch_bitwise(&w, Bitwise::And, 6, right), "fetch_and")? == 2, "fetch_and old");
        ensure!(ok(sym.atomic_fetch(&w, right), "fetch")? == 2, "after and");
        // negative values travel as two's complement
        let s = ok(SymBox::new(sym, -5i32), "SymBox")?;
        ensure!(ok(sym.atomic_fetch_add(&s, -3, me), "fetch_add i32")? == -5, "i32 old");
        ensure!(ok(s.load(), "load")? == -8, "i32 value");
        // errors
        match sym.atomic_inc(&w, n) {
            Err(Error::InvalidPe(_)) => {}
            other => return Err(format!("atomic on PE {}: {:?}", n, other)),
        }
        Ok(())
    })
}

fn signals() -> R {
    with_sym(|sym| {
        let (me, n) = (sym.my_pe(), sym.n_pes());
        let (right, left) = ((me + 1) % n, (me + n - 1) % n);
        let data = ok(SymVec::<u32>::new(sym, 5000), "SymVec")?;
        let sig = ok(SymBox::new(sym, 0u64), "SymBox")?;
        for round in 1..=3u64 {
            let src: Vec<u32> = (0..5000).map(|i| i * 3 + me as u32 + round as u32).collect();
            ok(sym.put_signal(&data, 0, &src, &sig, 1, SignalOp::Add, right), "put_signal")?;
            let v = ok(sym.signal_wait_until(&sig, Cmp::Ge, round), "signal_wait_until")?;
            ensure!(v >= round, "signal value {}", v);
            let got = ok(data.read(), "read")?;
            ensure!(
                got.iter().enumerate().all(|(i, &x)| x == i as u32 * 3 + left as u32 + round as u32),
                "round {}: data before its signal",
                round
            );
            ok(sym.barrier_all(), "barrier_all")?;
        }
        ensure!(ok(sym.signal_fetch(&sig), "signal_fetch")? == 3, "signal total");
        // non-blocking put-with-signal: a quiet completes it and the signal
        // says the data arrived; then one without data adds to the signal
        let nb = ok(SymVec::<u32>::new(sym, 20_001), "SymVec")?;
        let nsig = ok(SymBox::new(sym, 0u64), "SymBox")?;
        let word = |pe: usize, round: u64, i: usize| i as u32 ^ (pe as u32 * 7919 + round as u32) << 16;
        for round in 1..=3u64 {
            let src: Vec<u32> = (0..nb.len()).map(|i| word(me, round, i)).collect();
            let v = ok(
                sym.scope(|s| {
                    s.put_signal(&nb, 0, &src, &nsig, round, SignalOp::Set, right)?;
                    s.symheap().quiet()?;
                    s.symheap().signal_wait_until(&nsig, Cmp::Eq, round)
                }),
                "Scope::put_signal",
            )?;
            ensure!(v == round, "Scope::put_signal: signal {} in round {}", v, round);
            let got = ok(nb.read(), "read")?;
            ensure!(
                got.iter().enumerate().all(|(i, &x)| x == word(left, round, i)),
                "Scope::put_signal round {}: data before its signal",
                round
            );
            ok(sym.barrier_all(), "barrier_all")?;
        }
        ok(sym.scope(|s| s.put_signal(&nb, nb.len(), &[], &nsig, 10, SignalOp::Add, right)), "empty")?;
        let v = ok(sym.signal_wait_until(&nsig, Cmp::Ge, 13), "signal_wait_until")?;
        ensure!(v == 13, "Scope::put_signal of nothing: signal {}", v);
        // typed waits: i64 flag set by the left neighbour
        let flag = ok(SymBox::new(sym, 0i64), "SymBox")?;
        ensure!(!ok(sym.test(&flag, Cmp::Lt, -1), "test")?, "test before");
        ok(sym.barrier_all(), "barrier_all")?;
        ok(sym.atomic_set(&flag, -7i64, right), "set")?;
        ok(sym.wait_until(&flag, Cmp::Lt, -1), "wait_until")?;
        ensure!(ok(sym.test(&flag, Cmp::Eq, -7), "test")?, "test after");
        // any / all over a vector: the left neighbour sets element `left`
        let flags = ok(SymVec::<u64>::new(sym, n), "SymVec")?;
        ok(sym.atomic_set(flags.at(me), 1u64, right), "set")?;
        ensure!(ok(sym.wait_until_any(&flags, Cmp::Eq, 1), "wait_until_any")? == Some(left), "any");
        ok(sym.barrier_all(), "barrier_all")?;
        for p in 0..n {
            ok(sym.atomic_set(flags.at(me), 2u64, p), "set")?;
        }
        ok(sym.wait_until_all(&flags, Cmp::Eq, 2), "wait_until_all")?;
        ok(sym.barrier_all(), "barrier_all")?;
        // a wait that cannot end reports a timeout naming the wait
        // (set per team: the world's timeout bounds nothing here, so use a
        // condition on a word nobody writes, with SYMHEAP_TIMEOUT from the job)
        Ok(())
    })
}

// ---- teams -------------------------------------------------------------------

fn check_team_sum(team: &symheap::Team<'_>, what: &str) -> R {
    let members = ok(team.members(), "members")?;
    let me_global = team.symheap().my_pe();
    ensure!(members[team.my_pe()] == me_global, "{}: members[my_pe] is not me", what);
    let mut sum = [0u64];
    ok(team.allreduce(&mut sum, &[me_global as u64], Op::Sum, &opts()), "allreduce")?;
    let want: u64 = members.iter().map(|&p| p as u64).sum();
    ensure!(sum[0] == want, "{}: sum {} != {}", what, sum[0], want);
    Ok(())
}

fn teams() -> R {
    with_sym(|sym| {
        let (me, n) = (sym.my_pe(), sym.n_pes());
        let world = sym.world();
        // evens
        let evens = ok(world.split_strided(0, 2, (n + 1) / 2), "split_strided")?;
        ensure!(evens.is_some() == (me % 2 == 0), "split_strided membership");
        if let Some(t) = &evens {
            ensure!(t.n_pes() == (n + 1) / 2 && t.my_pe() == me / 2, "evens numbering");
            ensure!(t.translate_pe(t.my_pe(), &world) == Some(me), "translate_pe");
            ensure!(t.local_to_global(t.my_pe()) == Some(me), "local_to_global");
            check_team_sum(t, "evens")?;
        }
        // reversed list
        let rev: Vec<usize> = (0..n).rev().collect();
        let r = ok(world.create(&rev), "create")?.ok_or("create: not a member")?;
        ensure!(r.my_pe() == n - 1 - me, "reversed numbering");
        check_team_sum(&r, "reversed")?;
        // 2-D: rows of 2 (ragged when n is odd)
        let (x, y) = ok(world.split_2d(2, n % 2 == 1), "split_2d")?;
        ensure!(x.my_pe() == me % 2, "row numbering");
        check_team_sum(&x, "row")?;
        check_team_sum(&y, "column")?;
        // mesh {1, n}: dimension 0 is this PE alone, dimension 1 everyone
        let mesh = ok(world.split_mesh(&[1, n]), "split_mesh")?;
        ensure!(mesh.len() == 2 && mesh[0].n_pes() == 1 && mesh[1].n_pes() == n, "mesh sizes");
        for (d, t) in mesh.iter().enumerate() {
            check_team_sum(t, &format!("mesh dim {}", d))?;
        }
        // timeouts per team
        ok(r.set_timeout(Duration::from_secs(9)), "set_timeout")?;
        ensure!(ok(r.timeout(), "timeout")? == Duration::from_secs(9), "timeout");
        ok(r.sync(), "sync")?;
        match world.split_mesh(&[n + 1]) {
            Err(Error::InvalidArg(_)) => {}
            other => return Err(format!("mesh of a wrong shape: {:?}", other.map(|_| ()))),
        }
        // explicit destroy returns the status; the rest drop in order
        if let Some(t) = evens {
            ok(t.destroy(), "destroy")?;
        }
        drop((mesh, x, y, r));
        Ok(())
    })
}

// ---- collectives ---------------------------------------------------------------

/// What the reference computations need of an element type.
trait Num: Element + PartialEq + std::fmt::Debug {
    fn of(v: i64) -> Self;
    fn avg(sum: i64, n: usize) -> Self;
}
macro_rules! num_int {
    ($($t:ty),*) => {$(impl Num for $t {
        fn of(v: i64) -> Self { v as $t }
        fn avg(sum: i64, n: usize) -> Self { (sum / n as i64) as $t }
    })*};
}
num_int!(i8, i16, i32, i64, u8, u16, u32, u64);
impl Num for f32 {
    fn of(v: i64) -> Self {
        v as f32
    }
    fn avg(sum: i64, n: usize) -> Self {
        sum as f32 / n as f32
    }
}
impl Num for f64 {
    fn of(v: i64) -> Self {
        v as f64
    }
    fn avg(sum: i64, n: usize) -> Self {
        sum as f64 / n as f64
    }
}
impl Num for F16 {
    fn of(v: i64) -> Self {
        F16::from_f32(v as f32)
    }
    fn avg(sum: i64, n: usize) -> Self {
        F16::from_f32(sum as f32 / n as f32)
    }
}
impl Num for Bf16 {
    fn of(v: i64) -> Self {
        Bf16::from_f32(v as f32)
    }
    fn avg(sum: i64, n: usize) -> Self {
        Bf16::from_f32(sum as f32 / n as f32)
    }
}

/// Inputs: small integers, exact in every type and every order of
/// summation (at most 4 PEs: sums <= 36, products <= 16).
fn val(op: Op, pe: usize, i: usize) -> i64 {
    match op {
        Op::Prod => 1 + ((pe + i) % 2) as i64,
        _ => ((pe * 5 + i * 3) % 10) as i64,
    }
}

fn reference(op: Op, n: usize, i: usize) -> i64 {
    let vals = (0..n).map(|p| val(op, p, i));
    match op {
        Op::Sum | Op::Avg => vals.sum(),
        Op::Prod => vals.product(),
        Op::Min => vals.min().unwrap_or(0),
        Op::Max => vals.max().unwrap_or(0),
        Op::Band => vals.fold(-1, |a, b| a & b),
        Op::Bor => vals.fold(0, |a, b| a | b),
        Op::Bxor => vals.fold(0, |a, b| a ^ b),
    }
}

fn check_eq<T: Num>(what: &str, got: &[T], want: impl Fn(usize) -> T) -> R {
    for (i, g) in got.iter().enumerate() {
        let w = want(i);
        ensure!(*g == w, "{}: element {} is {:?}, expected {:?}", what, i, g, w);
    }
    Ok(())
}

fn coll_type<T: Num>(sym: &Symheap, name: &str) -> R {
    let world = sym.world();
    let (me, n) = (sym.my_pe(), sym.n_pes());
    // the large size in bytes: odd, and past a mailbox for every type
    let large = (70_001 / std::mem::size_of::<T>()) | 1;
    for len in [0, 1, 7, large] {
        let what = |c: &str| format!("{} {} of {}", c, name, len);
        // reductions with every op the type takes
        for op in Op::ALL {
            if !T::INTEGER && matches!(op, Op::Band | Op::Bor | Op::Bxor) {
                continue;
            }
            let src: Vec<T> = (0..len).map(|i| T::of(val(op, me, i))).collect();
            let mut dst = vec![T::of(0); len];
            ok(world.allreduce(&mut dst, &src, op, &opts()), &what("allreduce"))?;
            let want = |i: usize| {
                if op == Op::Avg {
                    T::avg(reference(op, n, i), n)
                } else {
                    T::of(reference(op, n, i))
                }
            };
            check_eq(&format!("{} {:?}", what("allreduce"), op), &dst, want)?;
            if matches!(op, Op::Sum | Op::Max) {
                let root = n - 1;
                let mut r = vec![T::of(0); if me == root { len } else { 0 }];
                ok(world.reduce(&mut r, &src, op, root, &opts()), &what("reduce"))?;
                check_eq(&what("reduce"), &r, want)?;
                let mut inplace = src.clone();
                ok(world.allreduce_in_place(&mut inplace, op, &opts()), &what("allreduce_in_place"))?;
                check_eq(&what("allreduce_in_place"), &inplace, want)?;
            }
        }
        // reduce_scatter: block b of PE p holds val(Sum, p, b * len + i)
        let src: Vec<T> = (0..len * n).map(|i| T::of(val(Op::Sum, me, i))).collect();
        let mut dst = vec![T::of(0); len];
        ok(world.reduce_scatter(&mut dst, &src, Op::Sum, &opts()), &what("reduce_scatter"))?;
        check_eq(&what("reduce_scatter"), &dst, |i| T::of(reference(Op::Sum, n, me * len + i)))?;
        // broadcast from the last PE
        let mut buf: Vec<T> = (0..len).map(|i| T::of(((me + i) % 7) as i64)).collect();
        ok(world.broadcast(&mut buf, n - 1, &opts()), &what("broadcast"))?;
        check_eq(&what("broadcast"), &buf, |i| T::of(((n - 1 + i) % 7) as i64))?;
        // all_gather, gather, scatter, all_to_all
        let mine: Vec<T> = (0..len).map(|i| T::of(((me * 3 + i) % 9) as i64)).collect();
        let block = |p: usize, i: usize| T::of(((p * 3 + i) % 9) as i64);
        let mut all = vec![T::of(0); len * n];
        ok(world.all_gather(&mut all, &mine, &opts()), &what("all_gather"))?;
        check_eq(&what("all_gather"), &all, |k| block(k / len.max(1), k % len.max(1)))?;
        let mut g = vec![T::of(0); if me == 0 { len * n } else { 0 }];
        ok(world.gather(&mut g, &mine, 0, &opts()), &what("gather"))?;
        check_eq(&what("gather"), &g, |k| block(k / len.max(1), k % len.max(1)))?;
        let mut sc = vec![T::of(0); len];
        let from: Vec<T> =
            if me == 0 { (0..len * n).map(|k| block(k / len, k % len)).collect() } else { vec![] };
        ok(world.scatter(&mut sc, &from, 0, &opts()), &what("scatter"))?;
        check_eq(&what("scatter"), &sc, |i| block(me, i))?;
        // all_to_all: block j of PE p is (p, j); PE me gets (i, me) from i
        let a2a_src: Vec<T> =
            (0..len * n).map(|k| T::of(((me * 4 + (k / len) * 2 + k % len) % 11) as i64)).collect();
        let mut a2a = vec![T::of(0); len * n];
        ok(world.all_to_all(&mut a2a, &a2a_src, &opts()), &what("all_to_all"))?;
        check_eq(&what("all_to_all"), &a2a, |k| T::of((((k / len) * 4 + me * 2 + k % len) % 11) as i64))?;
        // uneven: PE p contributes len + p elements (gatherv), sends
        // (p + j) % 3 + len to j (all_to_allv)
        let counts: Vec<usize> = (0..n).map(|p| len + p).collect();
        let vsrc: Vec<T> = (0..len + me).map(|i| block(me, i)).collect();
        let mut vdst = vec![T::of(0); counts.iter().sum()];
        ok(world.all_gatherv(&mut vdst, &vsrc, &counts, &opts()), &what("all_gatherv"))?;
        let mut k = 0;
        for (p, &c) in counts.iter().enumerate() {
            check_eq(&what("all_gatherv"), &vdst[k..k + c], |i| block(p, i))?;
            k += c;
        }
        let sc: Vec<usize> = (0..n).map(|j| (me + j) % 3 + len).collect();
        let rc: Vec<usize> = (0..n).map(|i| (i + me) % 3 + len).collect();
        let asrc: Vec<T> =
            sc.iter().enumerate().flat_map(|(j, &c)| (0..c).map(move |i| block(me + j, i))).collect();
        let mut adst = vec![T::of(0); rc.iter().sum()];
        ok(world.all_to_allv(&asrc, &sc, &mut adst, &rc, &opts()), &what("all_to_allv"))?;
        let mut k = 0;
        for (i, &c) in rc.iter().enumerate() {
            check_eq(&what("all_to_allv"), &adst[k..k + c], |e| block(i + me, e))?;
            k += c;
        }
    }
    Ok(())
}

fn collectives() -> R {
    with_sym(|sym| {
        coll_type::<i8>(sym, "i8")?;
        coll_type::<i16>(sym, "i16")?;
        coll_type::<i32>(sym, "i32")?;
        coll_type::<i64>(sym, "i64")?;
        coll_type::<u8>(sym, "u8")?;
        coll_type::<u16>(sym, "u16")?;
        coll_type::<u32>(sym, "u32")?;
        coll_type::<u64>(sym, "u64")?;
        coll_type::<f32>(sym, "f32")?;
        coll_type::<f64>(sym, "f64")?;
        coll_type::<F16>(sym, "f16")?;
        coll_type::<Bf16>(sym, "bf16")?;
        let world = sym.world();
        let (me, n) = (sym.my_pe(), sym.n_pes());
        // every algorithm an allreduce takes, and a per-call timeout
        for algo in [Algorithm::Naive, Algorithm::Ring, Algorithm::Tree, Algorithm::RecursiveDoubling] {
            let o = CollOpts::algorithm(algo).with_timeout(Duration::from_secs(20));
            let src: Vec<u32> = (0..70_001).map(|i| (i % 5) as u32 + me as u32).collect();
            let mut dst = vec![0u32; src.len()];
            ok(world.allreduce(&mut dst, &src, Op::Sum, &o), &format!("allreduce {:?}", algo))?;
            let base: u32 = (0..n as u32).sum();
            ensure!(
                dst.iter().enumerate().all(|(i, &x)| x == (i % 5) as u32 * n as u32 + base),
                "allreduce {:?} wrong",
                algo
            );
            ok(
                world.barrier(&CollOpts::algorithm(if algo == Algorithm::Ring {
                    Algorithm::Auto
                } else {
                    algo
                })),
                "barrier",
            )?;
        }
        // broadcast_v: the root's length reaches everyone; a short buffer is
        // Truncated with the length needed, the others complete
        for &len in &SIZES {
            let root = 0;
            let mut buf: Vec<u8> =
                if me == root { (0..len).map(|i| (i * 13) as u8).collect() } else { vec![0; len + 3] };
            let got = ok(world.broadcast_v(&mut buf, root, &opts()), "broadcast_v")?;
            ensure!(got == len, "broadcast_v length {} != {}", got, len);
            ensure!(buf[..len].iter().enumerate().all(|(i, &x)| x == (i * 13) as u8), "broadcast_v data");
        }
        if n > 1 {
            let mut buf = if me == 0 {
                vec![9u8; 100]
            } else if me == 1 {
                vec![0u8; 10]
            } else {
                vec![0u8; 100]
            };
            match world.broadcast_v(&mut buf, 0, &opts()) {
                Err(Error::Truncated { needed, .. }) if me == 1 => {
                    ensure!(needed == 100, "needed {}", needed)
                }
                Ok(100) if me != 1 => {}
                other => return Err(format!("broadcast_v into a short buffer: {:?}", other)),
            }
        }
        // a bitwise op on floats is rejected
        match world.allreduce(&mut [0.0f32], &[1.0f32], Op::Band, &opts()) {
            Err(Error::InvalidArg(_)) => {}
            other => return Err(format!("band on f32: {:?}", other)),
        }
        Ok(())
    })
}

fn nonblocking() -> R {
    with_sym(|sym| {
        let (me, n) = (sym.my_pe(), sym.n_pes());
        let world = sym.world();
        let evens = ok(world.split_strided(0, 2, (n + 1) / 2), "split_strided")?;
        for &len in &SIZES {
            let src: Vec<i64> = (0..len).map(|i| (i + me) as i64).collect();
            let mut sum = vec![0i64; len];
            let mut all = vec![0i64; len * n];
            let mut bc: Vec<i64> = if me == 0 { src.clone() } else { vec![-1; len] };
            let mut esum = vec![0i64; len];
            let mut left_unwaited = vec![0i64; len];
            ok(
                sym.scope(|s| {
                    let a = s.iallreduce(&world, &mut sum, &src, Op::Sum, &opts())?;
                    let b = s.iall_gather(&world, &mut all, &src, &opts())?;
                    let c = s.ibroadcast(&world, &mut bc, 0, &opts())?;
                    let e = match &evens {
                        Some(t) => Some(s.iallreduce(t, &mut esum, &src, Op::Sum, &opts())?),
                        None => None,
                    };
                    // dropped without a wait: the scope's end completes it
                    let _ = s.iallreduce(&world, &mut left_unwaited, &src, Op::Max, &opts())?;
                    a.wait()?;
                    let mut b = b;
                    let t0 = Instant::now();
                    while !b.test()? {
                        if t0.elapsed() > Duration::from_secs(30) {
                            return Err(Error::Timeout("test never completed".into()));
                        }
                    }
                    c.wait()?;
                    if let Some(e) = e {
                        e.wait()?;
                    }
                    s.ibarrier(&world, &opts())?.wait()
                }),
                "scope",
            )?;
            let base = |i: usize| (0..n).map(|p| (i + p) as i64).sum::<i64>();
            ensure!(sum.iter().enumerate().all(|(i, &x)| x == base(i)), "iallreduce of {}", len);
            ensure!(
                all.iter().enumerate().all(|(k, &x)| x == (k % len.max(1) + k / len.max(1)) as i64),
                "iall_gather"
            );
            ensure!(bc.iter().enumerate().all(|(i, &x)| x == i as i64), "ibroadcast");
            ensure!(
                left_unwaited.iter().enumerate().all(|(i, &x)| x == (i + n - 1) as i64),
                "unwaited iallreduce"
            );
            if evens.is_some() {
                let want = |i: usize| (0..n).step_by(2).map(|p| (i + p) as i64).sum::<i64>();
                ensure!(esum.iter().enumerate().all(|(i, &x)| x == want(i)), "iallreduce on evens");
            }
        }
        // a request's error comes back from its wait (counts that differ) or
        // from the scope; then the team is recovered.  A call checks the
        // team's state before it returns, so a member still in the sync
        // below when faster ones already made the mismatched call may get
        // the mismatch from the sync.
        let before = world.sync();
        ensure!(before.is_ok() || matches!(before, Err(Error::Mismatch(_))), "sync: {:?}", before);
        if n > 1 {
            let src = vec![1u8; 3 + me];
            let mut dst = vec![0u8; 3 + me];
            let r = sym.scope(|s| s.iallreduce(&world, &mut dst, &src, Op::Sum, &opts())?.wait());
            let r2 = world.sync();
            ensure!(
                [&before, &r, &r2].iter().any(|x| matches!(x, Err(Error::Mismatch(_)))),
                "counts that differ: {:?}, {:?} then {:?}",
                before,
                r,
                r2
            );
            ok(world.recover(), "recover")?;
        }
        drop(evens);
        Ok(())
    })
}

// ---- point to point --------------------------------------------------------------

/// Elements PE `from` sends PE `to` in round `round` of iall_to_allv:
/// 0, 4 or 8, and in round 0 a block past a mailbox (a team's area is 64
/// KiB) from PE 0 to the last.
fn a2av_count(from: usize, to: usize, n: usize, round: usize) -> usize {
    if round == 0 && from == 0 && to == n - 1 {
        20_001
    } else {
        (from * 3 + to * 5 + round) % 3 * 4
    }
}

fn a2av_val(from: usize, to: usize, i: usize) -> u32 {
    (from * 1_000_003 + to * 10_007 + i) as u32
}

/// The non-blocking collectives of uneven sizes: iall_to_allv, and
/// ibroadcast_v with its length and its truncation.
fn nonblocking_v() -> R {
    with_sym(|sym| {
        let (me, n) = (sym.my_pe(), sym.n_pes());
        let world = sym.world();
        // four iall_to_allv in flight on one team, their counts rewritten
        // after each call (the library copies them)
        let rounds = 4;
        let srcs: Vec<Vec<u32>> = (0..rounds)
            .map(|r| {
                (0..n).flat_map(|j| (0..a2av_count(me, j, n, r)).map(move |i| a2av_val(me, j, i))).collect()
            })
            .collect();
        let mut dsts: Vec<Vec<u32>> =
            (0..rounds).map(|r| vec![u32::MAX; (0..n).map(|i| a2av_count(i, me, n, r)).sum()]).collect();
        ok(
            sym.scope(|s| {
                let (mut sc, mut rc) = (vec![0; n], vec![0; n]);
                let mut reqs = Vec::new();
                for (r, (src, dst)) in srcs.iter().zip(dsts.iter_mut()).enumerate() {
                    for p in 0..n {
                        sc[p] = a2av_count(me, p, n, r);
                        rc[p] = a2av_count(p, me, n, r);
                    }
                    reqs.push(s.iall_to_allv(&world, src, &sc, dst, &rc, &opts())?);
                }
                reqs.into_iter().try_for_each(|q| q.wait())
            }),
            "iall_to_allv",
        )?;
        for (r, dst) in dsts.iter().enumerate() {
            let want: Vec<u32> =
                (0..n).flat_map(|i| (0..a2av_count(i, me, n, r)).map(move |e| a2av_val(i, me, e))).collect();
            ensure!(*dst == want, "iall_to_allv round {}: wrong data", r);
        }
        // ibroadcast_v from every root: the length and the data arrive, the
        // bytes past them stay
        for root in 0..n {
            for &len in &SIZES {
                let byte = |i: usize| (i * 7 + root * 31 + len) as u8;
                let mut buf: Vec<u8> =
                    if me == root { (0..len).map(byte).collect() } else { vec![0xee; len + me] };
                let got = ok(
                    sym.scope(|s| s.ibroadcast_v(&world, &mut buf, root, &opts())?.wait()),
                    &format!("ibroadcast_v of {} from {}", len, root),
                )?;
                ensure!(got == len, "ibroadcast_v from {}: length {} != {}", root, got, len);
                ensure!(buf[..len].iter().enumerate().all(|(i, &x)| x == byte(i)), "ibroadcast_v data");
                ensure!(buf[len..].iter().all(|&x| x == 0xee), "ibroadcast_v wrote past the message");
            }
        }
        if n == 1 {
            return Ok(());
        }
        // a short buffer on PE 0 is Truncated with the length needed, from
        // wait, from test and from the scope's end; the others complete
        let (root, len) = (n - 1, 70_001);
        for how in ["wait", "test", "end"] {
            let mut buf =
                if me == root { vec![5u8; len] } else { vec![0xee; if me == 0 { 10 } else { len }] };
            let r = sym.scope(|s| {
                let mut q = s.ibroadcast_v(&world, &mut buf, root, &opts())?;
                match how {
                    "wait" => q.wait(),
                    "test" => {
                        let t0 = Instant::now();
                        while !q.test()? {
                            if t0.elapsed() > Duration::from_secs(30) {
                                return Err(Error::Timeout("test never completed".into()));
                            }
                        }
                        q.wait()
                    }
                    _ => {
                        drop(q);
                        Ok(len)
                    }
                }
            });
            match r {
                Err(Error::Truncated { needed, .. }) if me == 0 => {
                    ensure!(needed == len, "ibroadcast_v ({}): needed {}", how, needed);
                    ensure!(buf.iter().all(|&x| x == 0xee), "ibroadcast_v ({}) wrote a short buffer", how);
                }
                Ok(got) if me != 0 => {
                    ensure!(got == len, "ibroadcast_v ({}): length {}", how, got);
                    ensure!(buf.iter().all(|&x| x == 5), "ibroadcast_v ({}): data", how);
                }
                other => return Err(format!("ibroadcast_v ({}) into a short buffer: {:?}", how, other)),
            }
        }
        Ok(())
    })
}

fn p2p() -> R {
    with_sym(|sym| {
        let (me, n) = (sym.my_pe(), sym.n_pes());
        let o = P2pOpts::timeout(Duration::from_secs(30));
        if n == 1 {
            match sym.send(&[1u8], 0, 0, &o) {
                Err(Error::InvalidArg(_)) => {}
                other => return Err(format!("send to self: {:?}", other)),
            }
            return Ok(());
        }
        let (right, left) = ((me + 1) % n, (me + n - 1) % n);
        for (k, &len) in SIZES.iter().chain(&[300_001]).enumerate() {
            let msg: Vec<u16> = (0..len).map(|i| (i * 7 + me) as u16).collect();
            let mut buf = vec![0u16; len + 5];
            let st = ok(
                sym.sendrecv(&msg, right, k as u32, &mut buf, Some(left), Some(k as u32), &o),
                "sendrecv",
            )?;
            ensure!(
                st.source == left && st.tag == k as u32 && st.count::<u16>() == len,
                "sendrecv status {:?}",
                st
            );
            ensure!(
                buf[..len].iter().enumerate().all(|(i, &x)| x == (i * 7 + left) as u16),
                "sendrecv data of {}",
                len
            );
        }
        // every PE sends to PE 0, which receives from any source
        if me == 0 {
            let mut seen = vec![false; n];
            for _ in 1..n {
                let found = ok(sym.probe(None, Some(5), &o), "probe")?;
                let (v, st) = ok(sym.recv_vec(Some(found.source), Some(5), &o), "recv_vec")?;
                ensure!(st == found && v.len() == found.source * 3, "probe {:?} vs recv {:?}", found, st);
                ensure!(v.iter().all(|&b| b == found.source as u8), "any-source data");
                seen[found.source] = true;
            }
            ensure!(seen[1..].iter().all(|&s| s), "senders seen {:?}", seen);
            ensure!(ok(sym.iprobe(None, None), "iprobe")?.is_none(), "a message left over");
        } else {
            ok(sym.send(&vec![me as u8; me * 3], 0, 5, &o), "send")?;
        }
        ok(sym.barrier_all(), "barrier_all")?;
        // a message larger than the buffer: Truncated with its size, and it
        // stays for a larger buffer
        ok(sym.send(&[1u32, 2, 3, 4], right, 9, &o), "send")?;
        let mut small = [0u32; 2];
        match sym.recv(&mut small, Some(left), Some(9), &o) {
            Err(Error::Truncated { needed: 16, .. }) => {}
            other => return Err(format!("recv into a short buffer: {:?}", other)),
        }
        let mut big = [0u32; 4];
        ok(sym.recv(&mut big, Some(left), Some(9), &o), "recv")?;
        ensure!(big == [1, 2, 3, 4], "after truncation {:?}", big);
        // a receive nobody sends to times out, naming the wait
        match sym.recv(&mut big, Some(left), Some(77), &P2pOpts::timeout(Duration::from_millis(300))) {
            Err(Error::Timeout(m)) => ensure!(!m.is_empty(), "timeout without message"),
            other => return Err(format!("recv that nobody sends: {:?}", other)),
        }
        ok(sym.barrier_all(), "barrier_all")?;
        Ok(())
    })
}

// ---- errors ---------------------------------------------------------------------

fn errors() -> R {
    with_sym(|sym| {
        let (me, n) = (sym.my_pe(), sym.n_pes());
        let world = sym.world();
        let v = ok(SymVec::<u64>::new(sym, 4), "SymVec")?;
        // a bad PE
        match sym.put(&v, 0, &[1], n) {
            Err(e @ Error::InvalidPe(_)) => {
                ensure!(
                    e.status() == -2 && e.name() == "SYM_ERR_INVALID_PE",
                    "status {} {}",
                    e.status(),
                    e.name()
                );
                ensure!(e.to_string().contains(&n.to_string()), "message '{}' names no PE", e);
            }
            other => return Err(format!("put to PE {}: {:?}", n, other)),
        }
        match sym.get(&mut [0u64], &v, 0, usize::MAX) {
            Err(Error::InvalidPe(_)) => {}
            other => return Err(format!("get from PE MAX: {:?}", other)),
        }
        // outside the object
        match sym.put(&v, 3, &[1, 2], me) {
            Err(Error::InvalidArg(m)) => ensure!(m.contains("outside"), "message '{}'", m),
            other => return Err(format!("put past the object: {:?}", other)),
        }
        // wrong counts, caught before the library is called
        match world.all_gather(&mut [0u32; 3], &[1u32, 2], &opts()) {
            Err(Error::InvalidArg(m)) => ensure!(m.contains("all_gather"), "message '{}'", m),
            Ok(()) if n == 1 => return Err("all_gather with 3 for 2 succeeded".into()),
            other => return Err(format!("all_gather with a wrong dst: {:?}", other)),
        }
        match world.allreduce(&mut [0u32; 3], &[1u32, 2], Op::Sum, &opts()) {
            Err(Error::InvalidArg(_)) => {}
            other => return Err(format!("allreduce with a wrong dst: {:?}", other)),
        }
        match world.broadcast(&mut [0u8], n, &opts()) {
            Err(Error::InvalidArg(_)) => {}
            other => return Err(format!("broadcast from root {}: {:?}", n, other)),
        }
        // counts that differ between PEs: a mismatch, on this call or the team's
        // sync, never a hang; then the team is recovered and works
        if n > 1 {
            let len = 10 + me;
            let r = world.allreduce(&mut vec![0u32; len], &vec![1u32; len], Op::Sum, &opts());
            let r2 = world.sync();
            ensure!(
                matches!(r, Err(Error::Mismatch(_))) || matches!(r2, Err(Error::Mismatch(_))),
                "counts that differ: {:?} then {:?}",
                r,
                r2
            );
            ok(world.recover(), "recover")?;
            let mut s = [0u32];
            ok(world.allreduce(&mut s, &[1], Op::Sum, &opts()), "allreduce after recover")?;
            ensure!(s[0] == n as u32, "after recover {}", s[0]);
        }
        // a collective whose peers never come: Timeout naming it (PE 0 alone)
        let solo = ok(world.split_strided(0, 1, n), "split_strided")?.ok_or("not a member")?;
        if me == 0 && n > 1 {
            let o = CollOpts::default().with_timeout(Duration::from_millis(400));
            match solo.allreduce(&mut [0u8], &[1u8], Op::Sum, &o) {
                Err(Error::Timeout(m)) => ensure!(m.contains("allreduce"), "timeout message '{}'", m),
                other => return Err(format!("allreduce nobody joins: {:?}", other)),
            }
        }
        // the others wait for PE 0's timeout at the barrier, then all recover
        ok(sym.barrier_all(), "barrier_all")?;
        if n > 1 {
            ok(solo.recover(), "recover")?;
        }
        ok(solo.destroy(), "destroy")?;
        ok(v.free(), "free")?;
        Ok(())
    })
}

/// The last PE dies in the middle of a loop of allreduces; every survivor
/// gets PeerLost naming it (never a hang, never a panic) and says so.
fn killed_peer() -> R {
    let sym = init()?;
    let (me, n) = (sym.my_pe(), sym.n_pes());
    let world = sym.world();
    let victim = n - 1;
    for k in 0..1000u64 {
        if me == victim && k == 20 {
            std::process::abort();
        }
        let mut s = [0u64];
        match world.allreduce(&mut s, &[k], Op::Sum, &opts()) {
            Ok(()) => ensure!(s[0] == k * n as u64, "allreduce {} gave {}", k, s[0]),
            Err(Error::PeerLost(m)) => {
                ensure!(
                    m.contains(&format!("PE {}", victim)),
                    "PeerLost message '{}' names no PE {}",
                    m,
                    victim
                );
                println!("survivor {} saw PeerLost at call {}", me, k);
                // a survivor leaves without the collective finalize
                exit(0);
            }
            Err(e) => return Err(format!("allreduce {}: {}", k, e)),
        }
    }
    Err("the dead PE was never reported".into())
}

// ---- threads -------------------------------------------------------------------------

/// At SYM_THREAD_MULTIPLE the handle is Sync: two threads run collectives
/// on two teams and atomics at once.
fn threads() -> R {
    let sym = ok(Symheap::<Multiple>::init_thread(), "init_thread")?;
    {
        let (me, n) = (sym.my_pe(), sym.n_pes());
        let world = sym.world();
        let copy = ok(world.create(&(0..n).collect::<Vec<_>>()), "create")?.ok_or("not a member")?;
        let counter = ok(SymBox::new(&sym, 0u64), "SymBox")?;
        let r: Vec<R> = std::thread::scope(|s| {
            // both threads start before either is joined
            #[allow(clippy::needless_collect)]
            let hs: Vec<_> = [&world, &copy]
                .into_iter()
                .enumerate()
                .map(|(t, team)| {
                    let (sym, counter) = (&sym, &counter);
                    s.spawn(move || -> R {
                        for k in 0..50u64 {
                            let mut out = [0u64];
                            ok(team.allreduce(&mut out, &[k + t as u64], Op::Sum, &opts()), "allreduce")?;
                            ensure!(out[0] == (k + t as u64) * n as u64, "thread {} call {}", t, k);
                            ok(sym.atomic_inc(counter, 0), "inc")?;
                        }
                        Ok(())
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap_or_else(|_| Err("thread panicked".into()))).collect()
        });
        for x in r {
            x?;
        }
        ok(sym.barrier_all(), "barrier_all")?;
        if me == 0 {
            ensure!(ok(counter.load(), "load")? == 100 * n as u64, "counter {}", ok(counter.load(), "")?);
        }
    }
    ok(sym.finalize(), "finalize")
}

/// Initialising while another thread runs is refused (the data segment
/// would be remapped under it), and works once it is gone.
fn init_with_threads() -> R {
    let (tx, rx) = std::sync::mpsc::channel::<()>();
    let h = std::thread::spawn(move || {
        let _ = rx.recv();
    });
    match Symheap::init() {
        Err(Error::InvalidArg(m)) => ensure!(m.contains("threads"), "message '{}'", m),
        other => return Err(format!("init with a thread running: {:?}", other.map(|_| ()))),
    }
    drop(tx);
    let _ = h.join();
    // /proc/self/task may list the thread for a moment after its join
    let t0 = Instant::now();
    while std::fs::read_dir("/proc/self/task").map(|d| d.count()).unwrap_or(1) > 1 {
        ensure!(t0.elapsed() < Duration::from_secs(5), "the joined thread is still listed");
        std::thread::yield_now();
    }
    with_sym(|sym| {
        let t = SymmetricTransport::new(sym, 8).map_err(|e| e.to_string())?;
        ok(t.barrier(), "barrier")
    })
}
