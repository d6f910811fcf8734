//! Bakes the Rust toolchain version and the libsql, libsql-sys and
//! libsql-ffi versions from Cargo.lock into the library, for manydb's
//! environment record (as rust/turso-capi/build.rs does).
use std::env;
use std::fs;
use std::path::Path;
use std::process::Command;

fn main() {
    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
    let version = Command::new(&rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=MANYDB_RUSTC_VERSION={version}");

    let dir = env::var("CARGO_MANIFEST_DIR").unwrap();
    let lock = Path::new(&dir).join("Cargo.lock");
    println!("cargo:rerun-if-changed={}", lock.display());
    println!("cargo:rerun-if-changed=build.rs");
    let text = fs::read_to_string(&lock).unwrap_or_default();
    for (env_name, pkg) in [
        ("MANYDB_LIBSQL_VERSION", "libsql"),
        ("MANYDB_LIBSQL_SYS_VERSION", "libsql-sys"),
        ("MANYDB_LIBSQL_FFI_VERSION", "libsql-ffi"),
    ] {
        println!("cargo:rustc-env={env_name}={}", locked_version(&text, pkg));
    }
}

/// The version of package name in a Cargo.lock, or "unknown".
fn locked_version(lock: &str, name: &str) -> String {
    let want = format!("name = \"{name}\"");
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == want {
            if let Some(v) = lines.next() {
                if let Some(v) = v.trim().strip_prefix("version = ") {
                    return v.trim_matches('"').to_string();
                }
            }
        }
    }
    "unknown".to_string()
}
