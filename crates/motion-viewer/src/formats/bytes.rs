//! A bounds-checked little/big-endian cursor for decoders, and its writing twin.
//!
//! Every read names the field it is for, so a short or bad file yields a
//! [`DecodeError`] with the field, the offset and what was expected.

use crate::error::DecodeError;

/// Byte order of multi-byte fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ByteOrder {
    /// Least significant byte first (PC order).
    #[default]
    Little,
    /// Most significant byte first.
    Big,
}

/// A read cursor over a byte slice.
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    order: ByteOrder,
}

macro_rules! read_num {
    ($name:ident, $ty:ty, $n:expr) => {
        #[doc = concat!("Reads a `", stringify!($ty), "` in the cursor's byte order.")]
        pub fn $name(&mut self, field: &str) -> Result<$ty, DecodeError> {
            let b: [u8; $n] = self.array(field)?;
            Ok(match self.order {
                ByteOrder::Little => <$ty>::from_le_bytes(b),
                ByteOrder::Big => <$ty>::from_be_bytes(b),
            })
        }
    };
}

// Every width in both directions, as a cursor has them: not every format
// reads or writes each one.
#[allow(dead_code)]
impl<'a> Reader<'a> {
    /// A little-endian cursor at offset 0.
    pub fn new(data: &'a [u8]) -> Self {
        Self {
            data,
            pos: 0,
            order: ByteOrder::Little,
        }
    }

    /// Switches the byte order for the reads that follow.
    pub(crate) fn set_order(&mut self, order: ByteOrder) {
        self.order = order;
    }

    /// The byte order in force.
    pub fn order(&self) -> ByteOrder {
        self.order
    }

    /// Current offset from the start of the data.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Bytes left after the cursor.
    pub(crate) fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    /// Moves the cursor to `pos` (at most the end of the data).
    pub fn seek(&mut self, pos: usize, field: &str) -> Result<(), DecodeError> {
        if pos > self.data.len() {
            return Err(DecodeError::new(
                field,
                self.pos as u64,
                format!("an offset within the {} bytes of the file", self.data.len()),
                format!("offset {pos}"),
            ));
        }
        self.pos = pos;
        Ok(())
    }

    /// An error at the cursor's current offset.
    pub fn error(
        &self,
        field: &str,
        expected: impl Into<String>,
        found: impl Into<String>,
    ) -> DecodeError {
        DecodeError::new(field, self.pos as u64, expected, found)
    }

    /// Takes the next `n` bytes.
    pub fn bytes(&mut self, n: usize, field: &str) -> Result<&'a [u8], DecodeError> {
        if n > self.remaining() {
            return Err(self.error(
                field,
                format!("{n} bytes"),
                format!("{} bytes before the end of the file", self.remaining()),
            ));
        }
        let s = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    /// Takes the next `N` bytes as an array.
    pub fn array<const N: usize>(&mut self, field: &str) -> Result<[u8; N], DecodeError> {
        let s = self.bytes(N, field)?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }

    /// Reads one byte.
    pub fn u8(&mut self, field: &str) -> Result<u8, DecodeError> {
        Ok(self.array::<1>(field)?[0])
    }

    read_num!(u16, u16, 2);
    read_num!(i16, i16, 2);
    read_num!(u32, u32, 4);
    read_num!(i32, i32, 4);
    read_num!(i64, i64, 8);
    read_num!(u64, u64, 8);
    read_num!(f32, f32, 4);
    read_num!(f64, f64, 8);

    /// Checks a count read from the file against the bytes left, before anything
    /// is allocated for it: `count` items of at least `min_item_size` bytes each
    /// must fit in what remains. `at` is the offset the count was read from.
    pub(crate) fn check_count(
        &self,
        field: &str,
        at: usize,
        count: i64,
        min_item_size: usize,
    ) -> Result<usize, DecodeError> {
        if count < 0 {
            return Err(DecodeError::new(
                field,
                at as u64,
                "a count of 0 or more",
                count.to_string(),
            ));
        }
        let needed = (count as u128) * (min_item_size as u128);
        if needed > self.remaining() as u128 {
            return Err(DecodeError::new(
                field,
                at as u64,
                format!(
                    "at most {} items of {min_item_size} bytes in the {} bytes left",
                    self.remaining() / min_item_size.max(1),
                    self.remaining()
                ),
                count.to_string(),
            ));
        }
        Ok(count as usize)
    }
}

/// A growable output buffer with the same field types as [`Reader`].
#[derive(Debug, Clone, Default)]
pub struct Writer {
    buf: Vec<u8>,
    order: ByteOrder,
}

macro_rules! write_num {
    ($name:ident, $ty:ty) => {
        #[doc = concat!("Appends a `", stringify!($ty), "` in the writer's byte order.")]
        pub fn $name(&mut self, v: $ty) {
            match self.order {
                ByteOrder::Little => self.buf.extend_from_slice(&v.to_le_bytes()),
                ByteOrder::Big => self.buf.extend_from_slice(&v.to_be_bytes()),
            }
        }
    };
}

#[allow(dead_code)]
impl Writer {
    /// An empty writer in the given byte order.
    pub fn new(order: ByteOrder) -> Self {
        Self {
            buf: Vec::new(),
            order,
        }
    }

    /// Bytes written so far.
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// Appends raw bytes.
    pub fn bytes(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }

    /// Appends one byte.
    pub fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }

    write_num!(u16, u16);
    write_num!(i16, i16);
    write_num!(u32, u32);
    write_num!(i32, i32);
    write_num!(i64, i64);
    write_num!(u64, u64);
    write_num!(f32, f32);
    write_num!(f64, f64);

    /// Overwrites a `u32` already written at `at` (for sizes known only later).
    pub(crate) fn patch_u32(&mut self, at: usize, v: u32) {
        let b = match self.order {
            ByteOrder::Little => v.to_le_bytes(),
            ByteOrder::Big => v.to_be_bytes(),
        };
        self.buf[at..at + 4].copy_from_slice(&b);
    }

    /// The bytes written.
    pub fn into_bytes(self) -> Vec<u8> {
        self.buf
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_both_byte_orders() {
        let data = [0, 0, 0, 1, 1, 0, 0, 0];
        let mut r = Reader::new(&data);
        r.set_order(ByteOrder::Big);
        assert_eq!(r.i32("a").unwrap(), 1);
        r.set_order(ByteOrder::Little);
        assert_eq!(r.i32("b").unwrap(), 1);
        let e = r.u8("c").unwrap_err();
        assert_eq!(e.offset, 8);
        assert_eq!(e.field, "c");
    }

    #[test]
    fn count_is_checked_against_bytes_left() {
        let data = [0u8; 16];
        let r = Reader::new(&data);
        assert_eq!(r.check_count("n", 0, 2, 8).unwrap(), 2);
        assert!(r.check_count("n", 0, 3, 8).is_err());
        assert!(r.check_count("n", 0, -1, 8).is_err());
        assert!(r.check_count("n", 0, i64::MAX, 8).is_err());
    }

    #[test]
    fn writer_round_trips_and_patches() {
        let mut w = Writer::new(ByteOrder::Big);
        w.u32(0);
        w.f64(1.5);
        w.patch_u32(0, 7);
        let b = w.into_bytes();
        let mut r = Reader::new(&b);
        r.set_order(ByteOrder::Big);
        assert_eq!(r.u32("x").unwrap(), 7);
        assert_eq!(r.f64("y").unwrap(), 1.5);
    }
}
