//! Why a fit could not be made ([`FitError`]), and how each reason becomes
//! the library's one error for the files a fit reads and writes.

/// Why a fit could not be made. The file-level [`super::fit_files`] turns these
/// into [`crate::Error`]s naming the file.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FitError {
    /// The positions are not `vertices × frames` points.
    #[error(
        "positions: expected {vertices} vertices × {frames} frames × 3 values, found {found} values"
    )]
    Shape {
        /// Vertices asked for.
        vertices: usize,
        /// Frames asked for.
        frames: usize,
        /// Values given.
        found: usize,
    },
    /// A position is NaN or infinite.
    #[error("frame {frame} vertex {vertex} {}: expected a finite number, found {value}", ["x", "y", "z"][*axis])]
    NotFinite {
        /// Timestep, 0-based.
        frame: usize,
        /// Vertex, 0-based.
        vertex: usize,
        /// 0, 1, 2: x, y, z.
        axis: usize,
        /// The value.
        value: f32,
    },
    /// No group was given.
    #[error("no groups: every vertex must be in one")]
    NoGroups,
    /// A group lists no vertex.
    #[error("group '{group}' has no vertices")]
    EmptyGroup {
        /// The group's name.
        group: String,
    },
    /// Two groups have one name.
    #[error("group name '{group}' is given twice")]
    NamedTwice {
        /// The name.
        group: String,
    },
    /// A group names a vertex the animation lacks.
    #[error("group '{group}' names vertex {vertex}; the animation has vertices 0..{vertices}")]
    VertexOutside {
        /// The group's name.
        group: String,
        /// The vertex it names.
        vertex: u32,
        /// The animation's vertices.
        vertices: usize,
    },
    /// A group's vertices are not in increasing order, each once.
    #[error("group '{group}': its vertices must be given in increasing order, each once")]
    Unordered {
        /// The group's name.
        group: String,
    },
    /// A vertex is in no group.
    #[error("vertex {vertex} is in no group: every vertex must be in one")]
    Ungrouped {
        /// The vertex, 0-based.
        vertex: usize,
    },
    /// The motion made does not decode again (a bug of the encoder, kept as
    /// an error rather than a panic).
    #[error("the fitted motion does not decode: {0}")]
    Undecodable(#[source] crate::DecodeError),
    /// The motion made does not bind to the animation's vertices and groups.
    #[error("{0}")]
    Unbound(#[source] crate::anim::memg::BindError),
    /// The animation has no frames.
    #[error("the animation has no frames")]
    NoFrames,
    /// The frame rate is below 1 fps.
    #[error("frame rate {fps}: expected 1 fps or more")]
    FrameRate {
        /// The rate asked for.
        fps: i32,
    },
    /// The error bound is not a positive number.
    #[error("max error {value}: expected a positive number")]
    Bound {
        /// The bound asked for.
        value: f64,
    },
    /// `--parts N` asked for no part, or more parts than vertices.
    #[error("--parts {count}: expected 1 to {vertices}, the animation's vertices")]
    Parts {
        /// The parts asked for.
        count: usize,
        /// The animation's vertices.
        vertices: usize,
    },
    /// No rank of a group meets an RMS bound (`--rms-error`) as the `f32`
    /// numbers of the decoded motion compute it.
    #[error(
        "group '{group}': no rank meets --rms-error {bound:e}; at its full rank {rank} the fit's \
         RMS error is still {rms_error:.3e} (the f32 precision of the decoded motion)"
    )]
    UnreachableRms {
        /// The group.
        group: String,
        /// The bound in scene units.
        bound: f64,
        /// The group's full rank.
        rank: usize,
        /// The RMS error at that rank.
        rms_error: f64,
    },
    /// The caller's stop flag was set (Ctrl+C in Python): nothing was made.
    #[error("stopped before the fit was done")]
    Stopped,
    /// No rank of a group meets the bound: even the full basis, as the
    /// `f32` numbers a MEMG motion is read as, is off by more.
    #[error(
        "group '{group}': no rank meets --max-error {bound:e}; at its full rank {rank} the fit is \
         still off by {max_error:.3e} (the f32 precision of the decoded motion)"
    )]
    Unreachable {
        /// The group.
        group: String,
        /// The bound in scene units.
        bound: f64,
        /// The group's full rank.
        rank: usize,
        /// The error at that rank.
        max_error: f64,
    },
}

impl FitError {
    /// This error as the library's one [`Error`](crate::Error), for a fit of
    /// the scene (or inputs) at `inputs` that was to write `out`: a bound or
    /// options no fit can meet are [`Error::Unsupported`](crate::Error::Unsupported)
    /// of `out`, a stop is [`Error::Interrupted`](crate::Error::Interrupted),
    /// and anything about the inputs a [`Error::Mismatch`](crate::Error::Mismatch)
    /// of `inputs`. Every caller (`viewer memg fit`, Python's `memg_fit`)
    /// maps a fit's errors through here.
    pub fn into_error(self, inputs: &std::path::Path, out: &std::path::Path) -> crate::Error {
        match self {
            FitError::Unreachable { .. }
            | FitError::UnreachableRms { .. }
            | FitError::NoFrames
            | FitError::FrameRate { .. }
            | FitError::Parts { .. }
            | FitError::Bound { .. } => crate::Error::unsupported(out, self),
            FitError::Stopped => crate::Error::Interrupted {
                path: out.to_path_buf(),
            },
            e => crate::Error::mismatch(inputs, e),
        }
    }
}
