//! Poses → files, with no GPU: the state at one time (JSON), every frame as a
//! table (CSV/JSON), a deformed MEMG mesh (OBJ), and animated scenes for other
//! tools. One module per output format; [`Format::from_path`] picks by the
//! output's extension.
//!
//! Every writer goes through [`file::write_atomic`]: an export that fails
//! leaves no partial file behind.

pub mod file;
#[cfg(feature = "gltf")]
pub mod gltf;
pub mod pc2;

use std::path::Path;

/// The output formats, told apart by the output file's extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `.json`: the state at one time, or every frame as a table.
    Json,
    /// `.csv`: every frame as a table.
    Csv,
    /// `.obj`: a MEMG scene deformed at one timestep.
    Obj,
    /// `.glb`: binary glTF 2.0, every track animated in one scene.
    Glb,
    /// `.gltf`: glTF 2.0 JSON with one `.bin` beside it.
    Gltf,
    /// `.pc2`: Blender's point cache of a MEMG scene's vertices per frame.
    Pc2,
}

impl Format {
    /// The format an output path asks for by its extension (any case).
    pub fn from_path(path: &Path) -> Option<Format> {
        let ext = path.extension()?.to_string_lossy().to_ascii_lowercase();
        Some(match ext.as_str() {
            "json" => Format::Json,
            "csv" => Format::Csv,
            "obj" => Format::Obj,
            "glb" => Format::Glb,
            "gltf" => Format::Gltf,
            "pc2" => Format::Pc2,
            _ => return None,
        })
    }
}
