//! The samplers behind `Track`'s methods: each fills a numpy array's buffer,
//! allocated with the GIL held, then runs with the GIL released.

use motion_viewer::Track;
use motion_viewer::anim::aibo::MtnRig;
use motion_viewer::anim::clock::{Grid, Window};
use motion_viewer::anim::curve::evaluate_bool;
use motion_viewer::anim::input_animation::{Pose, pose_at, ray_at};
use motion_viewer::anim::memg::{Binding, Deformer, steps_at};
use motion_viewer::anim::mtn::MtnSampler;
use motion_viewer::formats::input_animation::{Hands, JOINT_COUNT, PoseCurves, RayCurves};
use motion_viewer::formats::memg::MemgMotion;
use motion_viewer::formats::mtn::Mtn;
use motion_viewer::formats::obj::ObjScene;
use numpy::ndarray::{Dimension, IntoDimension};
use numpy::npyffi::{PY_ARRAY_API, npy_intp};
use numpy::{
    AllowTypeChange, Element, PyArray, PyArray1, PyArray2, PyArrayDescrMethods, PyArrayLike1,
    PyArrayMethods,
};
use pyo3::exceptions::{PyMemoryError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// Times in seconds as a caller gives them: a numpy array, a list, a range…
pub type Times<'py> = PyArrayLike1<'py, f64, AllowTypeChange>;

/// The most samples one call makes from a rate alone: a typo in a rate
/// (1e9 for 1e3) is refused rather than filling the memory.
const MAX_GRID: f64 = 1e8;

/// The most bytes one call returns (its array, and the times it holds
/// while filling it): past this a request is refused before anything is
/// allocated ([`check_size`]); below it, an allocation the system refuses
/// is a `MemoryError` ([`fill`]).
pub const MAX_OUTPUT_BYTES: u64 = 4 << 30;

/// The frames of `track` at `rate` samples a second (its own frame period
/// when `None`), on the library's one clock ([`Grid`]): 0, 1/rate, 2/rate…
/// up to its duration, the last frame included. A rate that is not a
/// positive number is a `ValueError`; more than [`MAX_GRID`] frames a
/// `TooLargeError`.
pub fn grid(py: Python<'_>, track: &Track, rate: Option<f64>) -> PyResult<Grid> {
    if let Some(r) = rate
        && !(r.is_finite() && r > 0.0)
    {
        return Err(PyValueError::new_err(format!(
            "rate {r}: expected a positive number of samples per second"
        )));
    }
    let grid = track.grid(rate, Window::Whole);
    if grid.len() as f64 > MAX_GRID {
        return Err(crate::errors::too_large(
            py,
            format!(
                "{} samples at {} s over {} s: more than the {MAX_GRID} one call makes; \
                 pass times, or a lower rate",
                grid.len(),
                grid.period_s(),
                track.duration_s()
            ),
        ));
    }
    Ok(grid)
}

/// The times of `grid` (at most [`MAX_GRID`]), or a `MemoryError`.
pub fn times(grid: &Grid) -> PyResult<Vec<f64>> {
    let count = grid.times().len();
    let mut times = Vec::new();
    times
        .try_reserve_exact(count)
        .map_err(|_| PyMemoryError::new_err(format!("{count} times do not fit in memory")))?;
    times.extend(grid.times());
    Ok(times)
}

/// Refuses, with a `TooLargeError` naming what to narrow, a call of
/// `what` returning `count` samples of `per_sample` bytes each (its times
/// held beside them, 8 bytes each), more than [`MAX_OUTPUT_BYTES`] in all.
pub fn check_size(py: Python<'_>, what: &str, count: usize, per_sample: u64) -> PyResult<()> {
    let bytes = (count as u64).saturating_mul(per_sample.saturating_add(8));
    if bytes <= MAX_OUTPUT_BYTES {
        return Ok(());
    }
    Err(crate::errors::too_large(
        py,
        format!(
            "{what}: {count} samples × {per_sample} bytes = {:.2} GB is more than the {:.2} GB \
             one call returns; pass fewer times (or a lower rate) and call it in parts",
            bytes as f64 / 1e9,
            MAX_OUTPUT_BYTES as f64 / 1e9
        ),
    ))
}

/// A new zero-filled C-ordered array of `shape`, filled by `f` with the GIL
/// released. An array the system cannot allocate is a `MemoryError`, never
/// a panic (call [`check_size`] first for the cap). For outputs that take
/// a moment; a sampler over many times uses [`fill_rows`].
pub fn fill<'py, T, ID>(
    py: Python<'py>,
    shape: ID,
    f: impl FnOnce(&mut [T]) + Send,
) -> PyResult<Bound<'py, PyArray<T, ID::Dim>>>
where
    T: Element + Send,
    ID: IntoDimension,
{
    zeros_then(py, shape, |data| {
        py.detach(|| f(data));
        Ok(())
    })
}

/// The estimated cost of one slice of [`fill_rows`]'s work between two
/// looks at its cancel flag, in nanoseconds of one core: 20 ms.
const SLICE_NS: u64 = 20_000_000;

/// The cost estimate of a sampler's row of `width` numbers, nanoseconds
/// (a pose at one time costs a few tens of nanoseconds per number).
pub fn row_ns(width: usize) -> u64 {
    32 * width as u64 + 64
}

/// [`fill`] for a sampler: `f(rows, out)` fills the rows `rows` (first
/// axis: one time each) into `out`, their part of the array, a slice of
/// about [`SLICE_NS`] at a time (from `ns_per_row`, the caller's
/// estimate) on a thread that Ctrl-C stops ([`crate::interrupt::run`]):
/// a `KeyboardInterrupt` within a slice and a poll of the signal.
pub fn fill_rows<'py, T, ID>(
    py: Python<'py>,
    shape: ID,
    ns_per_row: u64,
    f: impl Fn(std::ops::Range<usize>, &mut [T]) + Sync,
) -> PyResult<Bound<'py, PyArray<T, ID::Dim>>>
where
    T: Element + Send,
    ID: IntoDimension,
{
    let dim = shape.into_dimension();
    let rows = dim.slice().first().copied().unwrap_or(0);
    let width: usize = dim.slice().iter().skip(1).product();
    zeros_then(py, dim, |data| {
        if rows == 0 || width == 0 {
            return Ok(());
        }
        let per_slice = (SLICE_NS / ns_per_row.max(1)).clamp(1, rows as u64) as usize;
        if per_slice >= rows {
            py.detach(|| f(0..rows, data));
            return Ok(());
        }
        crate::interrupt::run(py, |cancel| {
            for (i, out) in data.chunks_mut(per_slice * width).enumerate() {
                if crate::interrupt::cancelled(cancel) {
                    return;
                }
                let start = i * per_slice;
                f(start..start + out.len() / width, out);
            }
        })
    })
}

/// A new zero-filled C-ordered array of `shape`, its data handed to
/// `then` to fill; a `MemoryError` when it cannot be allocated.
fn zeros_then<'py, T, ID>(
    py: Python<'py>,
    shape: ID,
    then: impl FnOnce(&mut [T]) -> PyResult<()>,
) -> PyResult<Bound<'py, PyArray<T, ID::Dim>>>
where
    T: Element,
    ID: IntoDimension,
{
    let dim = shape.into_dimension();
    let mut dims: Vec<npy_intp> = dim.slice().iter().map(|&d| d as npy_intp).collect();
    // SAFETY: numpy's own constructor, given a dimension per axis and a
    // descriptor it takes over; it returns a new reference, or null with
    // the Python error (MemoryError) set.
    let array = unsafe {
        let raw = PY_ARRAY_API.PyArray_Zeros(
            py,
            dims.len() as std::ffi::c_int,
            dims.as_mut_ptr(),
            T::get_dtype(py).into_dtype_ptr(),
            0,
        );
        Bound::from_owned_ptr_or_err(py, raw)?
    };
    let array = array
        .cast_into::<PyArray<T, ID::Dim>>()
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    // SAFETY: the array was just made here and no other reference to it
    // exists until it is returned.
    let data = unsafe { array.as_slice_mut() }.map_err(|e| PyValueError::new_err(e.to_string()))?;
    then(data)?;
    Ok(array)
}

/// Microradians (as stored) to radians.
const URAD: f64 = 1e-6;

/// Joint angles at each time, radians, row by row.
pub fn joint_angles(m: &Mtn, times: &[f64], out: &mut [f64]) {
    let sampler = MtnSampler::new(m);
    let joints = m.joints.len().max(1);
    for (&t, row) in times.iter().zip(out.chunks_exact_mut(joints)) {
        let pose = sampler.pose_at(t);
        for (o, deg) in row.iter_mut().zip(pose.joints_deg) {
            *o = deg.to_radians();
        }
    }
}

/// Body roll, pitch, yaw at each time, radians.
pub fn body_attitude(m: &Mtn, times: &[f64], out: &mut [f64]) {
    let sampler = MtnSampler::new(m);
    for (&t, row) in times.iter().zip(out.chunks_exact_mut(3)) {
        let pose = sampler.pose_at(t);
        for (o, deg) in row.iter_mut().zip(pose.body_deg) {
            *o = deg.to_radians();
        }
    }
}

/// The names of the rig's points, in the order `rig_points` gives them.
pub fn point_names(m: &Mtn) -> Vec<&'static str> {
    let (_, pose) = MtnRig::new(m).pose(0.0);
    pose.body.iter().map(|(name, _)| *name).collect()
}

/// Whether `rig_points`' `frame` is the world's (`"world"`) rather than
/// the body's (`"body"`); any other is a `ValueError`.
pub fn world_frame(frame: &str) -> PyResult<bool> {
    match frame {
        "body" => Ok(false),
        "world" => Ok(true),
        other => Err(PyValueError::new_err(format!(
            "frame {other:?}: expected \"body\" or \"world\""
        ))),
    }
}

/// The rig's points at each time in metres, body or world frame.
pub fn rig_points(m: &Mtn, times: &[f64], world: bool, out: &mut [f64]) {
    let rig = MtnRig::new(m);
    let per_time = 3 * point_names(m).len();
    if per_time == 0 {
        return;
    }
    for (&t, row) in times.iter().zip(out.chunks_exact_mut(per_time)) {
        let (_, pose) = rig.pose(t);
        let points = if world { &pose.world } else { &pose.body };
        for (o, (_, p)) in row.chunks_exact_mut(3).zip(points) {
            for (x, mm) in o.iter_mut().zip(p) {
                *x = mm / 1000.0;
            }
        }
    }
}

/// The keyframes as a dict of arrays.
pub fn keyframes<'py>(py: Python<'py>, m: &Mtn) -> PyResult<Bound<'py, PyDict>> {
    let joints = m.joints.len();
    let angles: Vec<Vec<f64>> = m
        .keyframes
        .iter()
        .map(|k| {
            (0..joints)
                .map(|j| f64::from(k.joints.get(j).copied().unwrap_or(0)) * URAD)
                .collect()
        })
        .collect();
    let body: Vec<Vec<f64>> = m
        .keyframes
        .iter()
        .map(|k| {
            [k.roll, k.pitch, k.yaw]
                .map(|v| f64::from(v) * URAD)
                .to_vec()
        })
        .collect();
    let dict = PyDict::new(py);
    dict.set_item("time", PyArray1::from_vec(py, m.keyframe_times_s()))?;
    dict.set_item("frame", PyArray1::from_vec(py, m.keyframe_frames()))?;
    let table = |rows: &[Vec<f64>], width: usize| -> PyResult<Bound<'py, PyArray2<f64>>> {
        if rows.is_empty() {
            return Ok(PyArray2::zeros(py, [0, width], false));
        }
        PyArray2::from_vec2(py, rows).map_err(|e| PyValueError::new_err(e.to_string()))
    };
    dict.set_item("joint_angles", table(&angles, joints)?)?;
    dict.set_item("body_attitude", table(&body, 3)?)?;
    Ok(dict)
}

/// A pose as x, y, z, qx, qy, qz, qw.
fn put_pose(out: &mut [f32], p: &Pose) {
    out[..3].copy_from_slice(&p.position);
    out[3..7].copy_from_slice(&p.rotation);
}

/// The camera pose at each time.
pub fn camera(curves: &PoseCurves, times: &[f64], out: &mut [f32]) {
    for (&t, row) in times.iter().zip(out.chunks_exact_mut(7)) {
        put_pose(row, &pose_at(curves, t));
    }
}

/// Both hands' 27 joint poses at each time; a joint the file lacks is at
/// the origin with no rotation, as the viewer draws it.
pub fn hand_joints(hands: &Hands, times: &[f64], out: &mut [f32]) {
    let per_hand = JOINT_COUNT * 7;
    for (&t, row) in times.iter().zip(out.chunks_exact_mut(2 * per_hand)) {
        for (side, curves) in row
            .chunks_exact_mut(per_hand)
            .zip([&hands.left, &hands.right])
        {
            for (j, o) in side.chunks_exact_mut(7).enumerate() {
                let pose = curves.get(j).map(|c| pose_at(c, t)).unwrap_or_default();
                put_pose(o, &pose);
            }
        }
    }
}

/// Tracked (or, with `pinch`, pinching) flags of the left and right hands.
pub fn hand_flags(hands: &Hands, times: &[f64], pinch: bool, out: &mut [bool]) {
    let (left, right) = if pinch {
        (&hands.pinch_left, &hands.pinch_right)
    } else {
        (&hands.tracked_left, &hands.tracked_right)
    };
    for (&t, row) in times.iter().zip(out.chunks_exact_mut(2)) {
        row[0] = evaluate_bool(left, t);
        row[1] = evaluate_bool(right, t);
    }
}

/// The gaze ray at each time: origin, then direction.
pub fn gaze(curves: &RayCurves, times: &[f64], out: &mut [f32]) {
    for (&t, row) in times.iter().zip(out.chunks_exact_mut(6)) {
        let ray = ray_at(curves, t);
        row[..3].copy_from_slice(&ray.origin);
        row[3..].copy_from_slice(&ray.direction);
    }
}

/// The cost estimate of [`positions`] at one time, nanoseconds: a
/// multiply-add per vertex, axis and basis vector (the deformer's, about
/// half a nanosecond each on its threads), and a nanosecond per vertex for
/// its rest position.
pub fn positions_row_ns(scene: &ObjScene, motion: &MemgMotion) -> u64 {
    let macs: u64 = motion
        .groups
        .iter()
        .map(|g| 3 * g.vertex_count() as u64 * (g.basis_len as u64 + 1))
        .sum();
    macs / 2 + scene.positions.len() as u64
}

/// Every `.obj` vertex at each time (in seconds, on the one clock), every
/// frame at once (`Deformer::deform_many`: the same values as one frame at
/// a time, each chunk of the basis read once for all the times).
pub fn positions(
    scene: &ObjScene,
    motion: &MemgMotion,
    binding: &Binding,
    times: &[f64],
    out: &mut [f32],
) {
    let (points, _) = out.as_chunks_mut::<3>();
    // Seconds to timesteps as every path counts them (between two timesteps
    // the deformer blends by the one MEMG rule).
    let steps: Vec<f64> = times.iter().map(|&t| steps_at(motion, t)).collect();
    Deformer::new().deform_many(scene, motion, binding, &steps, points);
}
