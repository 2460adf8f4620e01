//! The model tests: the CPU reference math, scene, exporters and workbench
//! on real files, a module per subject. They were the `model` integration
//! harness; inside the crate they reach what it keeps to itself (the rig's
//! geometry, the bounds sampling, the deformers) and name the crate as a
//! user does (`motion_viewer::…`).

mod aibo_rig;
mod bounds_sampling;
mod gltf_errors;
mod gltf_quantized;
mod gltf_rigs;
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
