//! What a fit reached: per group the rank and the errors measured on the
//! decoded motion, for the whole the bytes against the raw frames and the
//! input, and the time taken; as JSON (`viewer memg fit --json`) and as the
//! lines `viewer memg fit` prints.

use super::check::{Errors, Measured};
use super::{Animation, Bound, FitGroup, FitOptions, FrameMode, Parts, Rank};
use serde::Serialize;
use std::fmt::Write as _;

/// One group of the fit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GroupReport {
    /// The group's name.
    pub name: String,
    /// Vertices it moves.
    pub vertices: usize,
    /// Its basis size.
    pub rank: usize,
    /// Whether it has a rigid frame per timestep (false: world space).
    pub frame: bool,
    /// The largest distance, any vertex, any timestep, between the input
    /// and the decoded motion as the library's deformer places it.
    pub max_error: f64,
    /// The root mean square of those distances.
    pub rms_error: f64,
    /// Karni–Gotsman: `100·‖A − Ã‖ / ‖A − E(A)‖`, `E(A)` each timestep's centroid.
    pub kg_error: f64,
}

/// Sizes in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct Bytes {
    /// The MEMG motion file.
    pub memg: u64,
    /// Every vertex at every timestep as three `f32`: `12 × vertices × frames`.
    pub raw_f32: u64,
    /// The input files (`.pc2`, or the `.obj` sequence), when read from files.
    pub input: Option<u64>,
    /// The glTF written from the motion, when one was asked for in its
    /// place (`viewer memg fit … --out x.glb`; set by the caller that wrote it).
    pub gltf: Option<u64>,
    /// The most memory the fit was sized to hold, positions included: the
    /// estimate checked against the caps and the memory left before it
    /// started (docs/cli.md, "Limits").
    pub held_at_most: u64,
}

/// Seconds spent.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct Seconds {
    /// Reading the scene and the animation.
    pub read: f64,
    /// Frames and bases (refits included).
    pub fit: f64,
    /// Encoding, decoding, deforming and comparing.
    pub check: f64,
    /// Writing the file.
    pub write: f64,
    /// With `--parts`: splitting the mesh, and fitting and checking the
    /// splits not kept.
    pub parts: f64,
    /// All of it.
    pub total: f64,
}

/// How the mesh was split into groups (`--parts`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PartsReport {
    /// What was asked.
    pub asked: Parts,
    /// The groups of the scene written: the parts that won a face.
    pub chosen: usize,
    /// Every split fitted, in the order tried (under `auto`, with the
    /// search's shorter fit).
    pub tried: Vec<PartsTry>,
    /// Under `auto` with a fit in full that differs from the search's
    /// (`--frames auto`, or a glTF's bases polished): the splits fitted
    /// again in full, the search's smallest first; then, for a MEMG file
    /// with `--frames auto`, up to two more whose search fit was within a
    /// tenth of its size and of the smallest file so far. The file kept is
    /// the smallest of `tried` and these.
    pub full: Vec<PartsTry>,
    /// Why `auto` stopped before its rule said so: the next split, its
    /// seams counted, would hold more memory than allowed or left.
    pub stopped: Option<String>,
}

/// One split fitted by `--parts`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PartsTry {
    /// The parts asked of the split.
    pub parts: usize,
    /// The groups with faces it gave.
    pub groups: usize,
    /// The MEMG file's bytes; `None` where no rank of some group met the bound.
    pub memg: Option<u64>,
    /// When the choice went by the glTF's size (`memg fit --out x.glb`),
    /// its size estimated ([`super::SizedFor::Gltf`]).
    pub gltf_estimate: Option<u64>,
}

/// What a fit reached: ranks, the errors measured on the decoded motion,
/// sizes and times (see [`crate::fit`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FitReport {
    /// Vertices per timestep.
    pub vertices: usize,
    /// Timesteps.
    pub frames: usize,
    /// The frame rate written.
    pub fps: i32,
    /// Rigid frames per group, or none.
    pub frame_mode: FrameMode,
    /// The rigid frames written, each 96 bytes a timestep (groups may share
    /// one under [`FrameMode::Auto`]).
    pub local_frames: usize,
    /// Whether the one frame written is affine, shared by the groups in
    /// frames (under [`FrameMode::Auto`], where it makes the MEMG file
    /// smaller than rigid frames: `fit/affine/`), not rigid.
    pub affine_frame: bool,
    /// The bound asked for.
    pub bound: Bound,
    /// The error bound in scene units, when one was asked for.
    pub max_error_bound: Option<f64>,
    /// The RMS error bound in scene units, when one was asked for (`--rms-error`).
    pub rms_error_bound: Option<f64>,
    /// The diagonal of the box holding every vertex at every timestep.
    pub diagonal: f64,
    /// Per group, in file order.
    pub groups: Vec<GroupReport>,
    /// The largest error over every group (a vertex two groups share
    /// counted in both: each group's copy is measured).
    pub max_error: f64,
    /// RMS error of the scene as the viewer shows it (each vertex once).
    pub rms_error: f64,
    /// KG error of the scene as the viewer shows it.
    pub kg_error: f64,
    /// Sizes.
    pub bytes: Bytes,
    /// Times.
    pub seconds: Seconds,
    /// With a glTF written in the motion's place (`viewer memg fit … --out
    /// x.glb`; set by the caller that wrote it): the largest distance a
    /// vertex of its mesh may be from the input, [`Self::max_error`] plus
    /// the most quantizing its mesh to 16 bits moved one.
    pub gltf_error: Option<f64>,
    /// With that glTF quantized under a largest-error bound: the bound its
    /// fit was fitted under, in scene units — the bound asked, or less
    /// where leaving quantizing more of it made the smaller file.
    pub gltf_fitted_under: Option<f64>,
    /// How the mesh was split into groups, with `--parts`.
    pub parts: Option<PartsReport>,
    /// Things that fit but may surprise, one line each.
    pub warnings: Vec<String>,
}

impl FitReport {
    /// The bound to fit again under when `extra` — what a copy of the
    /// motion adds to every vertex's error, such as the rounding of a
    /// quantized glTF — on top of the errors measured passes the bound
    /// asked: that bound less half as much again as `extra` (`None`: the
    /// two together are within it, or the fit had a fixed rank).
    pub fn bound_less(&self, extra: f64) -> Option<Bound> {
        let (limit, measured, rms) = self.bounded()?;
        let tighter = limit - 1.5 * extra;
        (measured + extra > limit).then_some(match rms {
            true => Bound::RmsError(tighter),
            false => Bound::MaxError(tighter),
        })
    }

    /// What the fit left of its bound: the bound less the error it bounds
    /// (the largest, or the RMS under `--rms-error`); `None` at a fixed rank.
    pub fn left_of_bound(&self) -> Option<f64> {
        self.bounded().map(|(limit, measured, _)| limit - measured)
    }

    /// The bound in scene units, the error measured against it, and
    /// whether that is the RMS error (else the largest).
    fn bounded(&self) -> Option<(f64, f64, bool)> {
        match (self.max_error_bound, self.rms_error_bound) {
            (Some(limit), _) => Some((limit, self.max_error, false)),
            (_, Some(limit)) => Some((limit, self.rms_error, true)),
            _ => None,
        }
    }

    /// The report of a checked fit; `memg` is the encoded file's size.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
        anim: &Animation<'_>,
        groups: &[FitGroup],
        ranks: &[usize],
        framed: &[bool],
        local_frames: usize,
        measured: &Measured,
        options: &FitOptions,
        rank: Rank,
        memg: u64,
        seconds: Seconds,
    ) -> FitReport {
        let group =
            |((g, &frame), (&rank, e)): ((&FitGroup, &bool), (&usize, &Errors))| GroupReport {
                name: g.name.clone(),
                vertices: g.vertices.len(),
                rank,
                frame,
                max_error: e.max,
                rms_error: e.rms,
                kg_error: e.kg,
            };
        FitReport {
            vertices: anim.vertices,
            frames: anim.frames,
            fps: options.fps,
            frame_mode: options.frames,
            local_frames,
            affine_frame: false,
            bound: options.bound,
            max_error_bound: match rank {
                Rank::Bound(limit, _) => Some(limit),
                Rank::Fixed(_) | Rank::Rms(..) => None,
            },
            rms_error_bound: match rank {
                Rank::Rms(limit, _) => Some(limit),
                Rank::Fixed(_) | Rank::Bound(..) => None,
            },
            diagonal: anim.diagonal(),
            groups: groups
                .iter()
                .zip(framed)
                .zip(ranks.iter().zip(&measured.groups))
                .map(group)
                .collect(),
            max_error: measured.groups.iter().fold(0.0, |m, e| m.max(e.max)),
            rms_error: measured.whole.rms,
            kg_error: measured.whole.kg,
            bytes: Bytes {
                memg,
                raw_f32: 12 * (anim.vertices as u64) * (anim.frames as u64),
                input: None,
                gltf: None,
                held_at_most: crate::budget::fit_bytes(
                    anim.vertices as u64,
                    anim.frames as u64,
                    &groups
                        .iter()
                        .map(|g| g.vertices.len() as u64)
                        .collect::<Vec<_>>(),
                    options.bound.fixed_rank(),
                ),
            },
            seconds,
            gltf_error: None,
            gltf_fitted_under: None,
            parts: None,
            warnings: Vec::new(),
        }
    }

    /// The lines `viewer memg fit` prints: a table of the groups, then the
    /// sizes and the times.
    pub fn text(&self, out: &str, input: &str) -> String {
        let mut s = String::new();
        let framed = self.groups.iter().filter(|g| g.frame).count();
        let frames = match self.frame_mode {
            FrameMode::Local => "a rigid frame per group and frame".to_string(),
            FrameMode::World => "no frames (world space)".to_string(),
            FrameMode::Auto if self.affine_frame => format!(
                "one affine frame per frame shared by the groups in frames ({framed} of {} groups), where it makes the file smaller than rigid frames",
                self.groups.len()
            ),
            FrameMode::Auto => format!(
                "a rigid frame per frame where it makes the file smaller ({framed} of {} groups, {} {} written)",
                self.groups.len(),
                self.local_frames,
                if self.local_frames == 1 {
                    "frame"
                } else {
                    "frames"
                }
            ),
        };
        let _ = writeln!(
            s,
            "{input}: {} vertices × {} frames at {} fps, diagonal {:.4}; {frames}",
            self.vertices, self.frames, self.fps, self.diagonal
        );
        if let Some(p) = &self.parts {
            let listed = |tries: &[PartsTry]| -> String {
                let each: Vec<String> = tries
                    .iter()
                    .map(|t| match (t.memg, t.gltf_estimate) {
                        (Some(bytes), None) => format!("{} → {bytes} bytes", t.groups),
                        (Some(bytes), Some(gltf)) => {
                            format!("{} → {bytes} bytes (glTF about {gltf})", t.groups)
                        }
                        (None, _) => format!("{} → over the bound", t.groups),
                    })
                    .collect();
                each.join(", ")
            };
            let _ = writeln!(
                s,
                "parts: {} near-rigid groups kept; groups tried: {}",
                p.chosen,
                listed(&p.tried)
            );
            if !p.full.is_empty() {
                let _ = writeln!(s, "parts: fitted again in full: {}", listed(&p.full));
            }
            if let Some(why) = &p.stopped {
                let _ = writeln!(s, "parts: stopped at {why}");
            }
        }
        match (self.max_error_bound, self.rms_error_bound) {
            (Some(b), _) => {
                let _ = writeln!(s, "bound: max error {b:.4e} (scene units)");
            }
            (None, Some(b)) => {
                let _ = writeln!(s, "bound: RMS error {b:.4e} (scene units) in every group");
            }
            (None, None) => {
                if let Bound::Rank(r) = self.bound {
                    let _ = writeln!(s, "rank {r} in every group");
                }
            }
        }
        let width = self
            .groups
            .iter()
            .map(|g| g.name.chars().count())
            .chain([5])
            .max()
            .unwrap_or(5);
        let _ = writeln!(
            s,
            "{:<width$}  {:>8}  {:>4}  {:>10}  {:>10}  {:>8}",
            "group", "vertices", "rank", "max error", "RMS error", "KG error"
        );
        for g in &self.groups {
            let _ = writeln!(
                s,
                "{:<width$}  {:>8}  {:>4}  {:>10.3e}  {:>10.3e}  {:>8.4}",
                g.name, g.vertices, g.rank, g.max_error, g.rms_error, g.kg_error
            );
        }
        let _ = writeln!(
            s,
            "{:<width$}  {:>8}  {:>4}  {:>10.3e}  {:>10.3e}  {:>8.4}",
            "whole", self.vertices, "", self.max_error, self.rms_error, self.kg_error
        );
        let ratio = |other: u64| other as f64 / self.bytes.memg.max(1) as f64;
        let _ = write!(
            s,
            "{out}: {} bytes, {:.2}x smaller than the raw f32 frames ({} bytes)",
            self.bytes.memg,
            ratio(self.bytes.raw_f32),
            self.bytes.raw_f32
        );
        match self.bytes.input {
            Some(input_bytes) => {
                let _ = writeln!(
                    s,
                    ", {:.2}x smaller than the input ({input_bytes} bytes)",
                    ratio(input_bytes)
                );
            }
            None => s.push('\n'),
        }
        if let Some(gltf) = self.bytes.gltf {
            let _ = writeln!(
                s,
                "as glTF: {gltf} bytes, {:.2}x smaller than the raw f32 frames{}",
                self.bytes.raw_f32 as f64 / gltf.max(1) as f64,
                match self.gltf_error {
                    Some(e) if e > self.max_error =>
                        format!("; its 16-bit mesh at most {e:.4e} from the input"),
                    _ => String::new(),
                }
            );
            if let (Some(under), Some(limit)) = (self.gltf_fitted_under, self.max_error_bound)
                && under < limit
            {
                let _ = writeln!(
                    s,
                    "its fit under {under:.4e}, {:.0}% of the bound: the smallest glTF of those tried",
                    100.0 * under / limit
                );
            }
        }
        let t = &self.seconds;
        let _ = write!(
            s,
            "took {:.3} s: read {:.3}, fit {:.3}, check {:.3}, write {:.3}",
            t.total, t.read, t.fit, t.check, t.write
        );
        if self.parts.is_some() {
            let _ = write!(s, ", parts {:.3}", t.parts);
        }
        s.push('\n');
        s
    }
}
