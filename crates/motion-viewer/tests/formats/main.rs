//! The `formats` test harness: one binary, a module per subject.

#[path = "../../../../tests/common/mod.rs"]
mod common;

mod curve_eval;
mod fuzz_regressions;
mod input_animation_layout;
#[cfg(unix)]
mod mapped_changed;
mod memg_decode;
mod memg_decode_into;
mod mtn_corpus;
mod mtn_robustness;
mod mtn_seeds;
mod prop_memg;
mod prop_mrtk;
mod prop_mtn;
