//! The `readers` test harness: one binary, a module per subject.

#[path = "../common/app.rs"]
mod app;
#[path = "../common/mod.rs"]
mod common;

mod bag_frames;
mod fit_gltf;
mod gltf_blender;
mod gltf_three;
mod gltf_validator;
mod mcap;
mod mjcf;
mod one_clock;
mod one_robot;
mod urdf;
mod usd;
