//! The header a shim's packets carry: a fixed number of bytes that only the shim reads.
//!
//! The framework (network, packet, world) moves it around without interpreting it, so that
//! adding a system adds no variant to `sim::packet::Header`. Fixed-size and `Copy` because every
//! `Packet` holds its header inline and packets are copied between the arena, queues and MACs;
//! a boxed or variable-length header would allocate per packet. Its size is bounded by TCP's ACK
//! header, the largest header there is, so that it never makes `Packet` bigger (checked at compile
//! time in `sim::packet`).
//!
//! A shim writes its fields with [`ShimWriter`] and reads them back with [`ShimReader`], in the
//! same order (little-endian, no padding); the bytes need not follow any wire format, since the
//! wire size of a shim's packet is what the shim says it is ([`crate::transport::shim::ShimIo::send`]).

/// Bytes in a [`ShimHeader`]. Room for the NC layer's largest header (19 bytes) and for more
/// than that: up to the size of TCP's ACK header it costs nothing (see the module header).
pub const SHIM_HEADER_BYTES: usize = 32;

/// A shim's header: bytes that only the shim reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShimHeader {
    bytes: [u8; SHIM_HEADER_BYTES],
}

impl ShimHeader {
    /// The raw bytes.
    #[inline]
    pub fn bytes(&self) -> &[u8; SHIM_HEADER_BYTES] {
        &self.bytes
    }
}

/// Writes a [`ShimHeader`] field by field:
/// `let mut w = ShimWriter::new(); w.u8(tag).u64(block); let header = w.finish();`.
/// Panics if the fields do not fit (a shim's header has a fixed layout, so that is a bug caught
/// by its first test). Everything is `#[inline]` and works in place: once inlined, the offsets
/// are constants and writing a header is a few stores (it is done for every packet a shim sends).
#[derive(Debug, Clone, Copy)]
pub struct ShimWriter {
    bytes: [u8; SHIM_HEADER_BYTES],
    at: usize,
}

impl Default for ShimWriter {
    fn default() -> Self {
        Self::new()
    }
}

impl ShimWriter {
    /// An empty header.
    #[inline]
    pub fn new() -> Self {
        ShimWriter {
            bytes: [0; SHIM_HEADER_BYTES],
            at: 0,
        }
    }

    #[inline]
    fn put<const N: usize>(&mut self, v: [u8; N]) -> &mut Self {
        self.bytes[self.at..self.at + N].copy_from_slice(&v);
        self.at += N;
        self
    }

    /// Appends a byte.
    #[inline]
    pub fn u8(&mut self, v: u8) -> &mut Self {
        self.put(v.to_le_bytes())
    }

    /// Appends a boolean (one byte).
    #[inline]
    pub fn bool(&mut self, v: bool) -> &mut Self {
        self.u8(v as u8)
    }

    /// Appends a `u16`.
    #[inline]
    pub fn u16(&mut self, v: u16) -> &mut Self {
        self.put(v.to_le_bytes())
    }

    /// Appends a `u32`.
    #[inline]
    pub fn u32(&mut self, v: u32) -> &mut Self {
        self.put(v.to_le_bytes())
    }

    /// Appends a `u64`.
    #[inline]
    pub fn u64(&mut self, v: u64) -> &mut Self {
        self.put(v.to_le_bytes())
    }

    /// The header (unwritten bytes are zero).
    #[inline]
    pub fn finish(&self) -> ShimHeader {
        ShimHeader { bytes: self.bytes }
    }
}

/// Reads a [`ShimHeader`] back, field by field, in the order it was written.
#[derive(Debug, Clone)]
pub struct ShimReader<'a> {
    bytes: &'a [u8; SHIM_HEADER_BYTES],
    at: usize,
}

impl<'a> ShimReader<'a> {
    /// Reads `header` from its first byte.
    #[inline]
    pub fn new(header: &'a ShimHeader) -> Self {
        ShimReader {
            bytes: &header.bytes,
            at: 0,
        }
    }

    #[inline]
    fn take<const N: usize>(&mut self) -> [u8; N] {
        let v = self.bytes[self.at..self.at + N]
            .try_into()
            .expect("a slice of N bytes");
        self.at += N;
        v
    }

    /// The next byte.
    #[inline]
    pub fn u8(&mut self) -> u8 {
        u8::from_le_bytes(self.take())
    }

    /// The next boolean.
    #[inline]
    pub fn bool(&mut self) -> bool {
        self.u8() != 0
    }

    /// The next `u16`.
    #[inline]
    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes(self.take())
    }

    /// The next `u32`.
    #[inline]
    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.take())
    }

    /// The next `u64`.
    #[inline]
    pub fn u64(&mut self) -> u64 {
        u64::from_le_bytes(self.take())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_read_back_in_the_order_they_were_written() {
        let write = || {
            let mut w = ShimWriter::new();
            w.u8(2)
                .u64(u64::MAX - 5)
                .u32(0xDEAD_BEEF)
                .u16(513)
                .bool(true)
                .u64(7);
            w.finish()
        };
        let h = write();
        let mut r = ShimReader::new(&h);
        assert_eq!(r.u8(), 2);
        assert_eq!(r.u64(), u64::MAX - 5);
        assert_eq!(r.u32(), 0xDEAD_BEEF);
        assert_eq!(r.u16(), 513);
        assert!(r.bool());
        assert_eq!(r.u64(), 7);
        // Unwritten bytes are zero, so equal fields give equal headers.
        assert!(h.bytes()[24..].iter().all(|&b| b == 0));
        assert_eq!(h, write());
    }

    #[test]
    #[should_panic]
    fn a_header_that_does_not_fit_is_refused() {
        let mut w = ShimWriter::new();
        for _ in 0..=SHIM_HEADER_BYTES / 8 {
            w.u64(1);
        }
    }
}
