//! cargo-fuzz target `pipeline`: see `motion_viewer_fuzz::pipeline` for what it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| motion_viewer_fuzz::pipeline(data));
