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

/// Bytes in a [`ShimHeader`]. Room for the NC layer's largest header (26 bytes) and for more
/// than that: up to the size of TCP's ACK header it costs nothing (see the module header).
pub const SHIM_HEADER_BYTES: usize = 32;

/// Bytes a shim may write: all but the last, which is the network's congestion mark
/// ([`ShimHeader::mark_congestion`]).
pub const SHIM_FIELD_BYTES: usize = SHIM_HEADER_BYTES - 1;

/// The byte that holds the congestion mark. It is outside the shim's fields, as IP's ECN bits
/// are outside the transport's header: the network sets it without knowing the shim's layout.
const MARK_BYTE: usize = SHIM_HEADER_BYTES - 1;

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

    /// Marks the packet as having met congestion: a relay whose full buffer dropped a packet of
    /// the same flow sets it on the next one it forwards (`net`, "congestion marks"), much as an
    /// ECN-capable router sets Congestion Experienced (RFC 3168 §5); the shim decides what it
    /// means.
    #[inline]
    pub fn mark_congestion(&mut self) {
        self.bytes[MARK_BYTE] = 1;
    }

    /// Whether the network marked the packet ([`mark_congestion`](Self::mark_congestion)).
    #[inline]
    pub fn congestion_marked(&self) -> bool {
        self.bytes[MARK_BYTE] != 0
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
        assert!(
            self.at + N <= SHIM_FIELD_BYTES,
            "a shim header's fields fit in {SHIM_FIELD_BYTES} bytes"
        );
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

    #[test]
    #[should_panic]
    fn the_mark_byte_is_not_a_field() {
        let mut w = ShimWriter::new();
        w.u64(1).u64(2).u64(3).u32(4).u16(5).u8(6);
        w.u8(7);
    }

    #[test]
    fn a_congestion_mark_leaves_the_fields_alone() {
        let mut w = ShimWriter::new();
        w.u64(1).u64(2).u64(3).u32(4).u16(5).u8(6);
        let mut h = w.finish();
        assert!(!h.congestion_marked());
        h.mark_congestion();
        assert!(h.congestion_marked());
        let mut r = ShimReader::new(&h);
        assert_eq!((r.u64(), r.u64(), r.u64()), (1, 2, 3));
        assert_eq!((r.u32(), r.u16(), r.u8()), (4, 5, 6));
    }
}
