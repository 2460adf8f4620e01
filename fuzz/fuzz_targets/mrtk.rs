//! cargo-fuzz target `mrtk`: see `motion_viewer_fuzz::mrtk` for what it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| motion_viewer_fuzz::mrtk(data));
