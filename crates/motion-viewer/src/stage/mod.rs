//! The stage: every track posed at one time, laid out side by side, gathered
//! into one [`FrameScene`] for the renderer. `viewer render` and the window
//! both draw through it.
//!
//! Data flow:
//!
//! 1. [`Stage::new`] takes the loaded [`Track`]s, places them by the CPU
//!    [`Plan`] at their true scale (each track's box over its whole motion,
//!    in a row, on the ground; see [`crate::scene::Plan`]), and uploads the
//!    GPU state (a [`GpuDeformer`] per MEMG track). [`Stage::from_tracks`]
//!    takes the tracks themselves and [`StageOptions`]: how they are sized
//!    ([`Layout`]), where MEMG meshes are deformed ([`DeformOn`]; the CPU
//!    reads the motion the track shares, the GPU holds its own copy) and
//!    how (an `f16` basis, binding sizes, wireframe edges);
//!    [`Stage::placed`] takes a [`Plan`] made already.
//! 2. Each frame, [`Stage::pose`] records the GPU work that poses the meshes
//!    at time `t` (MEMG deformation at timestep `t · fps`) into the caller's
//!    encoder, and [`Stage::frame_scene`] gathers the meshes with their
//!    translations and the CPU-built primitives (AIBO stick figures from
//!    [`rig`], MRTK hands, camera and gaze from `scene::hands`) at the same `t`,
//!    with a grid under [`Stage::bounds`].
//! 3. The caller draws the frame with [`crate::gpu::Renderer::draw`] (window)
//!    or [`crate::gpu::Capture::render`] (headless), framing the camera on
//!    [`Stage::bounds`] once, so the view holds still while tracks move. The
//!    grid always lies on the ground, y = 0.
//!
//! Time is shared: `t` is seconds from the start of every track; a track
//! shorter than [`Stage::duration_s`] holds its last pose. A hidden track
//! ([`Stage::set_visible`]) is neither posed nor drawn, but keeps its place.

mod memg;

pub use memg::DeformOn;

use glam::Vec3;
use memg::MemgBody;

use crate::anim::aibo::pose_from_mtn;
use crate::anim::input_animation::state_at;
use crate::anim::memg::Binding;
use crate::error::Result;
use crate::formats::input_animation::InputAnimation;
use crate::formats::mtn::Mtn;
use crate::gpu::{BasisFormat, DeformOptions, FrameScene, GpuContext, GpuDeformer};
use crate::scene::plan::{Placement, Plan, bind};
use crate::scene::shapes::{Grid, Primitives};
use crate::scene::{Layout, Track, hands, rig};
use std::sync::Arc;

/// How [`Stage::from_tracks`] sets the tracks up.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StageOptions {
    /// How the tracks are sized before they are placed.
    pub layout: Layout,
    /// Where MEMG meshes are deformed.
    pub deform_on: DeformOn,
    /// GPU deformation options (basis format, binding size, wireframe edges);
    /// a mesh deformed on the CPU takes its binding size and edges.
    pub deform: DeformOptions,
}

/// What a track needs each frame.
#[derive(Debug)]
enum Body {
    Memg { mesh: MemgBody, fps: f64 },
    Rig { motion: Box<Mtn> },
    Hands { recording: Arc<InputAnimation> },
}

/// Every track ready to be posed and drawn at any time; see the module docs.
#[derive(Debug)]
pub struct Stage {
    ctx: GpuContext,
    plan: Plan,
    bodies: Vec<Body>,
    visible: Vec<bool>,
    load_warnings: Vec<String>,
}

impl Stage {
    /// Measures and places `tracks` (CPU) at their true scale and uploads
    /// their GPU state; MEMG meshes are deformed by the compute shader, with
    /// wireframe edges.
    pub fn new(ctx: &GpuContext, tracks: &[Track]) -> Result<Stage> {
        let options = DeformOptions {
            edges: true,
            ..DeformOptions::default()
        };
        let plan = Plan::with_layout(tracks, Layout::TrueScale)?;
        let mut stage = Stage::empty(ctx, plan, tracks.len());
        for track in tracks {
            let body = match track {
                Track::Memg { scene, motion, .. } => {
                    let binding = stage.bind(track)?;
                    let deformer = GpuDeformer::new(ctx, scene, motion, &binding, options)?;
                    Body::Memg {
                        mesh: MemgBody::Gpu(Box::new(deformer)),
                        fps: f64::from(motion.fps.max(1)),
                    }
                }
                Track::Mtn { motion, .. } => Body::Rig {
                    motion: Box::new(motion.clone()),
                },
                Track::InputAnimation { recording, .. } => Body::Hands {
                    recording: recording.clone(),
                },
            };
            stage.bodies.push(body);
        }
        Ok(stage)
    }

    /// Like [`Stage::new`], taking the tracks and set up by `options`. A
    /// motion deformed on the CPU is read where the tracks hold it (a
    /// [`Track`]'s clone shares its scene and motion); one deformed on the
    /// GPU is uploaded, and the stage keeps nothing of it.
    pub fn from_tracks(
        ctx: &GpuContext,
        tracks: Vec<Track>,
        options: &StageOptions,
    ) -> Result<Stage> {
        let plan = Plan::with_layout(&tracks, options.layout)?;
        Stage::placed(ctx, tracks, plan, options)
    }

    /// [`Stage::from_tracks`] with the tracks' [`Plan`] at `options.layout`
    /// already made (the window's session holds it: a MEMG track's box is
    /// every timestep deformed, worth computing once).
    ///
    /// # Errors
    /// A plan that does not place these tracks at that layout, and what
    /// [`Stage::from_tracks`] refuses.
    pub fn placed(
        ctx: &GpuContext,
        tracks: Vec<Track>,
        plan: Plan,
        options: &StageOptions,
    ) -> Result<Stage> {
        if plan.placements.len() != tracks.len() || plan.layout != options.layout {
            return Err(crate::error::Error::unsupported(
                "stage",
                format!(
                    "a plan of {} tracks at layout {:?} given for {} tracks at layout {:?}",
                    plan.placements.len(),
                    plan.layout,
                    tracks.len(),
                    options.layout
                ),
            ));
        }
        let info = ctx.adapter.get_info();
        // See `DeformOn::Auto` for why.
        let cpu_adapter = info.device_type == wgpu::DeviceType::Cpu
            && info.backend != wgpu::Backend::BrowserWebGpu;
        let on = match options.deform_on {
            DeformOn::Auto if !ctx.has_compute() => DeformOn::Cpu,
            DeformOn::Auto if cpu_adapter && options.deform.basis == BasisFormat::F32 => {
                DeformOn::Cpu
            }
            on => on,
        };
        let mut stage = Stage::empty(ctx, plan, tracks.len());
        for track in tracks {
            let binding = match &track {
                Track::Memg { .. } => Some(stage.bind(&track)?),
                _ => None,
            };
            let body = match (track, binding) {
                (
                    Track::Memg {
                        scene,
                        motion,
                        motion_path,
                        ..
                    },
                    Some(binding),
                ) => {
                    let fps = f64::from(motion.fps.max(1));
                    let gpu = match on {
                        DeformOn::Cpu => None,
                        _ => match GpuDeformer::new(ctx, &scene, &motion, &binding, options.deform)
                        {
                            Ok(deformer) => Some(deformer),
                            Err(e) if on == DeformOn::Auto => {
                                stage.load_warnings.push(format!(
                                    "{}: {e}; deforming on the CPU instead",
                                    motion_path.display()
                                ));
                                None
                            }
                            Err(e) => return Err(e),
                        },
                    };
                    let mesh = match gpu {
                        Some(deformer) => MemgBody::Gpu(Box::new(deformer)),
                        None => MemgBody::cpu(ctx, scene, motion, binding, &options.deform)?,
                    };
                    Body::Memg { mesh, fps }
                }
                (Track::Mtn { motion, .. }, _) => Body::Rig {
                    motion: Box::new(motion),
                },
                (Track::InputAnimation { recording, .. }, _) => Body::Hands { recording },
                (Track::Memg { .. }, None) => unreachable!("a MEMG track is bound above"),
            };
            stage.bodies.push(body);
        }
        Ok(stage)
    }

    /// A stage of `count` tracks placed by `plan`, and no bodies yet.
    fn empty(ctx: &GpuContext, plan: Plan, count: usize) -> Stage {
        Stage {
            ctx: ctx.clone(),
            plan,
            bodies: Vec::with_capacity(count),
            visible: vec![true; count],
            load_warnings: Vec::new(),
        }
    }

    /// Binds a MEMG track's motion to its scene, keeping the warnings.
    fn bind(&mut self, track: &Track) -> Result<Binding> {
        let Track::Memg { scene, motion, .. } = track else {
            unreachable!("only MEMG tracks are bound");
        };
        let binding = bind(track, scene, motion)?;
        self.load_warnings.extend(
            binding
                .warnings
                .iter()
                .map(|w| format!("{}: {w}", track.path().display())),
        );
        Ok(binding)
    }

    /// How many MEMG meshes the CPU deforms (the rest, the GPU).
    pub fn cpu_deformed_count(&self) -> usize {
        self.bodies
            .iter()
            .filter(|b| matches!(b, Body::Memg { mesh, .. } if mesh.on_cpu()))
            .count()
    }

    /// Puts `motion` in place of AIBO track `index`'s motion (an edit that
    /// keeps the duration: the placement stays). Ignored for another track.
    pub fn set_motion(&mut self, index: usize, motion: &Mtn) {
        if let Some(Body::Rig { motion: old }) = self.bodies.get_mut(index)
            && **old != *motion
        {
            **old = motion.clone();
        }
    }

    /// Shows or hides track `index` (out of range: ignored).
    pub fn set_visible(&mut self, index: usize, visible: bool) {
        if let Some(v) = self.visible.get_mut(index) {
            *v = visible;
        }
    }

    /// How the tracks were sized.
    pub fn layout(&self) -> Layout {
        self.plan.layout
    }

    /// The placement of every track, in track order.
    pub fn placements(&self) -> &[Placement] {
        &self.plan.placements
    }

    /// The box around every track over the whole timeline: frame the camera
    /// on it once. It need not reach the ground (MRTK hands float at their
    /// recorded height); [`Stage::frame_scene`]'s grid lies at y = 0 all the same.
    pub fn bounds(&self) -> (Vec3, Vec3) {
        self.plan.bounds
    }

    /// The longest track's duration in seconds.
    pub fn duration_s(&self) -> f64 {
        self.plan.duration_s
    }

    /// The first track's own frame period in seconds (`--frame N` counts in it).
    pub fn frame_period_s(&self) -> f64 {
        self.plan.frame_period_s
    }

    /// Problems found while building the stage (MEMG groups left unbound…),
    /// each naming its file.
    pub fn load_warnings(&self) -> &[String] {
        &self.load_warnings
    }

    /// Records into `encoder` the GPU work that poses the meshes at `t`
    /// seconds. Submit it before drawing [`Stage::frame_scene`] for the same `t`.
    pub fn pose(&mut self, encoder: &mut wgpu::CommandEncoder, t: f64) {
        for (body, _) in self
            .bodies
            .iter_mut()
            .zip(&self.visible)
            .filter(|(_, v)| **v)
        {
            if let Body::Memg { mesh, fps } = body {
                mesh.pose(&self.ctx, encoder, crate::anim::clock::at_rate(t, *fps));
            }
        }
    }

    /// Everything to draw at `t` seconds: the meshes as last posed by
    /// [`Stage::pose`], placed, and the primitives of the other tracks,
    /// with the ground grid at y = 0 under [`Stage::bounds`].
    pub fn frame_scene(&self, t: f64) -> FrameScene<'_> {
        let (lo, hi) = self.plan.bounds;
        let mut frame = FrameScene {
            grid: Some(Grid::under_bounds(lo.with_y(0.0), hi.with_y(hi.y.max(0.0)))),
            ..FrameScene::default()
        };
        let mut primitives = Primitives::default();
        let shown = self.bodies.iter().zip(&self.plan.placements);
        for ((body, placement), _) in shown.zip(&self.visible).filter(|(_, v)| **v) {
            let mut own = Primitives::default();
            match body {
                Body::Memg { mesh, .. } => {
                    frame.meshes.push(mesh.mesh());
                    frame.mesh_transforms.push(placement.transform());
                }
                Body::Rig { motion } => {
                    let (model, pose) = pose_from_mtn(motion, t);
                    let origin = Vec3::Y * rig::ground_lift(model, &pose);
                    rig::primitives(model, &pose, origin, &mut own);
                }
                Body::Hands { recording } => {
                    hands::primitives(&state_at(recording, t), Vec3::ZERO, &mut own);
                }
            }
            primitives.append_placed(own, placement.scale, placement.offset);
        }
        frame.add_primitives(primitives);
        frame
    }

    /// What is wrong at `t` seconds (AIBO angles beyond their limits…), each
    /// prefixed with its track's name.
    pub fn warnings(&self, t: f64) -> Vec<String> {
        self.bodies
            .iter()
            .zip(&self.plan.placements)
            .filter_map(|(body, placement)| match body {
                Body::Rig { motion } => Some((placement, pose_from_mtn(motion, t).1.warnings)),
                _ => None,
            })
            .flat_map(|(placement, warnings)| {
                warnings
                    .into_iter()
                    .map(move |w| format!("{}: {w}", placement.name))
            })
            .collect()
    }
}
