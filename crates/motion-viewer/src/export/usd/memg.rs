//! A MEMG scene as one `Mesh` per `.obj` group under an `Xform` named after
//! the motion: triangles once, `points` and `extent` per time code.

use std::fmt::Write as _;
use std::path::Path;

use super::{MAX_VALUES, Stage, float3};
use crate::anim::memg::{Deformer, steps_at};
use crate::error::{Error, Result};
use crate::scene::Track;
use crate::scene::plan::bind;

/// Writes the MEMG `track` into `stage`; returns the prims written.
pub(super) fn write(
    stage: &mut Stage,
    track: &Track,
    out: &Path,
    warnings: &mut Vec<String>,
) -> Result<usize> {
    let Track::Memg { scene, motion, .. } = track else {
        return Ok(0);
    };
    let binding = bind(track, scene, motion)?;
    let file = crate::text::Escaped::path(track.path());
    warnings.extend(binding.warnings.iter().map(|w| format!("{file}: {w}")));
    let clock = stage.clock;
    let values = clock.count.saturating_mul(3 * scene.positions.len() as u64);
    if values > MAX_VALUES {
        return Err(Error::unsupported(
            out,
            format!(
                "{} time samples × {} vertices is past the {MAX_VALUES} values a .usda export writes; \
                 lower --fps",
                clock.count,
                scene.positions.len()
            ),
        ));
    }
    // Each group's points: the `.obj` vertices its triangles use, in order
    // of first use, and its triangles renumbered onto them.
    let groups: Vec<(String, Vec<u32>, Vec<u32>)> = scene
        .groups
        .iter()
        .map(|g| {
            let mut local = std::collections::HashMap::new();
            let mut vertices = Vec::new();
            let mut indices = Vec::new();
            for tri in &scene.triangles[g.triangles.clone()] {
                for &v in tri {
                    let i = *local.entry(v).or_insert_with(|| {
                        vertices.push(v);
                        vertices.len() as u32 - 1
                    });
                    indices.push(i);
                }
            }
            (g.name.clone(), vertices, indices)
        })
        .filter(|(_, v, _)| !v.is_empty())
        .collect();
    let mut points: Vec<String> = vec![String::new(); groups.len()];
    let mut extents: Vec<String> = vec![String::new(); groups.len()];
    let mut deformer = Deformer::new();
    let mut positions = Vec::with_capacity(scene.positions.len());
    for i in 0..clock.count {
        let time_s = clock.time(i);
        deformer.deform(
            scene,
            motion,
            &binding,
            steps_at(motion, time_s),
            &mut positions,
        );
        for (g, (name, vertices, _)) in groups.iter().enumerate() {
            let mut lo = [f32::INFINITY; 3];
            let mut hi = [f32::NEG_INFINITY; 3];
            let text = &mut points[g];
            let _ = write!(text, "            {i}: [");
            for (k, &v) in vertices.iter().enumerate() {
                let p = positions[v as usize];
                if k > 0 {
                    text.push_str(", ");
                }
                text.push_str(&float3(p, track.path(), time_s, || {
                    format!("group '{name}' .obj vertex {}", v + 1)
                })?);
                for a in 0..3 {
                    lo[a] = lo[a].min(p[a]);
                    hi[a] = hi[a].max(p[a]);
                }
            }
            text.push_str("],\n");
            let _ = writeln!(
                extents[g],
                "            {i}: [({}, {}, {}), ({}, {}, {})],",
                lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]
            );
        }
    }
    let xform = stage.unique_name(&format!(
        "memg_{}",
        track
            .path()
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
    ));
    let mut x = String::new();
    let _ = writeln!(x, "    def Xform \"{xform}\"\n    {{");
    let mut used: Vec<String> = Vec::new();
    for (g, (name, vertices, indices)) in groups.iter().enumerate() {
        let mut prim = super::identifier(name);
        let base = prim.clone();
        let mut n = 1;
        while used.contains(&prim) {
            n += 1;
            prim = format!("{base}_{n}");
        }
        used.push(prim.clone());
        let _ = writeln!(x, "        def Mesh \"{prim}\"\n        {{");
        let counts = vec!["3"; indices.len() / 3].join(", ");
        let _ = writeln!(x, "            int[] faceVertexCounts = [{counts}]");
        let idx: Vec<String> = indices.iter().map(u32::to_string).collect();
        let _ = writeln!(
            x,
            "            int[] faceVertexIndices = [{}]",
            idx.join(", ")
        );
        let _ = writeln!(x, "            uniform token orientation = \"rightHanded\"");
        let _ = writeln!(x, "            uniform token subdivisionScheme = \"none\"");
        let obj: Vec<String> = vertices.iter().map(|v| (v + 1).to_string()).collect();
        let _ = writeln!(
            x,
            "            int[] primvars:objVertex = [{}] (\n                interpolation = \"vertex\"\n            )",
            obj.join(", ")
        );
        let _ = writeln!(x, "            point3f[] points.timeSamples = {{");
        x.push_str(&points[g]);
        let _ = writeln!(x, "            }}");
        let _ = writeln!(x, "            float3[] extent.timeSamples = {{");
        x.push_str(&extents[g]);
        let _ = writeln!(x, "            }}");
        let _ = writeln!(x, "        }}");
    }
    let _ = writeln!(x, "    }}");
    stage.push(&x);
    Ok(1 + groups.len())
}
