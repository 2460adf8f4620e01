//! Empty: the build script exists so that its build-dependencies (`syn`)
//! take part in resolving the proc macros' features (see Cargo.toml).
fn main() {}
