//! What a bench measures, one [`Row`] per motion, as `viewer bench --json`
//! prints it.

use serde::Serialize;

/// One motion's results.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// The motion's name (file stem, or `synthetic-VxRxN`).
    pub name: String,
    /// `memg`, `mtn` or `input-animation`.
    pub format: &'static str,
    /// Size of the motion file.
    pub bytes: u64,
    /// Decoding into fresh output, MB of file per second.
    pub decode_mb_s: f64,
    /// `copy_from_slice` of the same bytes into a buffer allocated (and
    /// touched) beforehand, MB per second.
    pub memcpy_mb_s: f64,
    /// `decode_mb_s / memcpy_mb_s`.
    pub decode_vs_memcpy: f64,
    /// What is measured beyond decoding.
    #[serde(flatten)]
    pub detail: Detail,
}

/// What is measured beyond decoding, by kind of motion.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Detail {
    /// A MEMG motion.
    Memg(MemgRow),
    /// An `.mtn` or MRTK motion.
    Curves(CurveRow),
}

/// Where the decode and memcpy figures read the file from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DecodeFrom {
    /// The file's bytes read into memory first.
    Memory,
    /// The file's memory map, its pages dropped behind the reader (a file
    /// too large to hold beside its decoded arrays).
    Mmap,
}

/// Decoding and deformation of a MEMG motion.
#[derive(Debug, Clone, Serialize)]
pub struct MemgRow {
    /// Where decode and memcpy read from.
    pub decode_from: DecodeFrom,
    /// Motion vertices of the groups bound to the scene (those deformed).
    pub vertices: usize,
    /// The largest basis size r among them.
    pub basis: usize,
    /// [`motion_viewer::formats::memg::load`] (memory-mapped, page cache warm), MB of file per second.
    pub mmap_decode_mb_s: f64,
    /// [`motion_viewer::formats::memg::decode_into`] a motion whose arrays it reuses, MB of file per second.
    pub decode_reuse_mb_s: f64,
    /// `decode_reuse_mb_s / memcpy_mb_s`.
    pub decode_reuse_vs_memcpy: f64,
    /// CPU deformed frames per second.
    pub cpu_deform_fps: f64,
    /// GPU deformed frames per second (deformation and normals); `null`
    /// without a GPU adapter.
    pub gpu_deform_fps: Option<f64>,
    /// Bytes of U (as f32) × CPU frames per second, GB/s.
    pub basis_gb_s: f64,
    /// Bytes of U as stored on the GPU × GPU frames per second, GB/s.
    pub gpu_basis_gb_s: Option<f64>,
    /// How the GPU stores U: `f32` or `f16`.
    pub gpu_basis_format: Option<String>,
    /// A streaming read of U: the bound on `basis_gb_s`.
    pub read_gb_s: f64,
    /// `basis_gb_s / read_gb_s`: 1 is deformation at memory speed.
    pub cpu_deform_vs_bound: f64,
    /// The GPU adapter's name and backend.
    pub gpu_adapter: Option<String>,
}

/// Sampling of `.mtn` keyframes or MRTK curves.
#[derive(Debug, Clone, Serialize)]
pub struct CurveRow {
    /// Files decoded per second.
    pub files_s: f64,
    /// Curves (channels) one sample evaluates.
    pub channels: usize,
    /// `pose_at` / `state_at` calls × channels, per second.
    pub samples_s: f64,
}
