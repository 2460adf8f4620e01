//! A MEMG scene deformed at one time (a timestep, or between two by the one
//! MEMG rule), written as a Wavefront `.obj` that keeps the input's vertex
//! numbering, groups and materials.

use crate::anim::memg::{self as deformer, Binding};
use crate::error::{Error, Result};
use crate::export::finite;
use crate::formats::memg::MemgMotion;
use crate::formats::obj::{self, ObjScene};
use crate::output::write_atomic;
use crate::pose::{At, place};
use std::path::Path;

/// Deforms a MEMG scene at a time in timesteps somewhere other than the CPU
/// (the GPU's compute shader, read back), or says why it can't.
pub type Deform<'a> = &'a dyn Fn(&ObjScene, &MemgMotion, &Binding, f64) -> Result<Vec<[f32; 3]>>;

/// The scene `s` deformed by `m` at `at` (a frame is a timestep), by
/// `elsewhere` when given (the CPU stands in when it fails, with a warning
/// pushed to `warnings`), then written to `out`. `motion_file` names the
/// motion in errors.
pub fn write(
    s: &ObjScene,
    m: &MemgMotion,
    motion_file: &Path,
    at: At,
    out: &Path,
    elsewhere: Option<Deform<'_>>,
    warnings: &mut Vec<String>,
) -> Result<()> {
    let t = place(m, at, motion_file)?.steps();
    let binding = Binding::new(s, m).map_err(|e| Error::mismatch(motion_file, e))?;
    let mut positions = None;
    if let Some(deform) = elsewhere {
        match deform(s, m, &binding, t) {
            Ok(p) => positions = Some(p),
            Err(e) => warnings.push(format!("{e}; deforming on the CPU instead")),
        }
    }
    let positions = positions.unwrap_or_else(|| {
        let mut p = Vec::new();
        deformer::deform(s, m, &binding, t, &mut p);
        p
    });
    // The same policy on either path: the GPU's positions are checked as
    // the CPU's are.
    check_positions(&positions, s, m, &binding, t, motion_file)?;
    write_atomic(out, |w| obj::write_obj(s, &positions, w))
}

/// Refuses the first of `positions` (the scene deformed at `t` timesteps)
/// that is not finite, naming its `.obj` vertex (1-based, as the file
/// counts), its axis and the time, with the value the motion asks for (the
/// f64 reference: a finite double past f32's range says so).
pub fn check_positions(
    positions: &[[f32; 3]],
    s: &ObjScene,
    m: &MemgMotion,
    binding: &Binding,
    t: f64,
    file: &Path,
) -> Result<()> {
    let Some(v) = positions
        .iter()
        .position(|p| p.iter().any(|x| !x.is_finite()))
    else {
        return Ok(());
    };
    let time_s = crate::anim::clock::seconds_at_rate(t, f64::from(m.fps.max(1)));
    let exact = deformer::deform_reference_f64(s, m, binding, t);
    for (axis, (&x, &wide)) in ["x", "y", "z"]
        .iter()
        .zip(positions[v].iter().zip(&exact[v]))
    {
        let field = || format!(".obj vertex {} {axis}", v + 1);
        if wide.is_finite() {
            finite::to_f32(wide, file, time_s, field)?;
        }
        finite::check_f32(x, file, time_s, field)?;
    }
    Ok(())
}
