//! Time samples held on disk while a stage is written.
//!
//! A `.usda` lists each attribute's samples together (`points.timeSamples =
//! { 0: …, 1: …, … }`), prim after prim, while a motion is evaluated time
//! after time, every prim at once. Rather than hold every prim's samples in
//! memory until the last time is evaluated, each time's values go to an
//! unnamed temporary file as plain `f64`s, and each prim's samples are read
//! back from it when the prim is written.
//!
//! The file is written in blocks of whole rows (a row: every series'
//! values at one time), each block laid out series after series, so that
//! reading one series back costs one read per block. A block holds at most
//! [`BLOCK_BYTES`] in memory; a row larger than that (a MEMG scene of a
//! million vertices) is written straight through, series by series, and
//! read back one series of one row at a time.

use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::Path;

/// The most bytes of values a block holds before it is written out.
pub const BLOCK_BYTES: usize = 8 << 20;

/// Series of values sampled at the same times, spilled to a file.
pub(crate) struct Spill {
    /// Values per sample of each series.
    widths: Vec<usize>,
    /// Rows a block holds (0: rows go straight to the file).
    rows_per_block: usize,
    /// The block being filled, series after series (`rows_per_block` ×
    /// width values each).
    block: Vec<f64>,
    /// Where each series starts in `block`.
    starts: Vec<usize>,
    /// Rows in the block being filled.
    filled: usize,
    /// The series the next `push` is for.
    next: usize,
    /// Each written block's offset in the file and its rows.
    blocks: Vec<(u64, usize)>,
    /// Bytes written to the file.
    written: u64,
    file: BufWriter<File>,
}

impl Spill {
    /// A spill of series of `widths` values per sample, in a temporary file
    /// beside `out` (or in the system's temporary folder where that can't be
    /// made: an output that is a device).
    pub fn new(widths: Vec<usize>, out: &Path) -> io::Result<Spill> {
        let folder = match out.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let file = tempfile::tempfile_in(folder).or_else(|_| tempfile::tempfile())?;
        let row: usize = widths.iter().sum();
        let rows_per_block = if row == 0 { 1 } else { BLOCK_BYTES / (8 * row) };
        let mut starts = Vec::with_capacity(widths.len());
        let mut at = 0;
        for w in &widths {
            starts.push(at);
            at += w * rows_per_block;
        }
        Ok(Spill {
            widths,
            rows_per_block,
            block: vec![0.0; at],
            starts,
            filled: 0,
            next: 0,
            blocks: Vec::new(),
            written: 0,
            file: BufWriter::with_capacity(1 << 16, file),
        })
    }

    /// The bytes held in memory while spilling and reading back series of
    /// `widths` (an estimate, for sizing the work before it starts).
    pub(crate) fn held_bytes(widths: &[usize]) -> u64 {
        let row: u64 = widths.iter().map(|&w| 8 * w as u64).sum();
        let widest = widths.iter().map(|&w| 8 * w as u64).max().unwrap_or(0);
        if row <= BLOCK_BYTES as u64 {
            // The block, and one series' part of one block read back (its
            // bytes and its values).
            3 * BLOCK_BYTES as u64
        } else {
            // One series of one row read back, and the file's buffer.
            2 * widest + (1 << 16)
        }
    }

    /// Adds the next series' values for the current row (series in order,
    /// then the next row).
    pub fn push(&mut self, values: &[f64]) -> io::Result<()> {
        let s = self.next;
        let width = self.widths[s];
        assert_eq!(values.len(), width, "series {s} has {width} values");
        if self.rows_per_block == 0 {
            // Rows larger than a block: written as they come (one row per
            // block, series after series, is the order they come in).
            if s == 0 {
                self.blocks.push((self.written, 1));
            }
            for v in values {
                self.file.write_all(&v.to_le_bytes())?;
            }
            self.written += 8 * width as u64;
        } else {
            let at = self.starts[s] + self.filled * width;
            self.block[at..at + width].copy_from_slice(values);
        }
        self.next += 1;
        if self.next == self.widths.len() {
            self.next = 0;
            if self.rows_per_block > 0 {
                self.filled += 1;
                if self.filled == self.rows_per_block {
                    self.write_block()?;
                }
            }
        }
        Ok(())
    }

    /// Writes the rows of the block being filled to the file.
    fn write_block(&mut self) -> io::Result<()> {
        if self.filled == 0 {
            return Ok(());
        }
        self.blocks.push((self.written, self.filled));
        for (s, &width) in self.widths.iter().enumerate() {
            let at = self.starts[s];
            for v in &self.block[at..at + self.filled * width] {
                self.file.write_all(&v.to_le_bytes())?;
            }
            self.written += 8 * (self.filled * width) as u64;
        }
        self.filled = 0;
        Ok(())
    }

    /// Ends the writing: every row pushed is in the file.
    pub fn seal(&mut self) -> io::Result<()> {
        assert_eq!(self.next, 0, "a row pushed whole");
        self.write_block()?;
        self.file.flush()?;
        self.block = Vec::new();
        Ok(())
    }

    /// Calls `each(row, values)` for every row of series `s`, in order.
    /// Call [`Spill::seal`] first.
    pub fn read(
        &self,
        s: usize,
        mut each: impl FnMut(u64, &[f64]) -> io::Result<()>,
    ) -> io::Result<()> {
        let width = self.widths[s];
        let before: usize = self.widths[..s].iter().sum();
        let mut file = self.file.get_ref();
        let mut bytes = Vec::new();
        let mut values = Vec::new();
        let mut row = 0u64;
        for &(offset, rows) in &self.blocks {
            let start = offset + 8 * (rows * before) as u64;
            bytes.resize(8 * rows * width, 0);
            file.seek(SeekFrom::Start(start))?;
            file.read_exact(&mut bytes)?;
            values.clear();
            values.extend(
                bytes
                    .chunks_exact(8)
                    .map(|b| f64::from_le_bytes(b.try_into().expect("8 bytes"))),
            );
            for k in 0..rows {
                each(row, &values[k * width..(k + 1) * width])?;
                row += 1;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spill_and_read(widths: Vec<usize>, rows: usize) {
        let dir = tempfile::tempdir().unwrap();
        let mut spill = Spill::new(widths.clone(), &dir.path().join("x.usda")).unwrap();
        let value = |r: usize, s: usize, k: usize| (r * 1000 + s * 10 + k) as f64 + 0.5;
        for r in 0..rows {
            for (s, &w) in widths.iter().enumerate() {
                let v: Vec<f64> = (0..w).map(|k| value(r, s, k)).collect();
                spill.push(&v).unwrap();
            }
        }
        spill.seal().unwrap();
        for (s, &w) in widths.iter().enumerate() {
            let mut seen = 0;
            spill
                .read(s, |r, v| {
                    assert_eq!(r as usize, seen);
                    let want: Vec<f64> = (0..w).map(|k| value(seen, s, k)).collect();
                    assert_eq!(v, want.as_slice(), "series {s} row {r}");
                    seen += 1;
                    Ok(())
                })
                .unwrap();
            assert_eq!(seen, rows, "series {s}");
        }
    }

    #[test]
    fn series_come_back_as_pushed_across_blocks() {
        // Rows of 7 + 4 + 0 values: about 95 000 rows per block, so 200 000
        // rows make three blocks, the last one partly filled.
        spill_and_read(vec![7, 4, 0], 200_000);
        spill_and_read(vec![3], 1);
        spill_and_read(vec![2, 5], 0);
    }

    #[test]
    fn rows_larger_than_a_block_go_straight_through() {
        let wide = BLOCK_BYTES / 8 + 3;
        spill_and_read(vec![wide, 6], 3);
        assert_eq!(Spill::held_bytes(&[wide, 6]), 16 * wide as u64 + (1 << 16));
        assert_eq!(Spill::held_bytes(&[7, 4]), 3 * BLOCK_BYTES as u64);
    }
}
