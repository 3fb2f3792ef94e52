//! 802.11 frames after a radiotap header, as a monitor-mode capture shows them.
//!
//! - Radiotap (<https://www.radiotap.org>): version 0, the fields Flags (bit 1), Rate (bit 2,
//!   500 kbit/s units), Channel (bit 3: frequency in MHz and flags, 2-byte aligned) and dBm
//!   antenna signal (bit 5; only on frames a radio received). No FCS follows the frames.
//! - 802.11 (IEEE 802.11-2016 §9.3): data frames with the three addresses of an IBSS (receiver,
//!   transmitter, BSSID), the Retry bit, the duration field and a sequence number, then LLC/SNAP
//!   (AA AA 03 00 00 00, EtherType 0x0800) and the IPv4 packet; ACK and CTS (receiver address),
//!   RTS (receiver and transmitter; the Retry bit on a retried RTS).
//!
//! A radio's address is 02:00:00:00:hh:ll (locally administered) from its index; the BSSID is
//! 02:00:00:00:ff:ff for every radio (one ad-hoc network).

/// What a frame is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Data; its IPv4 packet follows the header.
    Data,
    /// ACK.
    Ack,
    /// RTS.
    Rts,
    /// CTS.
    Cts,
    /// Compressed BlockAckReq; its starting sequence number is the header's `seq`.
    BlockAckReq,
    /// Compressed Block Ack from the header's `seq`, with its bitmap.
    BlockAck {
        /// Bit k: MPDU `seq + k` received.
        bitmap: u64,
    },
}

/// The fields of a frame and of its radiotap header.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Dot11 {
    /// Frame type.
    pub kind: Kind,
    /// Transmitting radio.
    pub src: u32,
    /// Addressed radio (`None`: broadcast).
    pub dst: Option<u32>,
    /// Duration field, us (the NAV it sets).
    pub duration_us: u16,
    /// Sequence number (data frames).
    pub seq: u16,
    /// Retry bit.
    pub retry: bool,
    /// Rate, bit/s.
    pub rate_bps: u64,
    /// Channel centre frequency, MHz.
    pub freq_mhz: u16,
    /// OFDM (5 GHz) rather than CCK/DSSS (2.4 GHz), for the channel flags.
    pub ofdm: bool,
    /// Signal at the capturing radio, dBm (frames it received; `None` for its own).
    pub signal_dbm: Option<i8>,
}

/// The broadcast address.
const BROADCAST: [u8; 6] = [0xff; 6];
/// The IBSS's BSSID.
const BSSID: [u8; 6] = [0x02, 0, 0, 0, 0xff, 0xff];

/// The MAC address of radio `r`.
pub fn address(r: u32) -> [u8; 6] {
    let [_, _, h, l] = r.to_be_bytes();
    [0x02, 0, 0, 0, h, l]
}

/// Appends the radiotap header and the 802.11 header of `f` to `out` (for a data frame, the
/// caller appends the IPv4 packet after it).
pub fn frame(out: &mut Vec<u8>, f: &Dot11) {
    let present: u32 = 0b1110 | if f.signal_dbm.is_some() { 1 << 5 } else { 0 };
    let len: u16 = if f.signal_dbm.is_some() { 15 } else { 14 };
    out.extend_from_slice(&[0, 0]);
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&present.to_le_bytes());
    // Flags: none (no FCS at the end, long preamble).
    out.push(0);
    out.push((f.rate_bps / 500_000).min(255) as u8);
    out.extend_from_slice(&f.freq_mhz.to_le_bytes());
    // Channel flags: OFDM + 5 GHz, or CCK + 2 GHz.
    let flags: u16 = if f.ofdm { 0x0140 } else { 0x00a0 };
    out.extend_from_slice(&flags.to_le_bytes());
    if let Some(s) = f.signal_dbm {
        out.push(s as u8);
    }
    let ra = f.dst.map_or(BROADCAST, address);
    let retry = if f.retry { 0x08 } else { 0 };
    let duration = f.duration_us.min(32767).to_le_bytes();
    match f.kind {
        Kind::Data => {
            out.extend_from_slice(&[0x08, retry]);
            out.extend_from_slice(&duration);
            out.extend_from_slice(&ra);
            out.extend_from_slice(&address(f.src));
            out.extend_from_slice(&BSSID);
            out.extend_from_slice(&((f.seq & 0x0fff) << 4).to_le_bytes());
            out.extend_from_slice(&[0xaa, 0xaa, 0x03, 0, 0, 0, 0x08, 0x00]);
        }
        Kind::Ack | Kind::Cts => {
            let subtype = if f.kind == Kind::Ack { 0xd4 } else { 0xc4 };
            out.extend_from_slice(&[subtype, 0]);
            out.extend_from_slice(&duration);
            out.extend_from_slice(&ra);
        }
        Kind::Rts => {
            out.extend_from_slice(&[0xb4, retry]);
            out.extend_from_slice(&duration);
            out.extend_from_slice(&ra);
            out.extend_from_slice(&address(f.src));
        }
        Kind::BlockAckReq | Kind::BlockAck { .. } => {
            let subtype = if f.kind == Kind::BlockAckReq {
                0x84
            } else {
                0x94
            };
            out.extend_from_slice(&[subtype, retry]);
            out.extend_from_slice(&duration);
            out.extend_from_slice(&ra);
            out.extend_from_slice(&address(f.src));
            // BAR/BA control: compressed bitmap, TID 0 (AC_BE's user priority 0).
            out.extend_from_slice(&0x0004u16.to_le_bytes());
            out.extend_from_slice(&((f.seq & 0x0fff) << 4).to_le_bytes());
            if let Kind::BlockAck { bitmap } = f.kind {
                out.extend_from_slice(&bitmap.to_le_bytes());
            }
        }
    }
}

/// The centre frequency of `channel`, MHz, by IEEE 802.11-2016's channel numbering: 5 GHz
/// channels (the OFDM PHY, 802.11a) at 5000 + 5 * channel, 2.4 GHz ones (DSSS/CCK, 802.11b) at
/// 2407 + 5 * channel, channel 14 at 2484. airtcp's channels are labels: any number maps by the
/// same rule.
pub fn channel_mhz(ofdm: bool, channel: u32) -> u16 {
    let mhz = match (ofdm, channel) {
        (true, c) => 5000 + 5 * u64::from(c),
        (false, 14) => 2484,
        (false, c) => 2407 + 5 * u64::from(c),
    };
    mhz.min(u64::from(u16::MAX)) as u16
}
