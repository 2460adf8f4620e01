//! Wavefront `.obj` scenes, triangulated, keeping the file's global vertex numbering.
//!
//! MEMG mappings index the file's global `v` list. Loaders that build one mesh
//! per object renumber vertices in first-use order and drop unreferenced
//! ones, which breaks those indices; so the geometry is read here line by
//! line, and [`super::mtl`] reads the material libraries
//! ([`ObjMaterial`]).

pub use super::mtl::ObjMaterial;
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
    /// Every `vt` line (u, v), in file order.
    pub texcoords: Vec<[f32; 2]>,
    /// For each triangle, its corners' 0-based indices into `texcoords`
    /// ([`NO_TEXCOORD`] for a corner written without one); empty when no
    /// face of the file gives texture coordinates.
    pub triangle_texcoords: Vec<[u32; 3]>,
    /// What was read less well than asked (a material library that could
    /// not be read, dangling texture coordinates…), one line per cause.
    pub warnings: Vec<String>,
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

impl ObjScene {
    /// Each group's index by its name (the first group of a name wins): a
    /// lookup per name that costs the same for a scene of 50 000 groups.
    pub(crate) fn group_indices(&self) -> std::collections::HashMap<&str, usize> {
        let mut by_name = std::collections::HashMap::with_capacity(self.groups.len());
        for (i, g) in self.groups.iter().enumerate() {
            by_name.entry(g.name.as_str()).or_insert(i);
        }
        by_name
    }
}

/// The group that faces before any `g` line belong to.
pub(crate) const DEFAULT_GROUP: &str = "default";

/// A triangle corner written without a texture coordinate, in
/// [`ObjScene::triangle_texcoords`].
pub const NO_TEXCOORD: u32 = u32::MAX;

/// A group being collected: its triangles and the first material it used.
struct PendingGroup {
    name: String,
    triangles: Vec<[u32; 3]>,
    /// Texture coordinate indices per triangle: empty until the file's first
    /// corner that names one, then as long as `triangles`.
    texcoords: Vec<[u32; 3]>,
    material: Option<String>,
}

/// Reads the bytes of the material library an `.obj`'s `mtllib` names, or
/// says why it can't. The caller decides where libraries may come from (the
/// `.obj`'s folder on disk, the files dropped into a web page…).
pub(crate) type MaterialReader<'a> = &'a dyn Fn(&str) -> std::io::Result<Vec<u8>>;

/// How `decode_with` reads an `.obj`.
#[derive(Clone, Copy, Default)]
pub struct ObjOptions<'a> {
    /// Reads the material libraries that `mtllib` lines name. `None`: no
    /// library is read and every group draws in the default colour.
    pub materials: Option<MaterialReader<'a>>,
}

impl std::fmt::Debug for ObjOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ObjOptions")
            .field("materials", &self.materials.map(|_| "…"))
            .finish()
    }
}

/// Parses `.obj` text, as the decoder does bytes.
///
/// Faces are fan-triangulated. A `g` name seen again continues its group, so
/// each group's triangles end up contiguous, groups in first-seen order.
pub fn parse(text: &str, options: &ObjOptions) -> Result<ObjScene, DecodeError> {
    let materials = options.materials;
    let mut warnings = Vec::new();
    let warnings = &mut warnings;
    let mut positions: Vec<[f32; 3]> = Vec::new();
    let mut groups: Vec<PendingGroup> = Vec::new();
    let mut by_name: HashMap<String, usize> = HashMap::new();
    let mut current: Option<usize> = None;
    let mut current_material: Option<String> = None;
    let mut mtllibs: Vec<String> = Vec::new();
    // Face indices may only be checked once every `v` is known. Corners are
    // triangulated as they are read (a scene of millions of faces is held
    // once, as triangles); the few that cannot be checked yet (forward
    // references) and the first index below 1 are kept, with their corner
    // number and line offset, for the check at the end.
    let mut corners: Vec<u32> = Vec::new();
    let mut corner_count = 0u64;
    let mut unchecked: Vec<(u64, i64, usize)> = Vec::new();
    let mut below_one: Option<(u64, i64, usize)> = None;
    // Texture coordinates likewise, but they only decorate: a corner naming one
    // the file lacks loses it, with a warning, where a missing vertex is an error.
    let mut texcoords: Vec<[f32; 2]> = Vec::new();
    let mut uv_corners: Vec<u32> = Vec::new();
    let mut uv_unchecked: Vec<(u64, i64, usize)> = Vec::new();
    let mut uv_below_one: Vec<(u64, i64, usize)> = Vec::new();
    let mut any_uv = false;

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
            "vt" => {
                let mut uv = [0f32; 2];
                // A third (w) coordinate, if any, is not used.
                for (axis, x) in uv.iter_mut().enumerate() {
                    let w = words.next().unwrap_or(if axis == 1 { "0" } else { "" });
                    *x = w.parse().map_err(|_| {
                        DecodeError::new(
                            format!(
                                "texture coordinate {} component {axis}",
                                texcoords.len() + 1
                            ),
                            line_at as u64,
                            "a number",
                            format!("{w:?}"),
                        )
                    })?;
                }
                texcoords.push(uv);
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
                corners.clear();
                uv_corners.clear();
                for w in words {
                    let mut parts = w.split('/');
                    let index_text = parts.next().unwrap_or("");
                    let uv = match parts.next().filter(|t| !t.is_empty()) {
                        None => NO_TEXCOORD,
                        Some(t) => {
                            let index: i64 = t.parse().map_err(|_| {
                                DecodeError::new(
                                    "face texture coordinate index",
                                    line_at as u64,
                                    "an integer texture coordinate index",
                                    format!("{w:?}"),
                                )
                            })?;
                            // A negative index counts back from the latest `vt`.
                            let resolved = if index < 0 {
                                texcoords.len() as i64 + index + 1
                            } else {
                                index
                            };
                            let corner = (corner_count, resolved, line_at);
                            if resolved < 1 {
                                uv_below_one.push(corner);
                                NO_TEXCOORD
                            } else {
                                if resolved as u64 > texcoords.len() as u64 {
                                    uv_unchecked.push(corner);
                                }
                                u32::try_from(resolved - 1).unwrap_or(NO_TEXCOORD)
                            }
                        }
                    };
                    uv_corners.push(uv);
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
                    let corner = (corner_count, resolved, line_at);
                    corner_count += 1;
                    if resolved < 1 {
                        below_one.get_or_insert(corner);
                    } else if resolved as u64 > positions.len() as u64 {
                        unchecked.push(corner);
                    }
                    // An index that does not fit is bad whatever follows; the check
                    // at the end finds it among `unchecked`.
                    corners.push(u32::try_from(resolved - 1).unwrap_or(u32::MAX));
                }
                if corners.len() < 3 {
                    return Err(DecodeError::new(
                        "face",
                        line_at as u64,
                        "3 or more vertices",
                        format!("{}", corners.len()),
                    ));
                }
                let a = corners[0];
                groups[g]
                    .triangles
                    .extend(corners[1..].windows(2).map(|pair| [a, pair[0], pair[1]]));
                if !any_uv && uv_corners.iter().any(|&uv| uv != NO_TEXCOORD) {
                    // The file's first texture coordinate: every triangle
                    // before this face's has none.
                    any_uv = true;
                    let this_face = corners.len() - 2;
                    for (k, group) in groups.iter_mut().enumerate() {
                        let before = group.triangles.len() - if k == g { this_face } else { 0 };
                        group.texcoords.resize(before, [NO_TEXCOORD; 3]);
                    }
                }
                if any_uv {
                    let a = uv_corners[0];
                    groups[g]
                        .texcoords
                        .extend(uv_corners[1..].windows(2).map(|pair| [a, pair[0], pair[1]]));
                }
            }
            _ => {}
        }
    }

    // The first bad corner in file order, as if every face were checked now.
    let count = positions.len();
    let beyond = unchecked
        .into_iter()
        .find(|&(_, index, _)| index as u64 > count as u64);
    if let Some((_, index, at)) = below_one.into_iter().chain(beyond).min() {
        return Err(DecodeError::new(
            "face vertex index",
            at as u64,
            format!("a vertex index in 1..={count}"),
            index.to_string(),
        ));
    }

    let uv_count = texcoords.len();
    let uv_beyond: Vec<_> = uv_unchecked
        .into_iter()
        .filter(|&(_, index, _)| index as u64 > uv_count as u64)
        .collect();
    if let Some((_, index, at)) = uv_below_one.iter().chain(&uv_beyond).min().copied() {
        warnings.push(format!(
            "{} face corners name texture coordinates the file does not have \
             (the first, {index} at byte {at}, is outside 1..={uv_count}); they have none",
            uv_below_one.len() + uv_beyond.len()
        ));
    }
    let has_texcoords = groups
        .iter()
        .flat_map(|g| g.texcoords.iter().flatten())
        .any(|&uv| (uv as usize) < uv_count);

    let before = warnings.len();
    let (materials, material_index) = read_materials(&mtllibs, materials, warnings);
    // A library that could not be read is the one warning: its groups'
    // materials are unknown because of it, not each for a cause of its own.
    let reads_materials = options.materials.is_some() && warnings.len() == before;
    let mut triangles = Vec::new();
    let mut triangle_texcoords = Vec::new();
    let mut out_groups = Vec::with_capacity(groups.len());
    // One warning for every group naming a material no library defines.
    let mut unknown: Vec<(String, String)> = Vec::new();
    for g in groups {
        let start = triangles.len();
        if triangles.is_empty() {
            // The first group's list becomes the scene's: no copy of the largest part.
            triangles = g.triangles;
        } else {
            triangles.extend_from_slice(&g.triangles);
        }
        if has_texcoords {
            // Indices the file does not have were warned about above.
            let valid = |uv: u32| {
                if (uv as usize) < uv_count {
                    uv
                } else {
                    NO_TEXCOORD
                }
            };
            triangle_texcoords.extend(g.texcoords.iter().map(|t| t.map(valid)));
        }
        let material = g.material.and_then(|m| {
            let found = material_index.get(&m).copied();
            if found.is_none() && reads_materials {
                unknown.push((g.name.clone(), m));
            }
            found
        });
        out_groups.push(ObjGroup {
            name: g.name,
            triangles: start..triangles.len(),
            material,
        });
    }
    if let Some((group, material)) = unknown.first() {
        let more = match unknown.len() {
            1 => String::new(),
            n => format!(" (and {} more groups)", n - 1),
        };
        warnings.push(format!(
            "group '{group}' uses unknown material '{material}'{more}; drawn in the default colour"
        ));
    }
    Ok(ObjScene {
        positions,
        triangles,
        groups: out_groups,
        materials,
        texcoords,
        triangle_texcoords,
        warnings: std::mem::take(warnings),
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
            texcoords: Vec::new(),
            material: None,
        });
        groups.len() - 1
    })
}

/// The most distinct `mtllib` libraries one `.obj` reads.
pub(crate) const MAX_MATERIAL_LIBRARIES: usize = 16;

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
        let decoded = reader(lib)
            .map_err(|e| e.to_string())
            .and_then(|bytes| super::mtl::decode(&bytes).map_err(|e| e.to_string()));
        match decoded {
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

/// Decodes `.obj` bytes (UTF-8 text, naming the byte that is not), without
/// reading material libraries; the front door ([`mod@crate::open`]) reads them.
///
/// ```
/// let scene = motion_viewer::formats::obj::decode(b"v 0 0 0\nv 1 0 0\nv 0 1 0\ng tri\nf 1 2 3\n")?;
/// assert_eq!(scene.positions.len(), 3);
/// assert_eq!(scene.groups[0].name, "tri");
/// assert_eq!(scene.triangles, [[0, 1, 2]]);
/// # Ok::<(), motion_viewer::DecodeError>(())
/// ```
pub fn decode(bytes: &[u8]) -> Result<ObjScene, DecodeError> {
    decode_with(bytes, &ObjOptions::default())
}

/// Decodes `.obj` bytes as `options` say (material libraries through
/// [`ObjOptions::materials`]); what was read less well is in
/// [`ObjScene::warnings`].
pub(crate) fn decode_with(bytes: &[u8], options: &ObjOptions) -> Result<ObjScene, DecodeError> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        DecodeError::new(
            "text",
            e.valid_up_to() as u64,
            "UTF-8 text",
            "a byte that is not UTF-8",
        )
    })?;
    parse(text, options)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_text(text: &str) -> Result<ObjScene, DecodeError> {
        parse(text, &ObjOptions::default())
    }

    #[test]
    fn faces_may_name_vertices_defined_later() {
        let s = parse_text("f 1 2 3 4\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n").unwrap();
        assert_eq!(s.triangles, vec![[0, 1, 2], [0, 2, 3]]);
    }

    #[test]
    fn the_first_bad_corner_in_file_order_is_reported() {
        // Line 1 names vertex 9 (never defined), line 2 vertex 0: line 1 first.
        let e = parse_text("v 0 0 0\nf 1 1 9\nf 0 1 1\n").unwrap_err();
        assert_eq!((e.offset, e.found.as_str()), (8, "9"));
        // The other way round.
        let e = parse_text("v 0 0 0\nf 0 1 1\nf 1 1 9\n").unwrap_err();
        assert_eq!((e.offset, e.found.as_str()), (8, "0"));
        assert_eq!(e.expected, "a vertex index in 1..=1");
        // Within one face, the earlier corner.
        let e = parse_text("v 0 0 0\nf 1 7 -5\n").unwrap_err();
        assert_eq!(e.found, "7");
        // Beyond u32: bad, not wrapped.
        let e = parse_text("v 0 0 0\nf 1 1 4294967298\n").unwrap_err();
        assert_eq!(e.found, "4294967298");
    }

    #[test]
    fn groups_seen_again_continue_and_stay_contiguous() {
        let s = parse_text("v 0 0 0\nv 1 0 0\nv 0 1 0\ng a\nf 1 2 3\ng b\nf 3 2 1\ng a\nf 2 3 1\n")
            .unwrap();
        assert_eq!(s.triangles, vec![[0, 1, 2], [1, 2, 0], [2, 1, 0]]);
        assert_eq!(s.groups[0].triangles, 0..2);
        assert_eq!(s.groups[1].triangles, 2..3);
    }
    #[test]
    fn texture_coordinates_follow_the_corners() {
        let text = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\n\
                    g a\nf 1/1 2/2 3/3 4/-1\ng b\nf 1 2//7 3\n";
        let scene = parse(text, &ObjOptions::default()).unwrap();
        assert_eq!(scene.texcoords.len(), 4);
        assert_eq!(scene.texcoords[2], [1.0, 1.0]);
        // The quad fans into (1 2 3) and (1 3 4); `-1` is the latest `vt`.
        assert_eq!(
            scene.triangle_texcoords,
            [[0, 1, 2], [0, 2, 3], [NO_TEXCOORD; 3]]
        );
        let dangling = parse("v 0 0 0\nvt 0 0\nf 1/2 1/1 1/3\n", &ObjOptions::default()).unwrap();
        assert_eq!(dangling.triangle_texcoords, [[NO_TEXCOORD, 0, NO_TEXCOORD]]);
        let warnings = &dangling.warnings;
        assert!(warnings[0].starts_with("2 face corners"), "{warnings:?}");
        let plain = parse("v 0 0 0\nf 1 1 1\n", &ObjOptions::default()).unwrap();
        assert!(plain.triangle_texcoords.is_empty());
        // Texture coordinates may come after the faces that name them, and a
        // group's triangles before the file's first one have none.
        let late = parse(
            "v 0 0 0\nf 1 1 1\nf 1/1 1/1 1/1\nvt 0.5 0.5\n",
            &ObjOptions::default(),
        )
        .unwrap();
        assert_eq!(late.triangle_texcoords, [[NO_TEXCOORD; 3], [0, 0, 0]]);
    }
}
