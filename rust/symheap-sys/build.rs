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
    let lib = pkg_config::Config::new()
        .atleast_version("0.1")
        .statik(statik)
        .probe("symheap")
        .unwrap_or_else(|e| {
            panic!(
                "symheap not found through pkg-config ({}).  Build it with meson and set \
                 SYMHEAP_BUILD_DIR to the build directory, or install it (meson install) and \
                 make its symheap.pc visible to pkg-config (PKG_CONFIG_PATH)",
                e
            )
        });
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
