//! A MEMG scene deformed at one timestep, written as a Wavefront `.obj` that
//! keeps the input's vertex numbering, groups and materials.

use crate::anim::memg::{self as deformer, Binding};
use crate::error::{Error, Result};
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
    write_atomic(out, |w| obj::write_obj(s, &positions, w))
}
