//! Wavefront material libraries (`.mtl`), read through an `.obj`'s `mtllib`:
//! each material's name and diffuse colour, all the viewer draws with.
//!
//! Only `newmtl` and `Kd` are read; every other statement is skipped. A
//! library that cannot be read is the caller's warning, never a failure of
//! the scene.

use super::obj::ObjMaterial;

/// The diffuse colour of a material without a `Kd` line.
pub const DEFAULT_DIFFUSE: [f32; 3] = [0.8, 0.8, 0.8];

/// Parses `.mtl` bytes: `newmtl NAME` starts a material, `Kd R G B` (or
/// `Kd V` for grey) sets its diffuse colour. Statements before the first
/// `newmtl` are skipped. The error names the line at fault.
pub fn parse(bytes: &[u8]) -> Result<Vec<ObjMaterial>, String> {
    let text = std::str::from_utf8(bytes)
        .map_err(|e| format!("not UTF-8 text (byte {})", e.valid_up_to()))?;
    let mut materials: Vec<ObjMaterial> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
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
                        return Err(format!(
                            "line {}: Kd needs 1 or 3 numbers, found {:?}",
                            i + 1,
                            values.join(" ")
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
        let m = parse(text).unwrap();
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
        let e = parse(b"newmtl wood\nKd 0.45 0.\n").unwrap_err();
        assert_eq!(e, "line 2: Kd needs 1 or 3 numbers, found \"0.45 0.\"");
        let e = parse(b"newmtl wood\nKd a b c\n").unwrap_err();
        assert!(e.starts_with("line 2: Kd"), "{e}");
        assert!(parse(b"newmtl \xff\n").unwrap_err().contains("UTF-8"));
    }
}
