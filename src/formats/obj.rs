//! Wavefront `.obj` scenes, triangulated, keeping the file's global vertex numbering.
//!
//! MEMG mappings index the file's global `v` list. Loaders that build one mesh
//! per object renumber vertices in first-use order and drop unreferenced
//! ones, which breaks those indices; so the geometry is read here line by
//! line, and [`super::mtl`] reads the material libraries.

use crate::error::DecodeError;
use std::collections::HashMap;
use std::io::Write;

/// A triangulated `.obj` scene.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ObjScene {
    /// Every `v` line of the file, in file order (0-based here; the file is 1-based).
    pub positions: Vec<[f32; 3]>,
    /// Triangles as 0-based indices into `positions`, ordered by group.
    pub triangles: Vec<[u32; 3]>,
    /// Groups; each owns a contiguous range of `triangles`.
    pub groups: Vec<ObjGroup>,
    /// Materials from the `mtllib`, if it could be read.
    pub materials: Vec<ObjMaterial>,
}

/// A named group of faces (`g name`; faces before any `g` are in `default`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ObjGroup {
    /// The group's name.
    pub name: String,
    /// Its triangles: `scene.triangles[range]`.
    pub triangles: std::ops::Range<usize>,
    /// Index into `materials`, if the group uses one.
    pub material: Option<usize>,
}

/// A material's name and diffuse colour.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ObjMaterial {
    /// `newmtl` name.
    pub name: String,
    /// `Kd` colour.
    pub diffuse: [f32; 3],
}

impl ObjScene {
    /// The index of the group called `name`.
    pub fn group_index(&self, name: &str) -> Option<usize> {
        self.groups.iter().position(|g| g.name == name)
    }
}

/// The group that faces before any `g` line belong to.
pub const DEFAULT_GROUP: &str = "default";

/// A group being collected: its triangles and the first material it used.
struct PendingGroup {
    name: String,
    triangles: Vec<[u32; 3]>,
    material: Option<String>,
}

/// Reads the bytes of the material library an `.obj`'s `mtllib` names, or
/// says why it can't. The caller decides where libraries may come from (the
/// `.obj`'s folder on disk, the files dropped into a web page…).
pub type MaterialReader<'a> = &'a dyn Fn(&str) -> Result<Vec<u8>, String>;

/// Parses `.obj` text. Materials are read from `mtllib` libraries through
/// `materials` when given; a library that cannot be read adds a line to
/// `warnings`, and its groups draw in the default colour.
///
/// Faces are fan-triangulated. A `g` name seen again continues its group, so
/// each group's triangles end up contiguous, groups in first-seen order.
pub fn parse(
    text: &str,
    materials: Option<MaterialReader<'_>>,
    warnings: &mut Vec<String>,
) -> Result<ObjScene, DecodeError> {
    let mut positions: Vec<[f32; 3]> = Vec::new();
    let mut groups: Vec<PendingGroup> = Vec::new();
    let mut by_name: HashMap<String, usize> = HashMap::new();
    let mut current: Option<usize> = None;
    let mut current_material: Option<String> = None;
    let mut mtllibs: Vec<String> = Vec::new();
    // Face indices may only be checked once every `v` is known; keep where each was.
    let mut face_refs: Vec<(i64, usize)> = Vec::new();
    let mut faces: Vec<(usize, Vec<usize>)> = Vec::new();

    let mut offset = 0usize;
    for raw in text.split_inclusive('\n') {
        let line_at = offset;
        offset += raw.len();
        let line = raw.split('#').next().unwrap_or("").trim();
        let mut words = line.split_whitespace();
        let Some(keyword) = words.next() else {
            continue;
        };
        match keyword {
            "v" => {
                let mut p = [0f32; 3];
                for (axis, x) in p.iter_mut().enumerate() {
                    let w = words.next().unwrap_or("");
                    *x = w.parse().map_err(|_| {
                        DecodeError::new(
                            format!("vertex {} coordinate {axis}", positions.len() + 1),
                            line_at as u64,
                            "a number",
                            format!("{w:?}"),
                        )
                    })?;
                }
                positions.push(p);
            }
            "g" => {
                let name = words.collect::<Vec<_>>().join(" ");
                let name = if name.is_empty() {
                    DEFAULT_GROUP.to_string()
                } else {
                    name
                };
                current = Some(group_slot(&mut groups, &mut by_name, name));
            }
            "usemtl" => current_material = Some(words.collect::<Vec<_>>().join(" ")),
            "mtllib" => mtllibs.extend(words.map(str::to_string)),
            "f" => {
                let g = match current {
                    Some(g) => g,
                    None => {
                        let g = group_slot(&mut groups, &mut by_name, DEFAULT_GROUP.into());
                        current = Some(g);
                        g
                    }
                };
                if groups[g].material.is_none() {
                    groups[g].material.clone_from(&current_material);
                }
                let first = face_refs.len();
                for w in words {
                    let index_text = w.split('/').next().unwrap_or("");
                    let index: i64 = index_text.parse().map_err(|_| {
                        DecodeError::new(
                            "face vertex index",
                            line_at as u64,
                            "an integer vertex index",
                            format!("{w:?}"),
                        )
                    })?;
                    // A negative index counts back from the latest `v`.
                    let resolved = if index < 0 {
                        positions.len() as i64 + index + 1
                    } else {
                        index
                    };
                    face_refs.push((resolved, line_at));
                }
                let corners = face_refs.len() - first;
                if corners < 3 {
                    return Err(DecodeError::new(
                        "face",
                        line_at as u64,
                        "3 or more vertices",
                        format!("{corners}"),
                    ));
                }
                faces.push((g, (first..face_refs.len()).collect()));
            }
            _ => {}
        }
    }

    let count = positions.len();
    let resolve = |k: usize| -> Result<u32, DecodeError> {
        let (index, at) = face_refs[k];
        if index < 1 || index as u64 > count as u64 {
            return Err(DecodeError::new(
                "face vertex index",
                at as u64,
                format!("a vertex index in 1..={count}"),
                index.to_string(),
            ));
        }
        Ok((index - 1) as u32)
    };
    for (g, corners) in &faces {
        let a = resolve(corners[0])?;
        for pair in corners[1..].windows(2) {
            let tri = [a, resolve(pair[0])?, resolve(pair[1])?];
            groups[*g].triangles.push(tri);
        }
    }

    let reads_materials = materials.is_some();
    let (materials, material_index) = read_materials(&mtllibs, materials, warnings);
    let mut triangles = Vec::new();
    let mut out_groups = Vec::with_capacity(groups.len());
    for g in groups {
        let start = triangles.len();
        triangles.extend_from_slice(&g.triangles);
        let material = g.material.and_then(|m| {
            let found = material_index.get(&m).copied();
            if found.is_none() && reads_materials {
                warnings.push(format!("group '{}' uses unknown material '{m}'", g.name));
            }
            found
        });
        out_groups.push(ObjGroup {
            name: g.name,
            triangles: start..triangles.len(),
            material,
        });
    }
    Ok(ObjScene {
        positions,
        triangles,
        groups: out_groups,
        materials,
    })
}

/// The slot of group `name`, created on first sight.
fn group_slot(
    groups: &mut Vec<PendingGroup>,
    by_name: &mut HashMap<String, usize>,
    name: String,
) -> usize {
    *by_name.entry(name.clone()).or_insert_with(|| {
        groups.push(PendingGroup {
            name,
            triangles: Vec::new(),
            material: None,
        });
        groups.len() - 1
    })
}

/// The most distinct `mtllib` libraries one `.obj` reads.
pub const MAX_MATERIAL_LIBRARIES: usize = 16;

/// Reads every material library named (each once, at most
/// [`MAX_MATERIAL_LIBRARIES`]); a missing or bad one is a warning.
fn read_materials(
    libs: &[String],
    reader: Option<MaterialReader<'_>>,
    warnings: &mut Vec<String>,
) -> (Vec<ObjMaterial>, HashMap<String, usize>) {
    let mut materials = Vec::new();
    let mut index = HashMap::new();
    let Some(reader) = reader else {
        return (materials, index);
    };
    // A library named twice is read once, and only so many are read: an
    // `.obj` line naming one library a thousand times asks for nothing more.
    let mut seen = std::collections::HashSet::new();
    let distinct: Vec<&String> = libs.iter().filter(|l| seen.insert(*l)).collect();
    if distinct.len() > MAX_MATERIAL_LIBRARIES {
        warnings.push(format!(
            "{} material libraries named; only the first {MAX_MATERIAL_LIBRARIES} are read",
            distinct.len()
        ));
    }
    for lib in distinct.into_iter().take(MAX_MATERIAL_LIBRARIES) {
        match reader(lib).and_then(|bytes| super::mtl::parse(&bytes)) {
            Ok(mats) => {
                for m in mats {
                    index.insert(m.name.clone(), materials.len());
                    materials.push(m);
                }
            }
            Err(e) => warnings.push(format!(
                "material library {lib}: {e}; using default colours"
            )),
        }
    }
    (materials, index)
}

/// Decodes `.obj` bytes (UTF-8 text), naming the byte that is not.
pub fn decode(
    bytes: &[u8],
    materials: Option<MaterialReader<'_>>,
    warnings: &mut Vec<String>,
) -> Result<ObjScene, DecodeError> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        DecodeError::new(
            "text",
            e.valid_up_to() as u64,
            "UTF-8 text",
            "a byte that is not UTF-8",
        )
    })?;
    parse(text, materials, warnings)
}

/// Writes `scene` with `positions` in place of its own: every vertex in the
/// input's global order (so indices keep their meaning), then each group's
/// triangles under its `g` line.
pub fn write_obj(
    scene: &ObjScene,
    positions: &[[f32; 3]],
    mut out: impl Write,
) -> std::io::Result<()> {
    // `{}` prints the shortest text that reads back to the same f32.
    for p in positions {
        writeln!(out, "v {} {} {}", p[0], p[1], p[2])?;
    }
    for g in &scene.groups {
        writeln!(out, "g {}", g.name)?;
        if let Some(m) = g.material.and_then(|m| scene.materials.get(m)) {
            writeln!(out, "usemtl {}", m.name)?;
        }
        for t in &scene.triangles[g.triangles.clone()] {
            writeln!(out, "f {} {} {}", t[0] + 1, t[1] + 1, t[2] + 1)?;
        }
    }
    out.flush()
}
