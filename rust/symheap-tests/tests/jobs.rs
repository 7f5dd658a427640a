//! Every case of `src/bin/pe.rs`, and the transport examples, as real jobs
//! of 1 to 4 PEs under `symrun` (from `$SYMHEAP_BUILD_DIR`, else `PATH`).
//! A case passes when every PE exits 0; its PEs' output is shown when not.
use std::path::PathBuf;
use std::process::{Command, Output};

fn symrun() -> PathBuf {
    match std::env::var_os("SYMHEAP_BUILD_DIR") {
        Some(dir) => PathBuf::from(dir).join("symrun"),
        None => PathBuf::from("symrun"),
    }
}

/// Run `prog args` on `n` PEs: symrun's own limit, and the library's
/// default deadline, well above what any case needs.
fn job(n: usize, prog: &PathBuf, args: &[&str]) -> Output {
    Command::new(symrun())
        .args(["-n", &n.to_string(), "--timeout", "120", "--tag-output", "--"])
        .arg(prog)
        .args(args)
        .env("SYMHEAP_TIMEOUT", "30")
        .env("RUST_BACKTRACE", "0")
        .output()
        .unwrap_or_else(|e| panic!("cannot start {} ({}): set SYMHEAP_BUILD_DIR", symrun().display(), e))
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

fn case(n: usize, name: &str) {
    let o = job(n, &PathBuf::from(env!("CARGO_BIN_EXE_pe")), &[name]);
    assert!(o.status.success(), "{} on {} PEs: {}\n{}", name, n, o.status, text(&o));
}

/// An example of the symheap crate (built by `cargo test` next to this
/// test's binary: target/<profile>/examples).
fn example(n: usize, name: &str) {
    let exe = std::env::current_exe().expect("current_exe");
    let path = exe.parent().and_then(|d| d.parent()).expect("target dir").join("examples").join(name);
    assert!(path.is_file(), "{} not built: run cargo test --workspace", path.display());
    let o = job(n, &path, &[]);
    assert!(o.status.success(), "example {} on {} PEs: {}\n{}", name, n, o.status, text(&o));
    assert!(text(&o).contains("matches symheap's"), "example {} printed no verdict:\n{}", name, text(&o));
}

macro_rules! jobs {
    ($runner:ident: $($name:ident [$($n:tt),*]),* $(,)?) => {$(
        mod $name {
            $(
                paste_n!($runner, $name, $n);
            )*
        }
    )*};
}

macro_rules! paste_n {
    ($runner:ident, $name:ident, 1) => {
        #[test]
        fn pes_1() {
            super::$runner(1, stringify!($name))
        }
    };
    ($runner:ident, $name:ident, 2) => {
        #[test]
        fn pes_2() {
            super::$runner(2, stringify!($name))
        }
    };
    ($runner:ident, $name:ident, 3) => {
        #[test]
        fn pes_3() {
            super::$runner(3, stringify!($name))
        }
    };
    ($runner:ident, $name:ident, 4) => {
        #[test]
        fn pes_4() {
            super::$runner(4, stringify!($name))
        }
    };
}

jobs!(case:
    basics [1, 2, 3, 4],
    rma [1, 2, 3, 4],
    atomics [1, 2, 3, 4],
    signals [1, 2, 3, 4],
    teams [1, 2, 3, 4],
    collectives [1, 2, 3, 4],
    nonblocking [1, 2, 3, 4],
    nonblocking_v [1, 2, 3, 4],
    p2p [1, 2, 3, 4],
    errors [1, 2, 3, 4],
    threads [1, 2, 4],
    init_with_threads [1, 2],
);

jobs!(example:
    ring_allreduce [1, 2, 3, 4],
    binomial_broadcast [1, 2, 3, 4],
);

/// The last PE aborts inside a loop of allreduces: every survivor reports
/// PeerLost naming it and exits 0; symrun exits with the dead PE's status.
fn killed(n: usize) {
    let o = job(n, &PathBuf::from(env!("CARGO_BIN_EXE_pe")), &["killed_peer"]);
    let out = text(&o);
    assert!(!o.status.success(), "killed_peer on {} PEs: the job succeeded\n{}", n, out);
    let survivors = out.lines().filter(|l| l.contains("saw PeerLost")).count();
    assert_eq!(survivors, n - 1, "killed_peer on {} PEs: {} survivors reported\n{}", n, survivors, out);
    assert!(!out.contains("panicked"), "a PE panicked:\n{}", out);
}

mod killed_peer {
    #[test]
    fn pes_2() {
        super::killed(2)
    }
    #[test]
    fn pes_3() {
        super::killed(3)
    }
    #[test]
    fn pes_4() {
        super::killed(4)
    }
}
