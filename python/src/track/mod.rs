//! `motion_viewer.Track`: one motion, its facts, and its samplers. Each
//! sampler method says only what its kind of sample is (a `Plan`: the shape
//! of one sample and the function filling samples); `track/plan.rs` is the
//! one body they share (times, output cap, the GIL released, Ctrl-C). The
//! kind lookups live in `track/kind.rs`, the MEMG side in `track/memg.rs`.

use crate::errors::guarded;
use crate::memg::{Stored, Which};
use crate::sample;
use kind::kind;
use memg::{borrowed, shaped};
use plan::Plan;

mod kind;
mod memg;
mod plan;
use motion_viewer::Track as Inner;
use motion_viewer::anim::memg::Binding;
use motion_viewer::formats::input_animation::JOINT_COUNT;
use numpy::{PyArray1, PyArray2, PyArray3, PyArray4};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::OnceLock;

/// One motion: an AIBO `.mtn` (kind `"mtn"`), a MEMG scene and motion
/// (`"memg"`) or an MRTK input animation (`"input-animation"`). Immutable;
/// the samplers take times in seconds and return numpy arrays.
#[pyclass(frozen, module = "motion_viewer")]
pub struct Track {
    /// The library's track; for a MEMG track opened from a file, its
    /// motion's mean poses and bases are empty (`indexed`): they are in
    /// `stored`, and `whole` decodes them.
    pub inner: Inner,
    /// Which `.obj` group each MEMG group moves (MEMG only).
    pub(crate) binding: Option<Binding>,
    /// Loading (or edit) warnings, the binding's, then the decoder's.
    pub(crate) warnings: Vec<String>,
    /// The MEMG motion file, held whole (MEMG only).
    pub(crate) stored: Option<Stored>,
    /// Whether `inner`'s MEMG motion lacks its mean poses and bases.
    pub(crate) indexed: bool,
    /// `inner` with them decoded, made on first need (`indexed` only).
    pub(crate) decoded: OnceLock<Inner>,
}

impl Track {
    /// Wraps a loaded track other than a MEMG one.
    pub fn new(py: Python<'_>, inner: Inner, warnings: Vec<String>) -> PyResult<Track> {
        Track::with_file(py, inner, warnings, None, false)
    }

    /// Wraps a loaded track with, for MEMG, its motion file (`stored`;
    /// `indexed` when `inner`'s motion lacks the arrays `stored` holds). A
    /// MEMG motion is bound to its scene now, so a motion that does not fit
    /// raises here rather than when sampled.
    pub fn with_file(
        py: Python<'_>,
        inner: Inner,
        mut warnings: Vec<String>,
        stored: Option<Stored>,
        indexed: bool,
    ) -> PyResult<Track> {
        let binding = match &inner {
            Inner::Memg { scene, motion, .. } => {
                let bound = if indexed {
                    Binding::for_index(scene, motion)
                } else {
                    Binding::new(scene, motion)
                };
                Some(bound.map_err(|reason| {
                    crate::errors::to_py(py, motion_viewer::Error::mismatch(inner.path(), reason))
                })?)
            }
            _ => None,
        };
        if let Some(b) = &binding {
            warnings.extend(b.warnings.iter().cloned());
        }
        warnings.extend(inner.warnings().iter().cloned());
        Ok(Track {
            inner,
            binding,
            warnings,
            stored,
            indexed,
            decoded: OnceLock::new(),
        })
    }
}

#[pymethods]
impl Track {
    /// `"mtn"`, `"memg"` or `"input-animation"` (as `info()["format"]`).
    #[getter]
    fn kind(&self) -> &'static str {
        kind(&self.inner)
    }

    /// The file stem, or the archive entry's name.
    #[getter]
    fn name(&self) -> String {
        self.inner.name()
    }

    /// The file the track came from (the motion file for MEMG).
    #[getter]
    fn path(&self) -> String {
        self.inner.path().to_string_lossy().into_owned()
    }

    /// How long the track plays, seconds.
    #[getter]
    fn duration(&self) -> f64 {
        self.inner.duration_s()
    }

    /// The track's own frame period, seconds (MEMG 1/fps, `.mtn` its frame
    /// length, MRTK 1/60).
    #[getter]
    fn frame_period(&self) -> f64 {
        self.inner.frame_period_s()
    }

    /// What went less well: loading warnings (each naming its file), then
    /// what the decoder noticed about the file.
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.warnings.clone()
    }

    /// The summary `viewer info --json` prints for this track, as a dict.
    fn info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        guarded(py, || {
            let summary = motion_viewer::summary::summarize(self.whole(py)?);
            let text = serde_json::to_string(&summary)
                .map_err(|e| PyValueError::new_err(e.to_string()))?;
            py.import("json")?.call_method1("loads", (text,))
        })
    }

    /// The times every sampler takes when given none: 0, one frame period
    /// (or 1/`rate` s), … up to the duration.
    #[pyo3(signature = (rate=None))]
    fn sample_times<'py>(
        &self,
        py: Python<'py>,
        rate: Option<f64>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        guarded(py, || {
            let times = self.times(py, None, rate, "sample_times", 0)?;
            Ok(PyArray1::from_vec(py, times))
        })
    }

    fn __repr__(&self) -> String {
        format!(
            "<motion_viewer.Track {} {:?} {:.3} s>",
            kind(&self.inner),
            self.inner.name(),
            self.inner.duration_s()
        )
    }

    /// Writes the track to `path` through the library's one export entry
    /// point (the format by extension: .json, .csv, .obj, .glb, .gltf,
    /// .pc2). `quantize` (a MEMG glTF): True for 16-bit integers, or the
    /// distance in scene units a vertex may move for fewer bytes (`viewer
    /// export --quantize[=E]`). Returns the paths written.
    #[pyo3(signature = (path, *, time=None, frame=None, fps=None, frames=None, force=false, baked=false, quantize=None))]
    #[allow(clippy::too_many_arguments)]
    fn export(
        slf: &Bound<'_, Self>,
        path: std::path::PathBuf,
        time: Option<f64>,
        frame: Option<u64>,
        fps: Option<f64>,
        frames: Option<(u64, u64)>,
        force: bool,
        baked: bool,
        quantize: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Vec<String>> {
        let options = crate::export::Choices {
            time,
            frame,
            fps,
            frames,
            force,
            baked,
            quantize: crate::export::Quantize::from_py(quantize)?,
        };
        let py = slf.py();
        guarded(py, || {
            let track = slf.get().whole(py)?;
            crate::export::run(py, std::slice::from_ref(track), &path, &options)
        })
    }

    // --- AIBO .mtn ---

    /// The joints' PRM names, in file order (AIBO): each servo's name as
    /// `info`, URDF and MCAP give it, also where a Sony file garbles it.
    #[getter]
    fn joint_names(&self) -> PyResult<Vec<String>> {
        // The one name every path gives a servo (`Mtn::joint_names`), not
        // the file's spelling where a Sony file garbles it.
        let m = self.mtn("joint_names")?;
        Ok(m.joint_names().into_iter().map(str::to_owned).collect())
    }

    /// Joint angles in radians, n × joints, linear between keyframes (AIBO).
    /// `times` in seconds; without them, every frame (or 1/`rate` s).
    #[pyo3(signature = (times=None, *, rate=None))]
    fn joint_angles<'py>(
        &self,
        py: Python<'py>,
        times: Option<Bound<'py, PyAny>>,
        rate: Option<f64>,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        self.sample(py, times, rate, "joint_angles", |what| {
            let m = self.mtn(what)?;
            let joints = m.joints.len();
            Ok(Plan::new([joints], |_, at, out| {
                sample::joint_angles(m, at, out)
            }))
        })
    }

    /// Body roll, pitch and yaw in radians, n × 3 (AIBO; + leans right,
    /// leans backward, turns left).
    #[pyo3(signature = (times=None, *, rate=None))]
    fn body_attitude<'py>(
        &self,
        py: Python<'py>,
        times: Option<Bound<'py, PyAny>>,
        rate: Option<f64>,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        self.sample(py, times, rate, "body_attitude", |what| {
            let m = self.mtn(what)?;
            Ok(Plan::new([3], |_, at, out| {
                sample::body_attitude(m, at, out)
            }))
        })
    }

    /// The rig's named points (`point_names`) in metres, n × points × 3:
    /// `frame="body"` (x forward, y left, z up, origin at the body centre)
    /// or `"world"` (after the body's roll, pitch and yaw) (AIBO).
    #[pyo3(signature = (times=None, frame="body", *, rate=None))]
    fn rig_points<'py>(
        &self,
        py: Python<'py>,
        times: Option<Bound<'py, PyAny>>,
        frame: &str,
        rate: Option<f64>,
    ) -> PyResult<Bound<'py, PyArray3<f64>>> {
        self.sample(py, times, rate, "rig_points", |what| {
            let m = self.mtn(what)?;
            let world = sample::world_frame(frame)?;
            let points = sample::point_names(m).len();
            Ok(Plan::new([points, 3], move |_, at, out| {
                sample::rig_points(m, at, world, out)
            }))
        })
    }

    /// The names of `rig_points`' points, in order (AIBO).
    #[getter]
    fn point_names(&self) -> PyResult<Vec<&'static str>> {
        Ok(sample::point_names(self.mtn("point_names")?))
    }

    /// The keyframes as arrays (AIBO): `time` (s), `frame` (index),
    /// `joint_angles` (keyframes × joints, radians), `body_attitude`
    /// (keyframes × 3, radians).
    fn keyframes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        guarded(py, || sample::keyframes(py, self.mtn("keyframes")?))
    }

    /// The motion played on a simulated dog (AIBO): what `viewer simulate
    /// --json` prints as `verdict` (`falls`, `fall_time_s`, `peak_tilt_deg`,
    /// `min_body_height_m`, `paws`, `ground_contacts`, `joints`…), and the
    /// simulated motion per frame from its start to the end of the hold
    /// after it: `time` (n, seconds), `body_position` (n × 3, metres),
    /// `body_attitude` (n × 4, quaternion x y z w), `tilt_deg` (n),
    /// `reached` and `commanded` (n × servos, radians), `servos` (their PRM
    /// names). Raises `motion_viewer.UnsupportedError` for a motion of no known
    /// model, a zero-length one, one that drives a servo past its stop, or a
    /// `max_duration` that is not seconds in (0, 3600]; `TooLargeError` for a
    /// motion longer than `max_duration` seconds (default 600), before any
    /// step. Ctrl-C raises `KeyboardInterrupt` at once.
    #[pyo3(signature = (*, max_duration=None))]
    fn simulate<'py>(
        &self,
        py: Python<'py>,
        max_duration: Option<f64>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let m = self.mtn("simulate")?;
        let name = self.inner.path().display().to_string();
        guarded(py, || {
            crate::track_sim::simulate(py, m, &name, max_duration)
        })
    }

    // --- MRTK input animation ---

    /// Head (camera) poses, n × 7: x, y, z (metres), then the rotation
    /// quaternion x, y, z, w (MRTK).
    #[pyo3(signature = (times=None, *, rate=None))]
    fn camera_poses<'py>(
        &self,
        py: Python<'py>,
        times: Option<Bound<'py, PyAny>>,
        rate: Option<f64>,
    ) -> PyResult<Bound<'py, PyArray2<f32>>> {
        self.sample(py, times, rate, "camera_poses", |what| {
            let camera = self.recorded(what, |r| r.camera.as_ref(), "a camera pose")?;
            Ok(Plan::new([7], |_, at, out| sample::camera(camera, at, out)))
        })
    }

    /// Hand joints, n × 2 (left, right) × 27 (`hand_joint_names`) × 7
    /// (x, y, z, qx, qy, qz, qw) (MRTK).
    #[pyo3(signature = (times=None, *, rate=None))]
    fn hand_joints<'py>(
        &self,
        py: Python<'py>,
        times: Option<Bound<'py, PyAny>>,
        rate: Option<f64>,
    ) -> PyResult<Bound<'py, PyArray4<f32>>> {
        self.sample(py, times, rate, "hand_joints", |what| {
            let hands = self.recorded(what, |r| r.hands.as_ref(), "hands")?;
            Ok(Plan::new([2, JOINT_COUNT, 7], |_, at, out| {
                sample::hand_joints(hands, at, out)
            }))
        })
    }

    /// Whether each hand (left, right) is tracked, n × 2 (MRTK).
    #[pyo3(signature = (times=None, *, rate=None))]
    fn tracked<'py>(
        &self,
        py: Python<'py>,
        times: Option<Bound<'py, PyAny>>,
        rate: Option<f64>,
    ) -> PyResult<Bound<'py, PyArray2<bool>>> {
        self.sample(py, times, rate, "tracked", |what| {
            let hands = self.recorded(what, |r| r.hands.as_ref(), "hands")?;
            Ok(Plan::new([2], |_, at, out| {
                sample::hand_flags(hands, at, false, out)
            }))
        })
    }

    /// Whether each hand (left, right) is pinching, n × 2 (MRTK).
    #[pyo3(signature = (times=None, *, rate=None))]
    fn pinching<'py>(
        &self,
        py: Python<'py>,
        times: Option<Bound<'py, PyAny>>,
        rate: Option<f64>,
    ) -> PyResult<Bound<'py, PyArray2<bool>>> {
        self.sample(py, times, rate, "pinching", |what| {
            let hands = self.recorded(what, |r| r.hands.as_ref(), "hands")?;
            Ok(Plan::new([2], |_, at, out| {
                sample::hand_flags(hands, at, true, out)
            }))
        })
    }

    /// The eye-gaze ray, n × 6: origin x, y, z, then direction x, y, z (MRTK).
    #[pyo3(signature = (times=None, *, rate=None))]
    fn gaze<'py>(
        &self,
        py: Python<'py>,
        times: Option<Bound<'py, PyAny>>,
        rate: Option<f64>,
    ) -> PyResult<Bound<'py, PyArray2<f32>>> {
        self.sample(py, times, rate, "gaze", |what| {
            let gaze = self.recorded(what, |r| r.eye_gaze.as_ref(), "eye gaze")?;
            Ok(Plan::new([6], |_, at, out| sample::gaze(gaze, at, out)))
        })
    }

    /// The recording's markers as (time in seconds, name) (MRTK).
    #[getter]
    fn markers(&self) -> PyResult<Vec<(f64, String)>> {
        let rec = self.recording("markers")?;
        Ok(rec
            .markers
            .iter()
            .map(|m| (f64::from(m.time), m.name.clone()))
            .collect())
    }

    /// The 27 hand joints' names, in the toolkit's order (MRTK).
    #[getter]
    fn hand_joint_names(&self) -> PyResult<Vec<&'static str>> {
        self.recording("hand_joint_names")?;
        Ok(motion_viewer::anim::input_animation::JOINT_NAMES.to_vec())
    }

    // --- MEMG ---

    /// Every `.obj` vertex's position at each time, n × vertices × 3,
    /// float32 (MEMG; the library's CPU deformer). Times in seconds: a time
    /// between timesteps blends their coefficients, as the viewer plays it.
    #[pyo3(signature = (times=None, *, rate=None))]
    fn positions<'py>(
        &self,
        py: Python<'py>,
        times: Option<Bound<'py, PyAny>>,
        rate: Option<f64>,
    ) -> PyResult<Bound<'py, PyArray3<f32>>> {
        self.sample(py, times, rate, "positions", |what| {
            let (scene, motion, binding) = self.memg(what)?;
            // The mapped motion's groups (mapping, basis length) are the
            // decoded one's: the cost is known before decoding.
            let ns = sample::positions_row_ns(scene, motion);
            let shape = [scene.positions.len(), 3];
            Ok(Plan::costing(shape, ns, |whole, at, out| {
                // `whole` is this MEMG track with its arrays decoded.
                if let Inner::Memg { scene, motion, .. } = whole {
                    sample::positions(scene, motion, binding, at, out)
                }
            }))
        })
    }

    /// Frames per second (MEMG).
    #[getter]
    fn fps(&self) -> PyResult<i32> {
        Ok(self.memg("fps")?.1.fps)
    }

    /// The MEMG groups' names, in file order.
    #[getter]
    fn group_names(&self) -> PyResult<Vec<String>> {
        Ok(self
            .memg("group_names")?
            .1
            .groups
            .iter()
            .map(|g| g.name.clone())
            .collect())
    }

    /// The `.obj` rest positions, vertices × 3 float32, a view (MEMG).
    #[getter]
    fn rest_positions<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let (scene, _, _) = slf.get().memg("rest_positions")?;
        let view = shaped((scene.positions.len(), 3), scene.positions.as_flattened())?;
        borrowed(slf, view)
    }

    /// The `.obj` triangles, triangles × 3 uint32 (0-based), a view (MEMG).
    #[getter]
    fn triangles<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyArray2<u32>>> {
        let (scene, _, _) = slf.get().memg("triangles")?;
        let view = shaped((scene.triangles.len(), 3), scene.triangles.as_flattened())?;
        borrowed(slf, view)
    }

    /// The local frames' 3×4 transforms, timesteps × frames × 3 × 4 float64,
    /// a view of the decoded data (MEMG).
    #[getter]
    fn frames<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyArray4<f64>>> {
        let (_, m, _) = slf.get().memg("frames")?;
        let view = shaped((m.timesteps, m.local_frames, 3, 4), m.frames.as_flattened())?;
        borrowed(slf, view)
    }

    /// A group's mean pose, vertices × 3 float64, a view of the stored
    /// doubles (MEMG; `group`: index or name, the first when `None`).
    #[pyo3(signature = (group=None))]
    fn mean<'py>(
        slf: &Bound<'py, Self>,
        group: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        Track::stored_view(slf, group, Which::Mean)
    }

    /// A group's basis U, 3·vertices × r float64 (row 3i + axis), a
    /// Fortran-ordered view of the stored doubles (MEMG).
    #[pyo3(name = "U", signature = (group=None))]
    fn basis<'py>(
        slf: &Bound<'py, Self>,
        group: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        Track::stored_view(slf, group, Which::Basis)
    }

    /// A group's coefficients Q, r × timesteps float64, a Fortran-ordered
    /// view of the stored doubles (MEMG).
    #[pyo3(name = "Q", signature = (group=None))]
    fn coeffs<'py>(
        slf: &Bound<'py, Self>,
        group: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        Track::stored_view(slf, group, Which::Coeffs)
    }

    /// Which `.obj` vertex (1-based, as stored) each of a group's vertices
    /// moves, a view (MEMG).
    #[pyo3(signature = (group=None))]
    fn mapping<'py>(
        slf: &Bound<'py, Self>,
        group: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyArray1<u32>>> {
        let g = Track::group_of(slf, group)?;
        borrowed(slf, shaped(g.mapping.len(), &g.mapping)?)
    }

    /// The local frame a group lives in (outside 0..frames: world space) (MEMG).
    #[pyo3(signature = (group=None))]
    fn parent(slf: &Bound<'_, Self>, group: Option<&Bound<'_, PyAny>>) -> PyResult<i32> {
        Ok(Track::group_of(slf, group)?.parent)
    }
}
