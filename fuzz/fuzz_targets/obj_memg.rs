//! cargo-fuzz target `obj_memg`: see `motion_viewer_fuzz::obj_memg` for what it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| motion_viewer_fuzz::obj_memg(data));
