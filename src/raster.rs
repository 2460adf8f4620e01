//! `viewer plot --out x.png`: the library's [`Plot`] (the same marks and
//! curves its SVG holds) drawn into pixels with tiny-skia, text set in the
//! Ubuntu Light face egui bundles (so no system font is needed), and
//! encoded as PNG.
//!
//! Kept in the application: the library's default dependencies stay free
//! of a rasteriser and a font.

use ab_glyph::{Font, FontRef, PxScale, ScaleFont, point};
use anyhow::{Context, Result};
use motion_viewer::curves::plot::{Anchor, Mark, PAPER, Plot, Rgb};
use tiny_skia::{Color, LineCap, LineJoin, Paint, PathBuilder, Pixmap, Stroke, Transform};

/// The most pixels a PNG plot may have (160 MB of RGBA while drawn).
pub const MAX_PIXELS: u64 = 40_000_000;

/// `plot` as PNG bytes.
pub fn png(plot: &Plot) -> Result<Vec<u8>> {
    let pixels = u64::from(plot.width) * u64::from(plot.height);
    anyhow::ensure!(
        pixels <= MAX_PIXELS,
        "a {}x{} PNG is {pixels} pixels, more than the {MAX_PIXELS} a plot may have; use a smaller --size or an .svg",
        plot.width,
        plot.height
    );
    let mut pixmap = Pixmap::new(plot.width, plot.height).context("a picture of that size")?;
    let [r, g, b] = PAPER;
    pixmap.fill(Color::from_rgba8(r, g, b, 255));
    let font = FontRef::try_from_slice(epaint_default_fonts::UBUNTU_LIGHT)
        .context("egui's bundled font")?;
    let (grid, rest) = plot.layers();
    for m in grid {
        draw(&mut pixmap, &font, m);
    }
    for c in &plot.curves {
        let mut path = PathBuilder::new();
        for (k, p) in c.samples.iter().enumerate() {
            let (x, y) = (plot.px(p[0]) as f32, plot.py(p[1]) as f32);
            if k == 0 {
                path.move_to(x, y);
            } else {
                path.line_to(x, y);
            }
        }
        if c.samples.len() == 1 {
            // A single sample: a dot.
            let p = c.samples[0];
            let (x, y) = (plot.px(p[0]) as f32, plot.py(p[1]) as f32);
            path.line_to(x + 0.01, y);
        }
        if let Some(path) = path.finish() {
            let stroke = Stroke {
                width: 1.5,
                line_join: LineJoin::Round,
                line_cap: LineCap::Round,
                ..Stroke::default()
            };
            pixmap.stroke_path(
                &path,
                &paint(c.colour),
                &stroke,
                Transform::identity(),
                None,
            );
        }
    }
    for m in rest {
        draw(&mut pixmap, &font, m);
    }
    let image = image::RgbaImage::from_raw(plot.width, plot.height, pixmap.take())
        .context("the picture's pixels")?;
    let mut bytes = Vec::new();
    image.write_to(
        &mut std::io::Cursor::new(&mut bytes),
        image::ImageFormat::Png,
    )?;
    Ok(bytes)
}

fn paint(c: Rgb) -> Paint<'static> {
    let mut paint = Paint::default();
    paint.set_color_rgba8(c[0], c[1], c[2], 255);
    paint.anti_alias = true;
    paint
}

fn draw(pixmap: &mut Pixmap, font: &FontRef<'_>, m: &Mark) {
    match m {
        Mark::Line {
            from,
            to,
            colour,
            width,
        } => {
            let mut path = PathBuilder::new();
            path.move_to(from[0] as f32, from[1] as f32);
            path.line_to(to[0] as f32, to[1] as f32);
            if let Some(path) = path.finish() {
                let stroke = Stroke {
                    width: *width as f32,
                    ..Stroke::default()
                };
                pixmap.stroke_path(&path, &paint(*colour), &stroke, Transform::identity(), None);
            }
        }
        Mark::Text {
            at,
            text,
            size,
            anchor,
            vertical,
        } => text_at(pixmap, font, text, *size as f32, *at, *anchor, *vertical),
    }
}

/// Sets `text` with its baseline at `at` (turned a quarter counter-clockwise
/// about `at` when `vertical`), in the ink colour.
fn text_at(
    pixmap: &mut Pixmap,
    font: &FontRef<'_>,
    text: &str,
    size: f32,
    at: [f64; 2],
    anchor: Anchor,
    vertical: bool,
) {
    // An SVG font-size is the em; ab_glyph scales by ascent − descent.
    let em = font.units_per_em().unwrap_or(1000.0);
    let scale = PxScale::from(size * font.height_unscaled() / em);
    let scaled = font.as_scaled(scale);
    let mut caret = 0.0f32;
    let mut previous = None;
    let mut glyphs = Vec::new();
    for c in text.chars() {
        let id = font.glyph_id(c);
        if let Some(p) = previous {
            caret += scaled.kern(p, id);
        }
        glyphs.push(id.with_scale_and_position(scale, point(caret, 0.0)));
        caret += scaled.h_advance(id);
        previous = Some(id);
    }
    let shift = match anchor {
        Anchor::Start => 0.0,
        Anchor::Middle => -caret / 2.0,
        Anchor::End => -caret,
    };
    let (width, height) = (pixmap.width() as i64, pixmap.height() as i64);
    let [r, g, b] = motion_viewer::curves::plot::INK;
    let data = pixmap.data_mut();
    for glyph in glyphs {
        let Some(outline) = font.outline_glyph(glyph) else {
            continue;
        };
        let bounds = outline.px_bounds();
        outline.draw(|gx, gy, coverage| {
            // Offset from the anchor along the text (dx) and down (dy).
            let dx = f64::from(bounds.min.x + gx as f32 + shift);
            let dy = f64::from(bounds.min.y + gy as f32);
            let (x, y) = if vertical {
                (at[0] + dy, at[1] - dx)
            } else {
                (at[0] + dx, at[1] + dy)
            };
            let (x, y) = (x.round() as i64, y.round() as i64);
            if x < 0 || y < 0 || x >= width || y >= height {
                return;
            }
            let i = 4 * (y * width + x) as usize;
            let a = coverage.clamp(0.0, 1.0);
            for (k, ink) in [r, g, b].into_iter().enumerate() {
                let under = f32::from(data[i + k]);
                data[i + k] = (under + (f32::from(ink) - under) * a).round() as u8;
            }
        });
    }
}
