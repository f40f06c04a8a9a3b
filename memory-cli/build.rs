//! Links `memcore` as a position-dependent executable on Linux.
//!
//! `memcore agent start` runs in every agent's SessionStart hook, and its whole-process
//! time is a requirement (≤ 5× `cat` of a 10,000-row index). As a PIE, the dynamic loader
//! applies ~11,000 relative relocations to ~220 KiB of the binary's data at every start —
//! about 70 page faults and 0.3–0.4 ms, a third of what `cat` takes in all. Linked without
//! PIE those addresses are fixed at link time. The library and the Python and Node
//! bindings are not affected (they stay position-independent); the cost is that the
//! `memcore` executable itself is not loaded at a random address.

fn main() {
    let target_os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let target_env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if target_os == "linux" && target_env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
