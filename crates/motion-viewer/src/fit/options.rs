//! How to fit: the options a caller gives ([`FitOptions`]) and what they
//! are made of — the bound or rank, the frames, the split into parts, the
//! file whose size the choices go by — with their defaults.

use crate::formats::memg::MemgMotion;

/// Whether each group gets a rigid frame per timestep.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FrameMode {
    /// A rotation and translation per group and timestep, the basis in that frame.
    #[default]
    Local,
    /// None: the basis in world coordinates (the groups' parent is outside
    /// the frames, which the decoder notes).
    World,
    /// Per group, the frames that make the file smallest: its own, none,
    /// or (with several groups) frames it shares with others — the whole
    /// mesh's, or another group's — written once: a group that barely
    /// moves as a whole (a flag on its pole) saves its frames, the parts of
    /// a body that walks share the walk. One group is fitted twice (its
    /// frames, none); several are each fitted in every candidate (the whole
    /// mesh's frames, the 16 largest groups', its own, none: up to 19; with
    /// more than 64 groups the whole mesh's only: 3), its three cheapest
    /// again with the minimax refit, and once more in the frames chosen,
    /// keeping only the bytes of each try. Then, for the MEMG file under a
    /// largest-error bound, the groups in frames in one affine frame they
    /// share (`fit/affine/`), where that makes the file smaller still: a
    /// mesh of up to 1 Mi coordinates × frames and 64 groups, a few fits
    /// more at ranks capped below the rigid fit's by halving, and, in the
    /// fit written, each of up to 12 groups lowered while it holds.
    Auto,
}

/// The rank of each group's basis.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    /// This rank in every group (less in a group with fewer rows or timesteps).
    Rank(usize),
    /// The smallest rank per group whose largest error, the distance between
    /// any input vertex and the fitted one at any timestep, is at most this
    /// (scene units).
    MaxError(f64),
    /// [`Bound::MaxError`] as a fraction of the diagonal of the box holding
    /// every vertex at every timestep.
    MaxErrorOfDiagonal(f64),
    /// The smallest rank per group whose root-mean-square error, over the
    /// group's vertices and timesteps, is at most this (scene units): an
    /// average budget, under which single vertices may stray further (the
    /// report gives the largest error too).
    RmsError(f64),
    /// [`Bound::RmsError`] as a fraction of the diagonal.
    RmsErrorOfDiagonal(f64),
}

impl Bound {
    /// The rank asked for, under [`Bound::Rank`]: what the memory a fit
    /// holds is sized at (`None`: the largest rank a bound could need).
    pub(crate) fn fixed_rank(self) -> Option<u64> {
        match self {
            Bound::Rank(r) => Some(r as u64),
            _ => None,
        }
    }
}

/// How `viewer memg fit --parts` splits the mesh into groups, in place of
/// the scene's own (see `parts.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Parts {
    /// This many near-rigid parts (1 to the vertices).
    Count(usize),
    /// 1, 2, 4, 8… parts, up to [`MAX_AUTO_PARTS`], until a split makes a
    /// file more than a quarter larger than the smallest so far, or two in
    /// a row make no smaller one; the smallest file within the bound is kept.
    Auto,
}

/// The most parts `--parts auto` tries.
pub const MAX_AUTO_PARTS: usize = 64;

/// How to fit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FitOptions {
    /// The rank, or the error bound.
    pub bound: Bound,
    /// Rigid frames or none.
    pub frames: FrameMode,
    /// The frame rate written (a point cache counts frames, not seconds).
    pub fps: i32,
    /// Which file the fit makes smallest where it chooses: the frames under
    /// [`FrameMode::Auto`], the split under [`Parts::Auto`].
    pub sized_for: SizedFor,
}

impl FitOptions {
    /// Whether a fit in full ([`Effort::Full`]) polishes its bases
    /// ([`minimax::polish`]): for a quantized glTF, which spends what the
    /// fit leaves of a largest-error bound.
    pub(crate) fn polishes(&self) -> bool {
        self.sized_for == SizedFor::Gltf
            && matches!(
                self.bound,
                Bound::MaxError(_) | Bound::MaxErrorOfDiagonal(_)
            )
    }
}

/// The file whose size the fit's choices go by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SizedFor {
    /// The MEMG file: every number an `f64`, a frame 96 bytes a timestep.
    #[default]
    Memg,
    /// The reduced glTF the exporter writes of it (`memg fit --out x.glb`),
    /// quantized: positions and morph targets as 16-bit integers (8 bytes
    /// a vertex), normals 8-bit (4), weights 16-bit (the exporter's 8-bit
    /// targets and weights, where they fit, are not counted on); a frame a
    /// node's translation and rotation in `f32` (28 bytes a timestep). Its size is
    /// estimated from the motion's shape (groups, vertices, ranks, frames),
    /// not written.
    Gltf,
    /// The same glTF in floats (`--no-quantize`): 12 bytes a vertex of a
    /// position, normal or morph target, 4 a weight.
    GltfFloat,
}

impl SizedFor {
    /// A group's bytes beyond its frames: `v` vertices at rank `r` over `n`
    /// timesteps (its basis and coefficients, or morph targets and weights).
    pub(crate) fn rank_bytes(self, v: u64, r: u64, n: u64) -> u64 {
        match self {
            SizedFor::Memg => 24 * v * r + 8 * r * n,
            SizedFor::Gltf => 8 * v * r + 2 * r * n,
            SizedFor::GltfFloat => 12 * v * r + 4 * r * n,
        }
    }

    /// One frame's bytes over `n` timesteps.
    pub(crate) fn frame_bytes(self, n: u64) -> u64 {
        match self {
            SizedFor::Memg => 96 * n,
            SizedFor::Gltf | SizedFor::GltfFloat => 28 * n,
        }
    }

    /// The size of the file of `motion`, whose MEMG file is `memg` bytes:
    /// that, or the reduced glTF's estimated (per group its mesh's
    /// positions and normals, morph targets and weights, and about 1 400
    /// bytes of JSON and 450 more per target; per frame its keys; the key
    /// times once; the triangles' indices, the same for every split, left
    /// out). It ranks splits rather than sizes files: on the cloth flag and
    /// the two characters of BENCHMARKS.md it is within 25 kB of the file
    /// written, and it picked the smallest `.glb` of 1, 2, 4 and 8 parts in
    /// six cases of seven, the seventh 0.7 % over it.
    pub(crate) fn file_bytes(self, motion: &MemgMotion, memg: u64) -> u64 {
        match self {
            SizedFor::Memg => memg,
            SizedFor::Gltf | SizedFor::GltfFloat => {
                let n = motion.timesteps as u64;
                // A vertex's position and normal.
                let mesh = if self == SizedFor::Gltf { 12 } else { 24 };
                let groups: u64 = motion
                    .groups
                    .iter()
                    .map(|g| {
                        let (v, r) = (g.vertex_count() as u64, g.basis_len as u64);
                        mesh * v + self.rank_bytes(v, r, n) + 450 * r + 1400
                    })
                    .sum();
                groups + self.frame_bytes(n) * motion.local_frames as u64 + 4 * n
            }
        }
    }
}

/// The frame rate written when none is given: the rate of the published
/// MEMG data (30 or 120 fps), and a `.pc2` has no clock of its own.
pub const DEFAULT_FPS: i32 = 30;

/// The bound when none is given: 1/1000 of the animation's diagonal.
pub const DEFAULT_BOUND: Bound = Bound::MaxErrorOfDiagonal(1e-3);

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions {
            bound: DEFAULT_BOUND,
            frames: FrameMode::Local,
            fps: DEFAULT_FPS,
            sized_for: SizedFor::Memg,
        }
    }
}
