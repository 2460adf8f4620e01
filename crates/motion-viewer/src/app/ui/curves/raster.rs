//! The plot's still parts as one picture: the findings' shading, the
//! joint-limit bands, every curve drawn as bars (one per pixel column, see
//! [`super::draw::bars`]) and every keyframe marker are painted into an
//! image on the CPU when the view changes, and shown each frame as a few
//! textured quads covering only the rows that hold something
//! ([`Region`]).
//!
//! Why: on a software rasteriser (llvmpipe, SwiftShader) the cost of a frame
//! is the triangles and pixels the GPU side is given, not the CPU work: 20
//! curves of a thousand columns are 40 000 triangles every frame, several
//! times the rest of the window, and each translucent band or shade is a
//! strip of pixels blended again every frame (BENCHMARKS.md, "Curves panel
//! frame time"). Painted here, each pixel of the plot is handed over at
//! most once a frame; the picture changes only with the view, the channels
//! or the motion, not while the playhead moves.

use egui::{Color32, ColorImage, TextureHandle, TextureOptions};
use std::sync::Arc;

/// Where a picture lies: time at its left and right edges, value at its
/// bottom and top, and its size in pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Frame {
    /// Time at the left and right edges, seconds.
    pub t: (f64, f64),
    /// Value at the bottom and top edges.
    pub v: (f64, f64),
    /// Width and height, pixels.
    pub size: [usize; 2],
}

/// One curve's bars and keyframe markers, and how to paint them.
pub struct BarCurve<'a> {
    /// `[t0, t1, low, high]` per column (empty for a curve drawn as a line).
    pub bars: &'a [[f64; 4]],
    /// Its colour (premultiplied).
    pub color: Color32,
    /// Keyframe markers: index and `[time, value]`.
    pub markers: &'a [(usize, [f64; 2])],
}

/// Marker sizes, pixels: the diamond's radius, and its outline's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MarkerSize {
    /// The coloured diamond's radius.
    pub radius: f64,
    /// The dark outline's radius (drawn first).
    pub outline: f64,
}

/// Sizes in pixels, from the screen's pixels per point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Style {
    /// Half a curve's width: added above and below each bar.
    pub half_width: f64,
    /// The keyframe markers.
    pub marker: MarkerSize,
    /// How deep the strip beyond a joint limit is.
    pub band_depth: f64,
    /// The narrowest a shaded stretch is drawn (a one-frame finding shows).
    pub min_shade: f64,
}

/// What lies behind the curves: shaded stretches of time, limit bands.
#[derive(Debug, Clone, Copy, Default)]
pub struct Backdrop<'a> {
    /// Stretches of time shaded over the whole height (premultiplied colours).
    pub shades: &'a [Shade],
    /// Joint limits.
    pub bands: &'a [Band],
}

/// A stretch of time shaded: `t0..t1` seconds in `color`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shade {
    /// Start, seconds.
    pub t0: f64,
    /// End, seconds.
    pub t1: f64,
    /// Premultiplied colour, usually translucent.
    pub color: Color32,
}

/// A joint limit: a strip [`Style::band_depth`] deep beyond it (above the
/// upper limit, below the lower) in `fill`, and a line one pixel high at it
/// in `line`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Band {
    /// The limit's value.
    pub value: f64,
    /// True for an upper limit (the strip lies above it).
    pub upper: bool,
    /// The strip's premultiplied colour.
    pub fill: Color32,
    /// The line's premultiplied colour.
    pub line: Color32,
}

/// Rows and columns of the picture that hold something, to be shown; the
/// rest is transparent and is not handed to the GPU.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Region {
    /// Rows, top to bottom.
    pub rows: std::ops::Range<usize>,
    /// Columns, left to right.
    pub columns: std::ops::Range<usize>,
}

/// Runs of empty rows shorter than this join the regions either side: a
/// quad more costs more than a few transparent rows.
const MIN_GAP_ROWS: usize = 8;

/// The plot's picture and what it was painted for.
pub struct Raster<K> {
    painted: Option<Painted<K>>,
}

/// One painted picture.
#[derive(Clone)]
struct Painted<K> {
    key: K,
    frame: Frame,
    style: Style,
    handle: TextureHandle,
    /// Shared with each frame's paint closure rather than copied into it.
    regions: Arc<[Region]>,
}

impl<K> Default for Raster<K> {
    fn default() -> Raster<K> {
        Raster { painted: None }
    }
}

impl<K: std::fmt::Debug> std::fmt::Debug for Raster<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Raster")
            .field("key", &self.painted.as_ref().map(|p| (&p.key, &p.frame)))
            .finish()
    }
}

impl<K: Clone> Clone for Raster<K> {
    fn clone(&self) -> Raster<K> {
        Raster {
            painted: self.painted.clone(),
        }
    }
}

impl<K: PartialEq> Raster<K> {
    /// The texture showing `backdrop` and `curves` in `frame`, and the
    /// regions of it to show; painted again only when `key` (what the
    /// curves and backdrop were made for), `frame` or `style` changed.
    /// `None` when there is nothing to paint.
    pub fn texture(
        &mut self,
        ctx: &egui::Context,
        key: K,
        frame: Frame,
        style: Style,
        backdrop: Backdrop<'_>,
        curves: &[BarCurve<'_>],
    ) -> Option<(egui::TextureId, Arc<[Region]>)> {
        let nothing = backdrop.shades.is_empty()
            && backdrop.bands.is_empty()
            && curves
                .iter()
                .all(|c| c.bars.is_empty() && c.markers.is_empty());
        if nothing || frame.size[0] == 0 || frame.size[1] == 0 {
            self.painted = None;
            return None;
        }
        let fresh = self
            .painted
            .as_ref()
            .is_some_and(|p| p.key == key && p.frame == frame && p.style == style);
        if !fresh {
            let image = paint(frame, style, backdrop, curves);
            let regions: Arc<[Region]> = regions(&image).into();
            match self.painted.take() {
                Some(mut p) => {
                    p.handle.set(image, TextureOptions::NEAREST);
                    (p.key, p.frame, p.style, p.regions) = (key, frame, style, regions);
                    self.painted = Some(p);
                }
                None => {
                    let handle = ctx.load_texture("curves", image, TextureOptions::NEAREST);
                    self.painted = Some(Painted {
                        key,
                        frame,
                        style,
                        handle,
                        regions,
                    });
                }
            }
        }
        self.painted
            .as_ref()
            .map(|p| (p.handle.id(), Arc::clone(&p.regions)))
    }
}

/// Paints the picture: column x covers `t0 + x·(t1−t0)/width`, row y the
/// value `v1 − y·(v1−v0)/height` (row 0 at the top). First the shades
/// (widened about their middle to [`Style::min_shade`]) and the bands, blended; then each bar,
/// widened by [`Style::half_width`] above and below and at least one pixel
/// wide, in its curve's colour; then the markers.
pub fn paint(
    frame: Frame,
    style: Style,
    backdrop: Backdrop<'_>,
    curves: &[BarCurve<'_>],
) -> ColorImage {
    let [w, h] = frame.size;
    let ((t0, t1), (v0, v1)) = (frame.t, frame.v);
    let mut pixels = vec![Color32::TRANSPARENT; w * h];
    let x_of = |t: f64| (t - t0) / (t1 - t0) * w as f64;
    let y_of = |v: f64| (v1 - v) / (v1 - v0) * h as f64;
    for shade in backdrop.shades {
        let (mut xa, mut xb) = (x_of(shade.t0), x_of(shade.t1));
        if xb - xa < style.min_shade {
            let centre = 0.5 * (xa + xb);
            (xa, xb) = (
                centre - 0.5 * style.min_shade,
                centre + 0.5 * style.min_shade,
            );
        }
        blend_rect(&mut pixels, [w, h], [xa, xb], [0.0, h as f64], shade.color);
    }
    let width = [0.0, w as f64];
    for band in backdrop.bands {
        let y = y_of(band.value).floor();
        let strip = match band.upper {
            true => [y - style.band_depth, y],
            false => [y + 1.0, y + 1.0 + style.band_depth],
        };
        blend_rect(&mut pixels, [w, h], width, strip, band.fill);
        blend_rect(&mut pixels, [w, h], width, [y, y + 1.0], band.line);
    }
    let clamp = |p: f64, n: usize| p.clamp(0.0, n as f64) as usize;
    for curve in curves {
        for b in curve.bars {
            let x0 = x_of(b[0]).floor();
            let x1 = x_of(b[1]).round().max(x0 + 1.0);
            let top = (y_of(b[3]) - style.half_width).floor();
            let bottom = (y_of(b[2]) + style.half_width).ceil().max(top + 1.0);
            if ![x0, x1, top, bottom].iter().all(|p| p.is_finite()) {
                continue;
            }
            let (x0, x1) = (clamp(x0, w), clamp(x1, w));
            let (top, bottom) = (clamp(top, h), clamp(bottom, h));
            for row in pixels.chunks_exact_mut(w).take(bottom).skip(top) {
                row[x0..x1].fill(curve.color);
            }
        }
    }
    let marker = style.marker;
    // Markers over every curve, in the curves' order.
    for curve in curves {
        for (_, [t, v]) in curve.markers {
            let (cx, cy) = (x_of(*t), y_of(*v));
            diamond(
                &mut pixels,
                [w, h],
                (cx, cy),
                marker.outline,
                Color32::BLACK,
            );
            diamond(&mut pixels, [w, h], (cx, cy), marker.radius, curve.color);
        }
    }
    ColorImage::new([w, h], pixels)
}

/// Blends `color` (premultiplied) over the pixels in columns `x` and rows
/// `y` (pixel edges, rounded to whole pixels and clipped to the picture).
fn blend_rect(
    pixels: &mut [Color32],
    [w, h]: [usize; 2],
    x: [f64; 2],
    y: [f64; 2],
    color: Color32,
) {
    if ![x[0], x[1], y[0], y[1]].iter().all(|p| p.is_finite()) {
        return;
    }
    let clip = |p: f64, n: usize| p.round().clamp(0.0, n as f64) as usize;
    let (x0, x1) = (clip(x[0], w), clip(x[1], w));
    let (y0, y1) = (clip(y[0], h), clip(y[1], h));
    for row in pixels.chunks_exact_mut(w).take(y1).skip(y0) {
        for p in &mut row[x0..x1.max(x0)] {
            *p = over(color, *p);
        }
    }
}

/// `top` over `below`, both premultiplied.
fn over(top: Color32, below: Color32) -> Color32 {
    let keep = 255 - u32::from(top.a());
    let mix = |a: u8, b: u8| (u32::from(a) + (u32::from(b) * keep + 127) / 255).min(255) as u8;
    Color32::from_rgba_premultiplied(
        mix(top.r(), below.r()),
        mix(top.g(), below.g()),
        mix(top.b(), below.b()),
        mix(top.a(), below.a()),
    )
}

/// The parts of `image` that hold something: runs of rows with a pixel not
/// transparent (gaps under [`MIN_GAP_ROWS`] joined), each with the columns
/// its rows use.
pub fn regions(image: &ColorImage) -> Vec<Region> {
    let [w, _] = image.size;
    let mut regions: Vec<Region> = Vec::new();
    for (y, row) in image.pixels.chunks_exact(w.max(1)).enumerate() {
        let Some(first) = row.iter().position(|p| p.a() != 0) else {
            continue;
        };
        let last = row.iter().rposition(|p| p.a() != 0).unwrap_or(first) + 1;
        match regions.last_mut() {
            Some(r) if y - r.rows.end < MIN_GAP_ROWS => {
                r.rows.end = y + 1;
                r.columns = r.columns.start.min(first)..r.columns.end.max(last);
            }
            _ => regions.push(Region {
                rows: y..y + 1,
                columns: first..last,
            }),
        }
    }
    regions
}

/// Fills a diamond of `radius` pixels centred at `c`, clipped to the picture.
fn diamond(pixels: &mut [Color32], [w, h]: [usize; 2], c: (f64, f64), radius: f64, color: Color32) {
    if !(c.0.is_finite() && c.1.is_finite()) {
        return;
    }
    let r = radius.round() as i64;
    let (cx, cy) = (c.0.floor() as i64, c.1.floor() as i64);
    for dy in -r..=r {
        let y = cy + dy;
        if y < 0 || y >= h as i64 {
            continue;
        }
        let half = r - dy.abs();
        let x0 = (cx - half).clamp(0, w as i64) as usize;
        let x1 = (cx + half + 1).clamp(0, w as i64) as usize;
        if x0 < x1 {
            let row = y as usize * w;
            pixels[row + x0..row + x1].fill(color);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NO_MARKER: MarkerSize = MarkerSize {
        radius: 0.0,
        outline: 0.0,
    };

    fn style(half_width: f64, marker: MarkerSize) -> Style {
        Style {
            half_width,
            marker,
            band_depth: 2.0,
            min_shade: 2.0,
        }
    }

    #[test]
    fn a_bar_covers_its_columns_and_rows_and_nothing_else() {
        let frame = Frame {
            t: (0.0, 1.0),
            v: (0.0, 10.0),
            size: [10, 10],
        };
        // Columns 2..4 (t 0.2..0.4 of 1 s), values 3..6: rows 4..7.
        let bars = [[0.2, 0.4, 3.0, 6.0]];
        let red = Color32::RED;
        let image = paint(
            frame,
            style(0.0, NO_MARKER),
            Backdrop::default(),
            &[BarCurve {
                bars: &bars,
                color: red,
                markers: &[],
            }],
        );
        for y in 0..10 {
            for x in 0..10 {
                let inside = (2..4).contains(&x) && (4..7).contains(&y);
                let want = if inside { red } else { Color32::TRANSPARENT };
                assert_eq!(image.pixels[y * 10 + x], want, "pixel {x},{y}");
            }
        }
    }

    #[test]
    fn bars_outside_the_picture_are_clipped_and_non_finite_ones_skipped() {
        let frame = Frame {
            t: (0.0, 1.0),
            v: (0.0, 1.0),
            size: [4, 4],
        };
        let bars = [[-5.0, 9.0, -3.0, 7.0], [0.0, 1.0, f64::NAN, 1.0]];
        let image = paint(
            frame,
            style(1.0, NO_MARKER),
            Backdrop::default(),
            &[BarCurve {
                bars: &bars,
                color: Color32::WHITE,
                markers: &[],
            }],
        );
        assert!(image.pixels.iter().all(|&p| p == Color32::WHITE));
    }

    #[test]
    fn a_marker_is_a_diamond_outlined_in_black_at_its_time_and_value() {
        let frame = Frame {
            t: (0.0, 1.0),
            v: (0.0, 1.0),
            size: [11, 11],
        };
        let size = MarkerSize {
            radius: 2.0,
            outline: 3.0,
        };
        let markers = [(0, [0.5, 0.5])];
        let curve = BarCurve {
            bars: &[],
            color: Color32::RED,
            markers: &markers,
        };
        let image = paint(frame, style(0.0, size), Backdrop::default(), &[curve]);
        let at = |x: usize, y: usize| image.pixels[y * 11 + x];
        // Centre pixel (5, 5): t 0.5 → x 5.5, v 0.5 → y 5.5.
        assert_eq!(at(5, 5), Color32::RED);
        assert_eq!(at(7, 5), Color32::RED, "radius 2 to the right");
        assert_eq!(at(8, 5), Color32::BLACK, "the outline beyond it");
        assert_eq!(at(9, 5), Color32::TRANSPARENT);
        assert_eq!(at(7, 7), Color32::TRANSPARENT, "a diamond, not a square");
    }

    #[test]
    fn shades_and_bands_lie_under_the_bars_blended_where_they_overlap() {
        // 10 × 10 pixels for 0..1 s and values 0..10: a pixel a tenth of each.
        let frame = Frame {
            t: (0.0, 1.0),
            v: (0.0, 10.0),
            size: [10, 10],
        };
        // Half-transparent grey (premultiplied) over 0.3..0.5 s: columns 3, 4.
        let grey = Color32::from_rgba_premultiplied(50, 50, 50, 128);
        let shades = [Shade {
            t0: 0.3,
            t1: 0.5,
            color: grey,
        }];
        // An upper limit at 7.5: its line on row 2 (y 2.5 floored), a strip
        // two rows deep above it (rows 0, 1); a lower limit at 2: its line on
        // row 8, its strip below (row 9, clipped).
        let (fill, line) = (
            Color32::from_rgba_premultiplied(0, 0, 60, 60),
            Color32::BLUE,
        );
        let bands = [
            Band {
                value: 7.5,
                upper: true,
                fill,
                line,
            },
            Band {
                value: 2.0,
                upper: false,
                fill,
                line,
            },
        ];
        // One bar over column 4, values 4..6: rows 4..6.
        let bars = [[0.4, 0.5, 4.0, 6.0]];
        let curve = BarCurve {
            bars: &bars,
            color: Color32::RED,
            markers: &[],
        };
        let backdrop = Backdrop {
            shades: &shades,
            bands: &bands,
        };
        let image = paint(frame, style(0.0, NO_MARKER), backdrop, &[curve]);
        let at = |x: usize, y: usize| image.pixels[y * 10 + x];
        let clear = Color32::TRANSPARENT;
        assert_eq!(at(0, 5), clear);
        assert_eq!(at(3, 5), grey, "the shade alone");
        assert_eq!(at(4, 5), Color32::RED, "the bar over the shade");
        assert_eq!(at(4, 6), grey, "below the bar");
        assert_eq!(at(0, 0), fill);
        assert_eq!(at(0, 1), fill);
        assert_eq!(at(0, 2), line);
        assert_eq!(at(0, 3), clear);
        assert_eq!(at(0, 8), line);
        assert_eq!(at(0, 9), fill);
        // The strip over the shade: 60 + 50·(255 − 60)/255 = 98.2 → 98 in
        // alpha 60 + 128·195/255 = 157.9 → 158.
        assert_eq!(
            at(3, 0),
            Color32::from_rgba_premultiplied(38, 38, 98, 158),
            "{:?}",
            at(3, 0)
        );
    }

    #[test]
    fn a_one_frame_shade_is_still_drawn_its_minimum_width() {
        let frame = Frame {
            t: (0.0, 100.0),
            v: (0.0, 1.0),
            size: [100, 4],
        };
        let shades = [Shade {
            t0: 50.0,
            t1: 50.0,
            color: Color32::WHITE,
        }];
        let backdrop = Backdrop {
            shades: &shades,
            bands: &[],
        };
        let image = paint(frame, style(0.0, NO_MARKER), backdrop, &[]);
        let lit: Vec<usize> = (0..100)
            .filter(|&x| image.pixels[x] == Color32::WHITE)
            .collect();
        assert_eq!(lit, vec![49, 50], "two pixels about 50: min_shade");
    }

    #[test]
    fn regions_cover_the_rows_in_use_with_their_columns_joining_small_gaps() {
        let mut image = ColorImage::new([20, 40], vec![Color32::TRANSPARENT; 800]);
        let mut put = |x: usize, y: usize| image.pixels[y * 20 + x] = Color32::RED;
        put(3, 2);
        put(7, 5);
        // A gap of 7 empty rows (6..=12): joined.
        put(5, 13);
        // A gap of 16 (14..=29): a new region.
        put(10, 30);
        put(12, 31);
        assert_eq!(
            regions(&image),
            vec![
                Region {
                    rows: 2..14,
                    columns: 3..8
                },
                Region {
                    rows: 30..32,
                    columns: 10..13
                },
            ]
        );
        let empty = ColorImage::new([20, 40], vec![Color32::TRANSPARENT; 800]);
        assert!(regions(&empty).is_empty());
    }
}
