//! The one body of `Track`'s samplers (`joint_angles`, `positions`…). Each
//! sampler method names its kind of sample as a [`Plan`] (the track kind it
//! needs, the shape of one sample, how to fill samples); [`Track::sample`]
//! does the rest the same way for all: the times (given, or the track's
//! frames on the library's one clock), the output cap, then the array filled
//! with the GIL released, a slice at a time, Ctrl-C heard between slices.

use super::Track;
use crate::errors::guarded;
use crate::sample::{self, Times};
use motion_viewer::Track as Inner;
use numpy::ndarray::{Dimension, Ix2, Ix3, Ix4};
use numpy::{Element, PyArray};
use pyo3::exceptions::{PyMemoryError, PyTypeError, PyValueError};
use pyo3::prelude::*;

/// Fills one sample per time into `out` (the rows of those times):
/// `fill(whole, times, out)`, `whole` the track with every array decoded
/// ([`Track::whole`]; only a MEMG track's `positions` needs it).
pub type Fill<'a, T> = dyn Fn(&Inner, &[f64], &mut [T]) + Sync + 'a;

/// One kind of sample: what a sampler has of its own.
pub struct Plan<'a, T, S> {
    /// The axes of one sample, after the time axis (`[joints]`, `[points, 3]`…).
    pub shape: S,
    /// The estimated cost of one sample, nanoseconds of one core (the
    /// slices between two looks for Ctrl-C are cut from it).
    pub ns: u64,
    /// Fills the samples.
    pub fill: Box<Fill<'a, T>>,
}

impl<'a, T, S: Shape> Plan<'a, T, S> {
    /// A plan whose sample costs what [`sample::row_ns`] estimates for its
    /// count of numbers.
    pub fn new(shape: S, fill: impl Fn(&Inner, &[f64], &mut [T]) + Sync + 'a) -> Self {
        Plan::costing(shape, sample::row_ns(shape.width()), fill)
    }

    /// A plan whose sample costs `ns` nanoseconds.
    pub fn costing(shape: S, ns: u64, fill: impl Fn(&Inner, &[f64], &mut [T]) + Sync + 'a) -> Self {
        Plan {
            shape,
            ns,
            fill: Box::new(fill),
        }
    }
}

/// The shape of one sample, `[a]`, `[a, b]` or `[a, b, c]`: a sampler's
/// output is `n` of them, one per time.
pub trait Shape: Copy {
    /// The output's dimension (one axis more than a sample's).
    type Dim: Dimension;
    /// The output's shape for `n` times.
    fn for_times(self, n: usize) -> Self::Dim;
    /// The count of numbers in one sample.
    fn width(self) -> usize;
}

impl Shape for [usize; 1] {
    type Dim = Ix2;
    fn for_times(self, n: usize) -> Ix2 {
        Ix2(n, self[0])
    }
    fn width(self) -> usize {
        self[0]
    }
}

impl Shape for [usize; 2] {
    type Dim = Ix3;
    fn for_times(self, n: usize) -> Ix3 {
        Ix3(n, self[0], self[1])
    }
    fn width(self) -> usize {
        self[0] * self[1]
    }
}

impl Shape for [usize; 3] {
    type Dim = Ix4;
    fn for_times(self, n: usize) -> Ix4 {
        Ix4(n, self[0], self[1], self[2])
    }
    fn width(self) -> usize {
        self[0] * self[1] * self[2]
    }
}

impl Track {
    /// Every sampler's body. `plan(what)` checks the track is of the kind
    /// `what` needs and says what one sample is (its errors come first);
    /// then the times are taken (see [`Track::times`]), a call past the
    /// output cap refused before anything is allocated, and the array of
    /// one sample per time filled.
    pub(crate) fn sample<'py, 'a, T, S>(
        &'a self,
        py: Python<'py>,
        times: Option<Bound<'py, PyAny>>,
        rate: Option<f64>,
        what: &str,
        plan: impl FnOnce(&str) -> PyResult<Plan<'a, T, S>>,
    ) -> PyResult<Bound<'py, PyArray<T, S::Dim>>>
    where
        T: Element + Send,
        S: Shape,
    {
        guarded(py, || {
            let plan = plan(what)?;
            let bytes = (std::mem::size_of::<T>() as u64).saturating_mul(plan.shape.width() as u64);
            let times = self.times(py, times, rate, what, bytes)?;
            let whole = self.whole(py)?;
            let shape = plan.shape.for_times(times.len());
            sample::fill_rows(py, shape, plan.ns, |rows, out| {
                (plan.fill)(whole, &times[rows], out)
            })
        })
    }

    /// The times a sampler `what` evaluates, each giving `per_sample` bytes
    /// of its output: `times` as given, or every frame period (or every
    /// 1/`rate` s) from 0 to the duration. A call past
    /// [`sample::MAX_OUTPUT_BYTES`] is refused with a `TooLargeError`
    /// before anything is allocated.
    pub(crate) fn times(
        &self,
        py: Python<'_>,
        times: Option<Bound<'_, PyAny>>,
        rate: Option<f64>,
        what: &str,
        per_sample: u64,
    ) -> PyResult<Vec<f64>> {
        match (times, rate) {
            (Some(_), Some(_)) => Err(PyValueError::new_err("give times or rate, not both")),
            (Some(t), None) => {
                let t: Times<'_> = t.extract().map_err(|e: PyErr| {
                    if e.is_instance_of::<PyMemoryError>(py) {
                        return e;
                    }
                    PyTypeError::new_err(format!(
                        "times: expected a 1-D array or sequence of seconds ([t] for one time): {e}"
                    ))
                })?;
                let view = t.as_array();
                sample::check_size(py, what, view.len(), per_sample)?;
                let mut out = Vec::new();
                out.try_reserve_exact(view.len()).map_err(|_| {
                    PyMemoryError::new_err(format!("{} times do not fit in memory", view.len()))
                })?;
                out.extend(view.iter().copied());
                Ok(out)
            }
            (None, rate) => {
                // The track's frames on the library's one clock: every
                // output samples these times.
                let grid = sample::grid(py, &self.inner, rate)?;
                sample::check_size(py, what, grid.times().len(), per_sample)?;
                sample::times(&grid)
            }
        }
    }
}
