//! Names this build's readers: a hash of the crate's source files and the compiler, so
//! that a verdict one build recorded about an index (the SessionStart cache kept in the
//! lock file) is never taken by a build whose reader could judge the same text otherwise.

use std::hash::{DefaultHasher, Hasher};
use std::path::{Path, PathBuf};

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn main() {
    println!("cargo:rerun-if-changed=src");
    let mut files = Vec::new();
    sources(Path::new("src"), &mut files);
    files.sort();
    let mut hasher = DefaultHasher::new();
    hasher.write(env!("CARGO_PKG_VERSION").as_bytes());
    // The compiler too: its standard library's Unicode tables decide which characters
    // are letters (an id) and white space (a cell's edges), so the same sources built by
    // another toolchain may read a text otherwise (the CLI and a binding built apart).
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    if let Ok(out) = std::process::Command::new(rustc).arg("-vV").output() {
        hasher.write(&out.stdout);
    }
    for file in &files {
        hasher.write(file.to_string_lossy().as_bytes());
        hasher.write(&std::fs::read(file).unwrap_or_default());
    }
    println!(
        "cargo:rustc-env=MEMCORE_READER_KEY={:016x}",
        hasher.finish()
    );
}
