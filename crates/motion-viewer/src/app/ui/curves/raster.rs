//! The dense curves as one picture: every curve drawn as bars (one per pixel
//! column, see [`super::draw::bars`]) is painted into an image on the CPU
//! when the view changes and shown as one textured quad each frame.
//!
//! Why: on a software rasteriser (llvmpipe, SwiftShader) the cost of a frame
//! is the triangles and pixels the GPU side is given, not the CPU work: 20
//! curves of a thousand columns are 40 000 triangles every frame, several
//! times the rest of the window (BENCHMARKS.md, "Curves panel frame time").
//! The bars are axis-aligned rectangles, so painting them is a fill of
//! rows in a few columns; the picture changes only with the view, the
//! channels or the motion, not while the playhead moves.

use egui::{Color32, ColorImage, TextureHandle, TextureOptions};

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

/// The picture of the dense curves and what it was painted for.
pub struct Raster<K> {
    painted: Option<(K, Frame, TextureHandle)>,
}

impl<K> Default for Raster<K> {
    fn default() -> Raster<K> {
        Raster { painted: None }
    }
}

impl<K: std::fmt::Debug> std::fmt::Debug for Raster<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Raster")
            .field("key", &self.painted.as_ref().map(|(k, f, _)| (k, f)))
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
    /// The texture showing `curves` in `frame`, painted again only when
    /// `key` (what the curves were made for) or `frame` changed. `None`
    /// when there is nothing to paint.
    pub fn texture(
        &mut self,
        ctx: &egui::Context,
        key: K,
        frame: Frame,
        half_width_px: f64,
        marker: MarkerSize,
        curves: &[BarCurve<'_>],
    ) -> Option<egui::TextureId> {
        if curves
            .iter()
            .all(|c| c.bars.is_empty() && c.markers.is_empty())
            || frame.size[0] == 0
            || frame.size[1] == 0
        {
            self.painted = None;
            return None;
        }
        if let Some((k, f, handle)) = &self.painted
            && *k == key
            && *f == frame
        {
            return Some(handle.id());
        }
        let image = paint(frame, half_width_px, marker, curves);
        match &mut self.painted {
            Some((k, f, handle)) => {
                handle.set(image, TextureOptions::NEAREST);
                (*k, *f) = (key, frame);
            }
            None => {
                let handle = ctx.load_texture("curves", image, TextureOptions::NEAREST);
                self.painted = Some((key, frame, handle));
            }
        }
        self.painted.as_ref().map(|(_, _, h)| h.id())
    }
}

/// Paints the bars: column x covers `t0 + x·(t1−t0)/width`, row y the value
/// `v1 − y·(v1−v0)/height` (row 0 at the top); each bar widened by
/// `half_width_px` above and below, at least one pixel wide.
pub fn paint(
    frame: Frame,
    half_width_px: f64,
    marker: MarkerSize,
    curves: &[BarCurve<'_>],
) -> ColorImage {
    let [w, h] = frame.size;
    let ((t0, t1), (v0, v1)) = (frame.t, frame.v);
    let mut pixels = vec![Color32::TRANSPARENT; w * h];
    let x_of = |t: f64| (t - t0) / (t1 - t0) * w as f64;
    let y_of = |v: f64| (v1 - v) / (v1 - v0) * h as f64;
    let clamp = |p: f64, n: usize| p.clamp(0.0, n as f64) as usize;
    for curve in curves {
        for b in curve.bars {
            let x0 = x_of(b[0]).floor();
            let x1 = x_of(b[1]).round().max(x0 + 1.0);
            let top = (y_of(b[3]) - half_width_px).floor();
            let bottom = (y_of(b[2]) + half_width_px).ceil().max(top + 1.0);
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
            0.0,
            NO_MARKER,
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
            1.0,
            NO_MARKER,
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
        let image = paint(frame, 0.0, size, &[curve]);
        let at = |x: usize, y: usize| image.pixels[y * 11 + x];
        // Centre pixel (5, 5): t 0.5 → x 5.5, v 0.5 → y 5.5.
        assert_eq!(at(5, 5), Color32::RED);
        assert_eq!(at(7, 5), Color32::RED, "radius 2 to the right");
        assert_eq!(at(8, 5), Color32::BLACK, "the outline beyond it");
        assert_eq!(at(9, 5), Color32::TRANSPARENT);
        assert_eq!(at(7, 7), Color32::TRANSPARENT, "a diamond, not a square");
    }
}
