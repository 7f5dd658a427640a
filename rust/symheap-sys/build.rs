//! Finds libsymheap through pkg-config.
//!
//! - `SYMHEAP_BUILD_DIR=<meson build dir>`: link the uninstalled library of
//!   that build tree (its `meson-uninstalled/symheap-uninstalled.pc`),
//!   statically, so test and example binaries run without `LD_LIBRARY_PATH`.
//! - otherwise the installed `symheap.pc` (`meson install` puts it under
//!   `<prefix>/lib/<triplet>/pkgconfig`; set `PKG_CONFIG_PATH` for a
//!   prefix pkg-config does not search), linked dynamically.
//! - `SYMHEAP_SYS_STATIC=1` or `0` forces static or dynamic linking.

use std::env;
use std::path::PathBuf;

fn main() {
    for var in ["SYMHEAP_BUILD_DIR", "SYMHEAP_SYS_STATIC", "PKG_CONFIG_PATH"] {
        println!("cargo:rerun-if-env-changed={}", var);
    }
    let build_dir = env::var_os("SYMHEAP_BUILD_DIR").map(PathBuf::from);
    if let Some(dir) = &build_dir {
        let pc_dir = dir.join("meson-uninstalled");
        if !pc_dir.join("symheap-uninstalled.pc").is_file() {
            panic!(
                "SYMHEAP_BUILD_DIR={}: no meson-uninstalled/symheap-uninstalled.pc there \
                 (configure and build symheap with meson in that directory first)",
                dir.display()
            );
        }
        let mut paths = vec![pc_dir];
        if let Some(old) = env::var_os("PKG_CONFIG_PATH") {
            paths.extend(env::split_paths(&old));
        }
        env::set_var("PKG_CONFIG_PATH", env::join_paths(paths).expect("PKG_CONFIG_PATH"));
    }
    let statik = match env::var("SYMHEAP_SYS_STATIC").as_deref() {
        Ok("1") => true,
        Ok("0") => false,
        Ok(other) => panic!("SYMHEAP_SYS_STATIC={}: expected 1 or 0", other),
        Err(_) => build_dir.is_some(),
    };
    // The library itself and its flags; static linking below replaces the
    // `-lsymheap` this emits.
    let lib = pkg_config::Config::new()
        .atleast_version("0.1")
        .cargo_metadata(!statik)
        .probe("symheap")
        .unwrap_or_else(|e| {
            panic!(
                "symheap not found through pkg-config ({}).  Build it with meson and set \
                 SYMHEAP_BUILD_DIR to the build directory, or install it (meson install) and \
                 make its symheap.pc visible to pkg-config (PKG_CONFIG_PATH)",
                e
            )
        });
    if statik {
        link_static(&lib);
    }
    // Relink when the library is rebuilt.
    for dir in &lib.link_paths {
        for name in ["libsymheap.a", "libsymheap.so"] {
            let path = dir.join(name);
            if path.is_file() {
                println!("cargo:rerun-if-changed={}", path.display());
            }
        }
    }
}

/// libsymheap.a, then what it needs, dynamically: the packages of its
/// Requires.private (libcrypto, libfabric, pmix: their own libraries, not
/// theirs in turn, which `pkg-config --static` would list) and the
/// libraries of its Libs.private (-lpthread -lrt -lm -ldl).
fn link_static(lib: &pkg_config::Library) {
    for dir in &lib.link_paths {
        println!("cargo:rustc-link-search=native={}", dir.display());
    }
    println!("cargo:rustc-link-lib=static=symheap");
    for req in pkg_config_out(&["--print-requires-private", "symheap"]).lines() {
        let name = req.split_whitespace().next().unwrap_or("");
        if !name.is_empty() {
            pkg_config::Config::new()
                .probe(name)
                .unwrap_or_else(|e| panic!("symheap needs {}, which pkg-config cannot find: {}", name, e));
        }
    }
    let pcdir = pkg_config_out(&["--variable=pcfiledir", "symheap"]);
    let pcdir = pcdir.trim();
    let pc = ["symheap-uninstalled.pc", "symheap.pc"]
        .iter()
        .map(|f| PathBuf::from(pcdir).join(f))
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("no symheap .pc file in {}", pcdir));
    let text = std::fs::read_to_string(&pc).unwrap_or_else(|e| panic!("{}: {}", pc.display(), e));
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("Libs.private:") {
            for tok in rest.split_whitespace() {
                if let Some(name) = tok.strip_prefix("-l") {
                    println!("cargo:rustc-link-lib={}", name);
                }
            }
        }
    }
}

fn pkg_config_out(args: &[&str]) -> String {
    let out = std::process::Command::new(env::var("PKG_CONFIG").unwrap_or_else(|_| "pkg-config".into()))
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("pkg-config {}: {}", args.join(" "), e));
    if !out.status.success() {
        panic!("pkg-config {} failed: {}", args.join(" "), String::from_utf8_lossy(&out.stderr));
    }
    String::from_utf8_lossy(&out.stdout).into_owned()
}
