//! Packet captures in the pcap format, for Wireshark, tshark and tcptrace: the file format and
//! the encodings of the frames airtcp's packets become (docs/pcap.md). A run writes them when
//! its scenario has a `trace:` block ([`config`]); the hooks that see the frames are the
//! network's (`net::pcap_tap`).
//!
//! - File: the classic pcap format with nanosecond timestamps (magic 0xa1b23c4d, version 2.4,
//!   little-endian), one link type per file: raw IPv4 (LINKTYPE_RAW, 101) for wired links, 802.11
//!   with a radiotap header (LINKTYPE_IEEE802_11_RADIOTAP, 127) for radios. Each record is written
//!   as it is made ([`PcapWriter`] over any `Write`): nothing is held in memory.
//! - IPv4 and TCP/UDP headers as RFC 791, 9293 and 768 lay them out, with valid checksums, the
//!   TCP options airtcp's segments carry (timestamps, SACK blocks, RFC 7323 and 2018) and the ECN
//!   field; payloads are zero bytes ([`ip`]).
//! - 802.11 data, QoS data, ACK, RTS, CTS, BlockAckReq and Block Ack frames after a radiotap
//!   header with the rate (the MCS of an HT frame), the channel, the received signal and, for the
//!   MPDUs of an A-MPDU (a record each), the A-MPDU status ([`dot11`]).
//! - airtcp's packets as such IPv4 packets ([`packet`]), the headers of its schemes in an
//!   encapsulation of their own ([`encap`]).

pub mod config;
pub mod dot11;
pub mod encap;
pub mod ip;
pub mod packet;

use std::io::{self, Write};

use crate::sim::Time;

/// LINKTYPE_RAW: each record is an IPv4 (or IPv6) packet.
pub const LINKTYPE_RAW: u32 = 101;
/// LINKTYPE_IEEE802_11_RADIOTAP: each record is a radiotap header and an 802.11 frame.
pub const LINKTYPE_RADIOTAP: u32 = 127;

/// The magic number of a pcap file with nanosecond timestamps.
const MAGIC_NANOS: u32 = 0xa1b2_3c4d;
/// Longest record kept whole (larger frames are cut, their full length still recorded).
pub const SNAPLEN: u32 = 262_144;

/// A pcap file being written record by record.
#[derive(Debug)]
pub struct PcapWriter<W: Write> {
    out: W,
    records: u64,
}

impl<W: Write> PcapWriter<W> {
    /// Starts a file of `linktype` records on `out` (writes the global header).
    pub fn new(mut out: W, linktype: u32) -> io::Result<Self> {
        let mut header = [0u8; 24];
        header[0..4].copy_from_slice(&MAGIC_NANOS.to_le_bytes());
        header[4..6].copy_from_slice(&2u16.to_le_bytes());
        header[6..8].copy_from_slice(&4u16.to_le_bytes());
        // thiszone and sigfigs stay 0.
        header[16..20].copy_from_slice(&SNAPLEN.to_le_bytes());
        header[20..24].copy_from_slice(&linktype.to_le_bytes());
        out.write_all(&header)?;
        Ok(PcapWriter { out, records: 0 })
    }

    /// Writes one record: `frame` (cut at [`SNAPLEN`]) captured at `at`.
    pub fn record(&mut self, at: Time, frame: &[u8]) -> io::Result<()> {
        self.record_cut(at, frame, frame.len())
    }

    /// Writes one record of a frame `len` bytes long of which `frame` (its start, cut at
    /// [`SNAPLEN`]) was kept, captured at `at`.
    pub fn record_cut(&mut self, at: Time, frame: &[u8], len: usize) -> io::Result<()> {
        let kept = frame.len().min(SNAPLEN as usize);
        let len = len.max(kept);
        let mut header = [0u8; 16];
        header[0..4].copy_from_slice(&((at / 1_000_000_000) as u32).to_le_bytes());
        header[4..8].copy_from_slice(&((at % 1_000_000_000) as u32).to_le_bytes());
        header[8..12].copy_from_slice(&(kept as u32).to_le_bytes());
        header[12..16].copy_from_slice(&(len.min(u32::MAX as usize) as u32).to_le_bytes());
        self.out.write_all(&header)?;
        self.out.write_all(&frame[..kept])?;
        self.records += 1;
        Ok(())
    }

    /// Records written.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// Flushes and returns the output.
    pub fn finish(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

#[cfg(test)]
mod tests;
