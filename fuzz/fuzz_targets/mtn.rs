//! cargo-fuzz target `mtn`: see `motion_viewer_fuzz::mtn` for what it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| motion_viewer_fuzz::mtn(data));
