//! Arrays read at random indices that may not fit one storage binding.
//!
//! A compute pass that reads or writes vertex `i` of the positions (or
//! triangle `t` of the index list) anywhere in the array cannot split that
//! array across dispatches. Instead the one buffer is bound several times,
//! each binding a window of whole items at an offset the device allows, and
//! the shader picks the window an index falls in. [`Windows::wgsl`] writes
//! the bindings and the accessor functions (`load_NAME`, `store_NAME`) that
//! the shaders in `shaders/` call; with one window they index it directly.

use super::util::range_entry;
use crate::error::{Error, Result};
use std::fmt::Write as _;

/// Floats or indices per item: every windowed array holds `vec3`s.
const LANES: u64 = 3;

/// How an array of `vec3` items is split into bindings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Windows {
    /// Items per window (the last may hold fewer).
    per_window: u64,
    /// Windows, at least one.
    count: u32,
    /// Items in the array.
    items: u64,
}

impl Windows {
    /// Windows over `items` items of 12 bytes (`vec3` of 32-bit values), each
    /// at most `limit` bytes and starting at a multiple of `align` bytes.
    /// `what` names the array in the error when one item is more than a
    /// binding may hold.
    pub fn plan(what: &str, items: u64, limit: u64, align: u64) -> Result<Windows> {
        let item_bytes = 4 * LANES;
        let fits = limit / item_bytes;
        if items <= fits {
            return Ok(Windows {
                per_window: items.max(1),
                count: 1,
                items,
            });
        }
        // Window starts must fall on `align`: a whole number of `step` items.
        let step = align.max(1) / gcd(item_bytes, align.max(1));
        let per_window = fits / step * step;
        if per_window == 0 {
            return Err(Error::gpu_limit(format!(
                "{what}: a storage binding of {limit} bytes at {align}-byte offsets cannot hold a window of {item_bytes}-byte items"
            )));
        }
        let count = u32::try_from(items.div_ceil(per_window)).map_err(|_| {
            Error::gpu_limit(format!(
                "{what}: {items} items need more than 2^32 bindings"
            ))
        })?;
        Ok(Windows {
            per_window,
            count,
            items,
        })
    }

    /// Bindings the array takes.
    pub fn count(&self) -> u32 {
        self.count
    }

    /// Bytes the buffer must have: every item, and room for one when empty
    /// (wgpu refuses empty bindings).
    pub(crate) fn buffer_bytes(&self) -> u64 {
        4 * LANES * self.items.max(1)
    }

    /// One entry per window of `buffer`, bindings `first`, `first + 1`, ….
    pub fn entries<'a>(
        &self,
        first: u32,
        buffer: &'a wgpu::Buffer,
    ) -> Vec<wgpu::BindGroupEntry<'a>> {
        let total = self.items.max(1);
        (0..self.count)
            .map(|w| {
                let start = u64::from(w) * self.per_window;
                let len = self.per_window.min(total - start);
                range_entry(first + w, buffer, 4 * LANES * start, 4 * LANES * len)
            })
            .collect()
    }

    /// WGSL for the array: storage bindings `NAME_0`, `NAME_1`, … of
    /// `array<SCALAR>` from binding `first` in group 0, and
    /// `fn load_NAME(i: u32) -> vec3<SCALAR>`, plus
    /// `fn store_NAME(i: u32, x: vec3<SCALAR>)` when `writable`.
    pub fn wgsl(&self, name: &str, scalar: &str, writable: bool, first: u32) -> String {
        let access = if writable { "read_write" } else { "read" };
        let mut s = String::new();
        for w in 0..self.count {
            let _ = writeln!(
                s,
                "@group(0) @binding({}) var<storage, {access}> {name}_{w}: array<{scalar}>;",
                first + w
            );
        }
        // Which window item `i` is in, and the index of its first value there.
        let locate = if self.count == 1 {
            "    let w = 0u;\n    let o = 3u * i;\n".to_string()
        } else {
            format!(
                "    let w = i / {per}u;\n    let o = 3u * (i - w * {per}u);\n",
                per = self.per_window
            )
        };
        let arms = |body: &dyn Fn(String) -> String| {
            let mut arms = String::new();
            for w in 0..self.count {
                let label = if w + 1 == self.count {
                    "default".to_string()
                } else {
                    format!("case {w}u")
                };
                let _ = writeln!(
                    arms,
                    "        {label}: {{ {} }}",
                    body(format!("{name}_{w}"))
                );
            }
            arms
        };
        let _ = write!(
            s,
            "fn load_{name}(i: u32) -> vec3<{scalar}> {{\n{locate}    var x: vec3<{scalar}>;\n    switch w {{\n{}    }}\n    return x;\n}}\n",
            arms(&|b| format!("x = vec3<{scalar}>({b}[o], {b}[o + 1u], {b}[o + 2u]);"))
        );
        if writable {
            let _ = write!(
                s,
                "fn store_{name}(i: u32, x: vec3<{scalar}>) {{\n{locate}    switch w {{\n{}    }}\n}}\n",
                arms(&|b| format!("{b}[o] = x.x; {b}[o + 1u] = x.y; {b}[o + 2u] = x.z;"))
            );
        }
        s
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_window_when_it_fits() {
        let w = Windows::plan("positions", 100, 1200, 256).unwrap();
        assert_eq!((w.count(), w.per_window), (1, 100));
        let empty = Windows::plan("positions", 0, 1200, 256).unwrap();
        assert_eq!((empty.count(), empty.buffer_bytes()), (1, 12));
    }

    #[test]
    fn windows_start_on_the_alignment() {
        // 1000 bytes hold 83 items; starts on 256 bytes need multiples of 64 items.
        let w = Windows::plan("positions", 1000, 1000, 256).unwrap();
        assert_eq!((w.per_window, w.count()), (64, 16));
        // 32-byte alignment: multiples of 8 items.
        let w = Windows::plan("positions", 1000, 1000, 32).unwrap();
        assert_eq!((w.per_window, w.count()), (80, 13));
        assert!(Windows::plan("positions", 1000, 100, 256).is_err());
    }

    #[test]
    fn wgsl_has_one_binding_per_window() {
        let w = Windows::plan("positions", 1000, 1000, 32).unwrap();
        let s = w.wgsl("positions", "f32", true, 5);
        assert!(s.contains("@binding(17) var<storage, read_write> positions_12"));
        assert!(s.contains("fn store_positions"));
        assert!(s.contains("let w = i / 80u;"));
        let s = Windows::plan("t", 10, 1000, 32)
            .unwrap()
            .wgsl("t", "u32", false, 2);
        assert!(!s.contains("store_t") && s.contains("let w = 0u;"));
    }
}
