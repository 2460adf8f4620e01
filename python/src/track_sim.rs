//! `Track.simulate`: the motion played on the library's simulated dog, on a
//! thread that Ctrl-C stops (`interrupt.rs`), and the result as numpy
//! arrays.

use crate::errors::OrRaise as _;
use crate::sample;
use motion_viewer::formats::mtn::Mtn;
use motion_viewer::physics::{self, DEFAULT_MAX_DURATION_S, Watch};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// Simulates `m` (named `name`), refusing a motion longer than
/// `max_duration` seconds (default [`DEFAULT_MAX_DURATION_S`]) before any
/// step; the verdict and the frames as `Track.simulate` documents them.
pub fn simulate<'py>(
    py: Python<'py>,
    m: &Mtn,
    name: &str,
    max_duration: Option<f64>,
) -> PyResult<Bound<'py, PyDict>> {
    let max = max_duration.unwrap_or(DEFAULT_MAX_DURATION_S);
    // Refused here, in one line, before a thread is started.
    physics::check_length(m, name, max).or_raise(py)?;
    let run = crate::interrupt::run(py, |cancel| {
        let watch = Watch {
            progress: None,
            cancel: Some(cancel),
        };
        physics::simulate_with(m, name, max, watch)
    })?;
    let Some(sim) = run.or_raise(py)? else {
        // Only a signal sets the flag, and `run` raised its exception.
        unreachable!("a simulation cancelled without a signal raised");
    };
    let verdict =
        serde_json::to_string(&sim.verdict).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let n = sim.frames.len();
    let servos = sim.servos.len();
    let out = PyDict::new(py);
    out.set_item(
        "verdict",
        py.import("json")?.call_method1("loads", (verdict,))?,
    )?;
    let frames = &sim.frames;
    let column = |f: fn(&physics::SimFrame) -> f64| {
        sample::fill(py, [n], |o| {
            for (x, frame) in o.iter_mut().zip(frames) {
                *x = f(frame);
            }
        })
    };
    out.set_item("time", column(|f| f.t)?)?;
    out.set_item(
        "body_position",
        sample::fill(py, [n, 3], |o| {
            for (row, f) in o.chunks_mut(3).zip(frames) {
                row.copy_from_slice(&f.position);
            }
        })?,
    )?;
    out.set_item(
        "body_attitude",
        sample::fill(py, [n, 4], |o| {
            for (row, f) in o.chunks_mut(4).zip(frames) {
                row.copy_from_slice(&f.attitude);
            }
        })?,
    )?;
    out.set_item("tilt_deg", column(|f| f.tilt_deg)?)?;
    for (key, reached) in [("reached", true), ("commanded", false)] {
        out.set_item(
            key,
            sample::fill(py, [n, servos], |o| {
                for (row, f) in o.chunks_mut(servos.max(1)).zip(frames) {
                    let deg = if reached {
                        &f.reached_deg
                    } else {
                        &f.commanded_deg
                    };
                    for (x, d) in row.iter_mut().zip(deg) {
                        *x = d.to_radians();
                    }
                }
            })?,
        )?;
    }
    let names: Vec<&str> = sim.servos.iter().map(|s| s.name).collect();
    out.set_item("servos", names)?;
    Ok(out)
}
