//! The stage: every track posed at one time, laid out side by side, gathered
//! into one [`FrameScene`] for the renderer. `viewer render` and the window
//! both draw through it.
//!
//! Data flow:
//!
//! 1. [`Stage::new`] takes the loaded [`Track`]s. On the CPU it measures each
//!    track's box over its **whole** animation, in world axes
//!    ([`units`]: metres, right-handed, y up):
//!    MEMG by deforming every timestep ([`bounding_box_over_time`]), `.mtn`
//!    by forward kinematics at every frame ([`rig::bounds_over_time`]), MRTK
//!    by sampling the recording at 30 Hz ([`hands::bounds_over_time`]).
//!    [`layout::place`] turns the boxes into one translation per track: a
//!    row along x, a gap apart, each resting on the ground (MEMG by its
//!    lowest point over time, AIBO rigs frame by frame, MRTK as recorded,
//!    Unity's floor being y = 0), so no two tracks ever overlap. It also uploads the GPU state
//!    (a [`GpuDeformer`] per MEMG track).
//! 2. Each frame, [`Stage::pose`] records the GPU work that poses the meshes
//!    at time `t` (MEMG deformation at timestep `t · fps`) into the caller's
//!    encoder, and [`Stage::frame_scene`] gathers the meshes with their
//!    translations and the CPU-built primitives (AIBO stick figures from
//!    [`rig`], MRTK hands, camera and gaze from [`hands`]) at the same `t`,
//!    with a grid under [`Stage::bounds`].
//! 3. The caller draws the frame with [`crate::gpu::Renderer::draw`] (window)
//!    or [`crate::gpu::Capture::render`] (headless), framing the camera on
//!    [`Stage::bounds`] once, so the view holds still while tracks move. The
//!    grid always lies on the ground, y = 0.
//!
//! Time is shared: `t` is seconds from the start of every track; a track
//! shorter than [`Stage::duration_s`] holds its last pose.

pub mod hands;
pub mod layout;
pub mod rig;
pub mod units;

use glam::{Mat4, Vec3};

use crate::anim::aibo::pose_from_mtn;
use crate::anim::input_animation::{self, state_at};
use crate::anim::memg::{Binding, bounding_box_over_time};
use crate::error::{Error, Result};
use crate::formats::input_animation::InputAnimation;
use crate::formats::memg::MemgMotion;
use crate::formats::mtn::Mtn;
use crate::formats::obj::ObjScene;
use crate::gpu::{
    BoxInstance, Capsule, DeformOptions, FrameScene, GpuContext, GpuDeformer, Grid, Line, Sphere,
};
use crate::scene::Track;
use layout::{Footprint, Grounding};

/// World-space primitives of the tracks drawn without a mesh.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Primitives {
    /// Balls (joints).
    pub spheres: Vec<Sphere>,
    /// Capsules (bones, finger segments).
    pub capsules: Vec<Capsule>,
    /// Boxes (AIBO body and head).
    pub boxes: Vec<BoxInstance>,
    /// Lines (camera pyramid, gaze ray).
    pub lines: Vec<Line>,
}

impl Primitives {
    /// Moves everything into `frame`'s lists.
    pub fn append_to(self, frame: &mut FrameScene<'_>) {
        frame.spheres.extend(self.spheres);
        frame.capsules.extend(self.capsules);
        frame.boxes.extend(self.boxes);
        frame.lines.extend(self.lines);
    }
}

/// Where a track stands on the stage.
#[derive(Debug, Clone, PartialEq)]
pub struct Placement {
    /// The track's name ([`Track::name`]).
    pub name: String,
    /// The translation from the track's own world coordinates to the stage.
    pub offset: Vec3,
    /// Lowest corner of the box it fills over its whole motion, placed.
    pub min: Vec3,
    /// Highest corner, placed.
    pub max: Vec3,
}

/// The CPU half of the stage: where every track goes and how long they run.
/// [`Stage::new`] builds one; it needs no GPU, so tests and tools can use it alone.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// One per track, in track order.
    pub placements: Vec<Placement>,
    /// The box around every placed track over its whole motion.
    pub bounds: (Vec3, Vec3),
    /// The longest track's duration, seconds.
    pub duration_s: f64,
    /// The first track's frame period, seconds (1/60 s without tracks).
    pub frame_period_s: f64,
}

impl Plan {
    /// Measures and places `tracks`.
    pub fn new(tracks: &[Track]) -> Result<Plan> {
        let footprints = tracks.iter().map(footprint).collect::<Result<Vec<_>>>()?;
        let offsets = layout::place(&footprints);
        let placements: Vec<Placement> = tracks
            .iter()
            .zip(&footprints)
            .zip(offsets)
            .map(|((track, f), offset)| Placement {
                name: track.name(),
                offset,
                min: f.min + offset,
                max: f.max + offset,
            })
            .collect();
        let bounds = placements
            .iter()
            .map(|p| (p.min, p.max))
            .reduce(|(lo, hi), (min, max)| (lo.min(min), hi.max(max)))
            .unwrap_or((Vec3::ZERO, Vec3::ZERO));
        Ok(Plan {
            placements,
            bounds,
            duration_s: tracks.iter().map(Track::duration_s).fold(0.0, f64::max),
            frame_period_s: tracks
                .first()
                .map_or(input_animation::FRAME_PERIOD_S, Track::frame_period_s),
        })
    }
}

/// Binds a MEMG motion to its scene, the error naming the motion file.
fn bind(track: &Track, scene: &ObjScene, motion: &MemgMotion) -> Result<Binding> {
    Binding::new(scene, motion).map_err(|message| Error::Invalid {
        file: track.path().display().to_string(),
        message,
    })
}

/// A track's box over its whole motion in world axes, before placement.
fn footprint(track: &Track) -> Result<Footprint> {
    let (min, max, grounding) = match track {
        Track::Memg { scene, motion, .. } => {
            let (lo, hi) = bounding_box_over_time(scene, motion, &bind(track, scene, motion)?)
                .unwrap_or(([0.0; 3], [0.0; 3]));
            (lo.into(), hi.into(), Grounding::Rest)
        }
        Track::Mtn { motion, .. } => {
            let (lo, hi) = rig::bounds_over_time(motion);
            (lo, hi, Grounding::Keep)
        }
        Track::InputAnimation { recording, .. } => {
            let (lo, hi) = hands::bounds_over_time(recording).unwrap_or((Vec3::ZERO, Vec3::ZERO));
            (lo, hi, Grounding::Keep)
        }
    };
    Ok(Footprint {
        min,
        max,
        grounding,
    })
}

/// What a track needs each frame.
#[derive(Debug)]
enum Body {
    Memg { deformer: GpuDeformer, fps: f64 },
    Rig { motion: Mtn },
    Hands { recording: Box<InputAnimation> },
}

/// Every track ready to be posed and drawn at any time; see the module docs.
#[derive(Debug)]
pub struct Stage {
    plan: Plan,
    bodies: Vec<Body>,
    load_warnings: Vec<String>,
}

impl Stage {
    /// Measures and places `tracks` (CPU) and uploads their GPU state.
    pub fn new(ctx: &GpuContext, tracks: &[Track]) -> Result<Stage> {
        let plan = Plan::new(tracks)?;
        let mut load_warnings = Vec::new();
        let mut bodies = Vec::with_capacity(tracks.len());
        for track in tracks {
            bodies.push(match track {
                Track::Memg { scene, motion, .. } => {
                    let binding = bind(track, scene, motion)?;
                    load_warnings.extend(
                        binding
                            .warnings
                            .iter()
                            .map(|w| format!("{}: {w}", track.path().display())),
                    );
                    let deformer =
                        GpuDeformer::new(ctx, scene, motion, &binding, DeformOptions::default())?;
                    Body::Memg {
                        deformer,
                        fps: f64::from(motion.fps.max(1)),
                    }
                }
                Track::Mtn { motion, .. } => Body::Rig {
                    motion: motion.clone(),
                },
                Track::InputAnimation { recording, .. } => Body::Hands {
                    recording: recording.clone(),
                },
            });
        }
        Ok(Stage {
            plan,
            bodies,
            load_warnings,
        })
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
        for body in &mut self.bodies {
            if let Body::Memg { deformer, fps } = body {
                deformer.set_time(t * *fps);
                deformer.encode(encoder);
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
        for (body, placement) in self.bodies.iter().zip(&self.plan.placements) {
            let offset = placement.offset;
            match body {
                Body::Memg { deformer, .. } => {
                    frame.meshes.push(deformer.mesh());
                    frame.mesh_transforms.push(Mat4::from_translation(offset));
                }
                Body::Rig { motion } => {
                    let (model, pose) = pose_from_mtn(motion, t);
                    let origin = offset + Vec3::Y * rig::ground_lift(model, &pose);
                    rig::primitives(model, &pose, origin, &mut primitives);
                }
                Body::Hands { recording } => {
                    hands::primitives(&state_at(recording, t), offset, &mut primitives);
                }
            }
        }
        primitives.append_to(&mut frame);
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
