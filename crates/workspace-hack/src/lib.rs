//! No code: this crate only unifies the features of the workspace's
//! dependencies across its builds (see its Cargo.toml).
