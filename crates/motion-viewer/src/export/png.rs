//! Pictures as PNG: the window's screenshots (desktop and page) and
//! `viewer render`'s frames, encoded one way.

use crate::error::Result;
use std::io::Write;
use std::path::Path;

/// Encodes `picture` as an RGBA PNG into `w`.
pub fn encode(picture: &image::RgbaImage, w: impl Write) -> std::io::Result<()> {
    use image::ImageEncoder;
    image::codecs::png::PngEncoder::new(w)
        .write_image(
            picture.as_raw(),
            picture.width(),
            picture.height(),
            image::ExtendedColorType::Rgba8,
        )
        .map_err(std::io::Error::other)
}

/// Writes `picture` to `path` as a PNG that appears only once complete
/// ([`crate::output::write_atomic`]).
pub fn write(path: &Path, picture: &image::RgbaImage) -> Result<()> {
    crate::output::write_atomic(path, |w| encode(picture, w))
}
