//! Node bindings of memory-core. The full API arrives with the bindings issue.
use napi_derive::napi;

/// The version of the native module.
#[napi]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}
