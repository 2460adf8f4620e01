//! cargo-fuzz target `probe`: see `motion_viewer_fuzz::probe` for what it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| motion_viewer_fuzz::probe(data));
