//! A MEMG scene deformed at one timestep, written as a Wavefront `.obj` that
//! keeps the input's vertex numbering, groups and materials.

use crate::anim::memg::{self as deformer, Binding};
use crate::error::{Error, Result};
use crate::export::finite;
use crate::formats::memg::MemgMotion;
use crate::formats::obj::{self, ObjScene};
use crate::output::write_atomic;
use crate::state::{At, timestep};
use std::path::Path;

/// Deforms a MEMG scene at one timestep somewhere other than the CPU (the
/// GPU's compute shader, read back), or says why it can't.
pub type Deform<'a> = &'a dyn Fn(&ObjScene, &MemgMotion, &Binding, usize) -> Result<Vec<[f32; 3]>>;

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
    let invalid = |reason: String| Error::mismatch(motion_file, reason);
    let t = timestep(m, at).map_err(invalid)?;
    let binding = Binding::new(s, m).map_err(invalid)?;
    let mut positions = None;
    if let Some(deform) = elsewhere {
        match deform(s, m, &binding, t) {
            Ok(p) => positions = Some(p),
            Err(e) => warnings.push(format!("{e}; deforming on the CPU instead")),
        }
    }
    let positions = positions.unwrap_or_else(|| {
        let mut p = Vec::new();
        deformer::deform(s, m, &binding, t as f64, &mut p);
        p
    });
    // The same policy on either path: the GPU's positions are checked as
    // the CPU's are.
    let time_s = t as f64 / f64::from(m.fps.max(1));
    check_positions(&positions, motion_file, time_s)?;
    write_atomic(out, |w| obj::write_obj(s, &positions, w))
}

/// Refuses the first position that is not finite, naming its `.obj` vertex
/// (1-based, as the file counts), its axis and the time.
pub fn check_positions(positions: &[[f32; 3]], file: &Path, time_s: f64) -> Result<()> {
    for (v, p) in positions.iter().enumerate() {
        for (axis, &x) in ["x", "y", "z"].iter().zip(p) {
            finite::check_f32(x, file, time_s, || format!(".obj vertex {} {axis}", v + 1))?;
        }
    }
    Ok(())
}
