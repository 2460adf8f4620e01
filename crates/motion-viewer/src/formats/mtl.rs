//! Wavefront material libraries (`.mtl`), read through an `.obj`'s `mtllib`:
//! each material's name and diffuse colour, all the viewer draws with.
//!
//! Only `newmtl` and `Kd` are read; every other statement is skipped. A
//! library that cannot be read is the caller's warning, never a failure of
//! the scene.

use crate::error::DecodeError;

/// A material's name and diffuse colour.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ObjMaterial {
    /// `newmtl` name.
    pub name: String,
    /// `Kd` colour.
    pub diffuse: [f32; 3],
}

/// The diffuse colour of a material without a `Kd` line.
pub(crate) const DEFAULT_DIFFUSE: [f32; 3] = [0.8, 0.8, 0.8];

/// Decodes `.mtl` bytes: `newmtl NAME` starts a material, `Kd R G B` (or
/// `Kd V` for grey) sets its diffuse colour. Statements before the first
/// `newmtl` are skipped. The error names the line at fault and its byte
/// offset.
///
/// ```
/// let materials = motion_viewer::formats::mtl::decode(b"newmtl red\nKd 1 0 0\n").unwrap();
/// assert_eq!(materials[0].name, "red");
/// assert_eq!(materials[0].diffuse, [1.0, 0.0, 0.0]);
/// ```
pub fn decode(bytes: &[u8]) -> Result<Vec<ObjMaterial>, DecodeError> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        DecodeError::new(
            "text",
            e.valid_up_to() as u64,
            "UTF-8 text",
            "a byte that is not UTF-8",
        )
    })?;
    let mut materials: Vec<ObjMaterial> = Vec::new();
    let mut offset = 0u64;
    for (i, raw) in text.split_inclusive('\n').enumerate() {
        let line_offset = offset;
        offset += raw.len() as u64;
        let raw = raw.trim_end_matches(['\n', '\r']);
        let line = raw.split('#').next().unwrap_or("");
        let mut words = line.split_whitespace();
        match words.next() {
            Some("newmtl") => materials.push(ObjMaterial {
                name: words.collect::<Vec<_>>().join(" "),
                diffuse: DEFAULT_DIFFUSE,
            }),
            Some("Kd") => {
                let values: Vec<&str> = words.collect();
                // `Kd spectral file.rfl` and `Kd xyz x y z` keep the default.
                if matches!(values.first(), Some(&"spectral" | &"xyz")) {
                    continue;
                }
                let numbers: Option<Vec<f32>> = values.iter().map(|v| v.parse().ok()).collect();
                let diffuse = match numbers.as_deref() {
                    Some(&[v]) => [v; 3],
                    Some(&[r, g, b, ..]) => [r, g, b],
                    _ => {
                        return Err(DecodeError::new(
                            format!("line {} Kd", i + 1),
                            line_offset,
                            "1 or 3 numbers",
                            format!("{:?}", crate::text::cut(&values.join(" "), 60)),
                        ));
                    }
                };
                if let Some(m) = materials.last_mut() {
                    m.diffuse = diffuse;
                }
            }
            _ => {}
        }
    }
    Ok(materials)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_diffuse_colours() {
        let text = b"# a library\nKd 1 1 1\nnewmtl red  cloth\nKa 0 0 0\nKd 1 0.5 0 # warm\n\
                     newmtl grey\nKd 0.25\nnewmtl plain\nnewmtl odd\nKd spectral x.rfl\n";
        let m = decode(text).unwrap();
        let got: Vec<(&str, [f32; 3])> = m.iter().map(|m| (m.name.as_str(), m.diffuse)).collect();
        assert_eq!(
            got,
            [
                ("red cloth", [1.0, 0.5, 0.0]),
                ("grey", [0.25; 3]),
                ("plain", DEFAULT_DIFFUSE),
                ("odd", DEFAULT_DIFFUSE),
            ]
        );
    }

    #[test]
    fn a_bad_colour_names_its_line() {
        // Found by the obj_memg fuzz target: tobj panicked on two numbers.
        let e = decode(b"newmtl wood\nKd 0.45 0.\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 2 Kd at byte 12 (0xc): expected 1 or 3 numbers, found \"0.45 0.\""
        );
        let e = decode(b"newmtl wood\nKd a b c\n").unwrap_err();
        assert_eq!(e.field, "line 2 Kd");
        let e = decode(b"newmtl \xff\n").unwrap_err();
        assert_eq!((e.field.as_str(), e.offset), ("text", 7));
    }
}
