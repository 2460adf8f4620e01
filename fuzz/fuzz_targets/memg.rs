//! cargo-fuzz target `memg`: see `motion_viewer_fuzz::memg` for what it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| motion_viewer_fuzz::memg(data));
