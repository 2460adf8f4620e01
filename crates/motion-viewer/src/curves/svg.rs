//! A [`Plot`] as an SVG document that a script can read values back from.
//!
//! The root `<svg>` carries the mapping (`data-t0 data-t1 data-v0 data-v1`,
//! full precision; `data-x0 data-y0 data-x1 data-y1`, the pixels where
//! `(t0, v0)` and `(t1, v1)` are drawn); every curve is one `<polyline>`
//! with `data-channel` (and `data-track`, the file's stem, `data-unit`),
//! whose points are pixel coordinates written to 3 decimals:
//!
//! `t = t0 + (x − x0)/(x1 − x0)·(t1 − t0)`, `v = v0 + (y − y0)/(y1 − y0)·(v1 − v0)`.
//!
//! Text from files (track and channel names) is escaped for XML, control
//! characters shown as `\xNN`.

use super::plot::{Anchor, Mark, Plot, Rgb};
use crate::error::Result;
use std::fmt::Write as _;
use std::path::Path;

/// Decimals of a pixel coordinate: a point is off by at most half of
/// 10^-DECIMALS pixels.
pub(crate) const DECIMALS: usize = 3;

/// A number to 3 decimals, trailing zeros dropped.
fn num(v: f64) -> String {
    let text = format!("{v:.DECIMALS$}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".into()
    } else {
        text.into()
    }
}

fn colour(c: Rgb) -> String {
    format!("#{:02x}{:02x}{:02x}", c[0], c[1], c[2])
}

/// `text` escaped for an XML attribute or element: markup characters as
/// entities, control characters as `\xNN` and the other characters XML 1.0
/// cannot hold (U+FFFE, U+FFFF) as `\u{…}`, so that a strict XML parser
/// reads the document whatever the files are called.
pub fn escape(text: &str) -> String {
    let text = crate::text::escape(text);
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if c.is_control() => {
                let _ = write!(out, "\\x{:02x}", u32::from(c));
            }
            // Outside XML 1.0's `Char` (surrogates cannot be in a `str`).
            c if !xml_char(c) => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
}

/// Whether XML 1.0 allows `c` in a document (its `Char` production).
fn xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
}

fn mark(out: &mut String, m: &Mark) {
    match m {
        Mark::Line {
            from,
            to,
            colour: c,
            width,
        } => {
            let _ = writeln!(
                out,
                r#"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-width="{}"/>"#,
                num(from[0]),
                num(from[1]),
                num(to[0]),
                num(to[1]),
                colour(*c),
                num(*width)
            );
        }
        Mark::Text {
            at,
            text,
            size,
            anchor,
            vertical,
        } => {
            let anchor = match anchor {
                Anchor::Start => "start",
                Anchor::Middle => "middle",
                Anchor::End => "end",
            };
            let turn = if *vertical {
                format!(r#" transform="rotate(-90 {} {})""#, num(at[0]), num(at[1]))
            } else {
                String::new()
            };
            let _ = writeln!(
                out,
                r#"<text x="{}" y="{}" font-size="{}" text-anchor="{anchor}"{turn}>{}</text>"#,
                num(at[0]),
                num(at[1]),
                num(*size),
                escape(text)
            );
        }
    }
}

/// The SVG document of `plot`.
pub(crate) fn to_svg(plot: &Plot) -> String {
    let mut out = String::new();
    let (w, h) = (plot.width, plot.height);
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="Ubuntu, DejaVu Sans, Arial, sans-serif" fill="{ink}" data-t0="{t0:?}" data-t1="{t1:?}" data-v0="{v0:?}" data-v1="{v1:?}" data-x0="{x0}" data-y0="{y0}" data-x1="{x1}" data-y1="{y1}">"#,
        ink = colour(super::plot::INK),
        t0 = plot.t0,
        t1 = plot.t1,
        v0 = plot.v0,
        v1 = plot.v1,
        x0 = num(plot.x[0]),
        y0 = num(plot.y[0]),
        x1 = num(plot.x[1]),
        y1 = num(plot.y[1]),
    );
    let _ = writeln!(out, "<title>{}</title>", escape(&plot.title));
    let _ = writeln!(
        out,
        r#"<rect width="{w}" height="{h}" fill="{}"/>"#,
        colour(super::plot::PAPER)
    );
    let (grid, rest) = plot.layers();
    out.push_str("<g class=\"grid\">\n");
    grid.iter().for_each(|m| mark(&mut out, m));
    out.push_str(
        "</g>\n<g class=\"curves\" fill=\"none\" stroke-width=\"1.5\" stroke-linejoin=\"round\">\n",
    );
    for c in &plot.curves {
        let _ = write!(out, r#"<polyline data-channel="{}""#, escape(&c.channel));
        if plot.several {
            let _ = write!(out, r#" data-track="{}""#, escape(&c.track));
        }
        let _ = write!(
            out,
            r#" data-unit="{}" stroke="{}" points=""#,
            escape(c.unit.symbol()),
            colour(c.colour)
        );
        for (k, p) in c.samples.iter().enumerate() {
            if k > 0 {
                out.push(' ');
            }
            let _ = write!(out, "{},{}", num(plot.px(p[0])), num(plot.py(p[1])));
        }
        out.push_str("\"/>\n");
    }
    out.push_str("</g>\n<g class=\"axes\">\n");
    rest.iter().for_each(|m| mark(&mut out, m));
    out.push_str("</g>\n</svg>\n");
    out
}

/// Writes `plot` as SVG to `out`, all or nothing (see [`crate::output`]).
pub fn write_svg(plot: &Plot, out: &Path) -> Result<()> {
    let text = to_svg(plot);
    crate::output::write_atomic(out, |w| w.write_all(text.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_from_files_is_escaped_for_xml() {
        assert_eq!(
            escape("a<b>&\"c'\x1b[31m"),
            "a&lt;b&gt;&amp;&quot;c&apos;\\x1b[31m"
        );
        assert_eq!(
            escape("a\u{fffe}b\u{ffff}\u{1f600}"),
            "a\\u{fffe}b\\u{ffff}\u{1f600}"
        );
        assert_eq!(escape("\u{0}\t\u{7f}\u{85}"), "\\x00\\x09\\x7f\\x85");
        assert_eq!(num(12.0), "12");
        assert_eq!(num(-0.0001), "0");
        assert_eq!(num(1.23456), "1.235");
    }
}
