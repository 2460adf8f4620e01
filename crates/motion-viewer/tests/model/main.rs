//! The `model` test harness: one binary, a module per subject.

#[path = "../../../../tests/common/mod.rs"]
mod common;

mod aibo_rig;
mod bounds_sampling;
mod gltf_errors;
mod gltf_spec;
mod input_animation_state;
mod memg_deform;
mod memg_deformer;
mod mtn_anim;
mod one_name;
mod pc2;
mod scene_cpu;
mod workbench_check;
mod workbench_csv;
mod workbench_edit;
