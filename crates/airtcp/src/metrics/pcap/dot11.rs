//! 802.11 frames after a radiotap header, as a monitor-mode capture shows them.
//!
//! - Radiotap (<https://www.radiotap.org>): version 0, then the fields in the order of their
//!   bits, each aligned to its size from the header's start: Flags (bit 1), Rate (bit 2, 500
//!   kbit/s units; non-HT frames only), Channel (bit 3: frequency in MHz and flags, 2-byte
//!   aligned), dBm antenna signal (bit 5; only on frames a radio received), MCS (bit 19; HT
//!   frames) and A-MPDU status (bit 20; the MPDUs of an A-MPDU). No FCS follows the frames.
//! - 802.11 (IEEE 802.11-2016 §9.3): data frames with the three addresses of an IBSS (receiver,
//!   transmitter, BSSID), the Retry bit, the duration field and a sequence number, then LLC/SNAP
//!   (AA AA 03 00 00 00, EtherType 0x0800) and the IPv4 packet; QoS data frames the same with
//!   the QoS Control field after the sequence number; ACK and CTS (receiver address), RTS
//!   (receiver and transmitter; the Retry bit on a retried RTS), compressed BlockAckReq and
//!   Block Ack.
//!
//! A radio's address is 02:00:00:00:hh:ll (locally administered) from its index; the BSSID is
//! 02:00:00:00:ff:ff for every radio (one ad-hoc network).

/// What a frame is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Data; its IPv4 packet follows the header.
    Data,
    /// QoS data, TID 0 (user priority 0, AC_BE): a frame sent under a Block Ack agreement, alone
    /// or as an MPDU of an A-MPDU (802.11n sends A-MPDUs of QoS data only, §10.13.1); its IPv4
    /// packet follows the header.
    QosData,
    /// QoS data carrying an A-MSDU (the QoS Control field's A-MSDU Present bit): its subframes
    /// follow the header, each from [`amsdu_subframe`] (§9.3.2.2).
    QosAmsdu,
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

/// How a frame was modulated: what its radiotap header says of the rate, and part of the
/// channel flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phy {
    /// DSSS/CCK (802.11b), at the header's `rate_bps`.
    Dsss,
    /// OFDM (802.11a, and an 802.11n radio's non-HT frames), at the header's `rate_bps`.
    Ofdm,
    /// An HT MCS (802.11n): the radiotap MCS field in place of the Rate field, which has no
    /// value for most HT rates (72.2 Mbit/s is not a multiple of 500 kbit/s).
    Ht(Mcs),
}

/// An HT frame's MCS, channel width and guard interval (radiotap's MCS field).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mcs {
    /// MCS index, 0-76.
    pub index: u8,
    /// 40 MHz rather than 20.
    pub bw40: bool,
    /// The 400-ns guard interval rather than the 800-ns one.
    pub short_gi: bool,
}

/// The A-MPDU an MPDU came in (radiotap's A-MPDU status field).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AmpduStatus {
    /// Shared by the records of one A-MPDU and by no other A-MPDU's in the file.
    pub reference: u32,
    /// The A-MPDU's last MPDU.
    pub last: bool,
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
    /// Sequence number (data frames; the starting one of Block Ack frames).
    pub seq: u16,
    /// Retry bit.
    pub retry: bool,
    /// Rate, bit/s (written for non-HT frames).
    pub rate_bps: u64,
    /// Modulation.
    pub phy: Phy,
    /// Channel centre frequency, MHz.
    pub freq_mhz: u16,
    /// The channel is in the 5 GHz band (else 2.4 GHz), for the channel flags.
    pub ghz5: bool,
    /// Signal at the capturing radio, dBm (frames it received; `None` for its own).
    pub signal_dbm: Option<i8>,
    /// The MPDU of an A-MPDU (`None`: a frame alone in its PPDU).
    pub ampdu: Option<AmpduStatus>,
}

/// LLC/SNAP before an IPv4 packet: AA AA 03, OUI 00 00 00, EtherType 0x0800.
const LLC_SNAP_IPV4: [u8; 8] = [0xaa, 0xaa, 0x03, 0, 0, 0, 0x08, 0x00];

/// Appends the header of an A-MSDU subframe of data frame `f` and its MSDU's LLC/SNAP header:
/// DA and SA (in an IBSS the frame's receiver and transmitter), the MSDU's length, then
/// LLC/SNAP. The packet follows; [`set_amsdu_length`] then writes the length, which it gives.
pub fn amsdu_subframe(out: &mut Vec<u8>, f: &Dot11) -> AmsduSubframe {
    out.extend_from_slice(&f.dst.map_or(BROADCAST, address));
    out.extend_from_slice(&address(f.src));
    let length_at = out.len();
    out.extend_from_slice(&[0, 0]);
    out.extend_from_slice(&LLC_SNAP_IPV4);
    AmsduSubframe { length_at }
}

/// Where an A-MSDU subframe's length field is, in the buffer [`amsdu_subframe`] wrote it to.
#[derive(Debug, Clone, Copy)]
pub struct AmsduSubframe {
    length_at: usize,
}

/// Writes the subframe's length (big-endian): its LLC/SNAP header and `packet_bytes` of IPv4.
pub fn set_amsdu_length(out: &mut [u8], at: AmsduSubframe, packet_bytes: usize) {
    let msdu = (packet_bytes + LLC_SNAP_IPV4.len()).min(usize::from(u16::MAX)) as u16;
    out[at.length_at..at.length_at + 2].copy_from_slice(&msdu.to_be_bytes());
}

/// The broadcast address.
const BROADCAST: [u8; 6] = [0xff; 6];
/// The IBSS's BSSID.
const BSSID: [u8; 6] = [0x02, 0, 0, 0, 0xff, 0xff];

/// Radiotap's presence bits (radiotap.org, "Defined fields").
const PRESENT_FLAGS: u32 = 1 << 1;
const PRESENT_RATE: u32 = 1 << 2;
const PRESENT_CHANNEL: u32 = 1 << 3;
const PRESENT_ANTENNA_SIGNAL: u32 = 1 << 5;
const PRESENT_MCS: u32 = 1 << 19;
const PRESENT_AMPDU_STATUS: u32 = 1 << 20;

/// Channel flags (radiotap.org/fields/Channel): CCK, OFDM, 2 GHz, 5 GHz, dynamic CCK-OFDM.
const CHANNEL_CCK: u16 = 0x0020;
const CHANNEL_OFDM: u16 = 0x0040;
const CHANNEL_2GHZ: u16 = 0x0080;
const CHANNEL_5GHZ: u16 = 0x0100;
const CHANNEL_DYNAMIC: u16 = 0x0400;

/// MCS field, "known" (radiotap.org/fields/MCS): bandwidth, MCS index, guard interval, HT
/// format and FEC type are given. airtcp's HT frames are HT-mixed (format bit 0) and BCC-coded
/// (FEC bit 0), without STBC, which is left unknown.
const MCS_KNOWN: u8 = 0x01 | 0x02 | 0x04 | 0x08 | 0x10;
/// MCS field flags: bandwidth 40 (value 1 in bits 0-1; 20 MHz is 0), short guard interval (bit 2).
const MCS_BW40: u8 = 0x01;
const MCS_SHORT_GI: u8 = 0x04;

/// A-MPDU status flags (radiotap.org/fields/A-MPDU%20status): "last subframe is known" and
/// "this frame is the last subframe".
const AMPDU_LAST_KNOWN: u16 = 0x0004;
const AMPDU_IS_LAST: u16 = 0x0008;

/// The MAC address of radio `r`.
pub fn address(r: u32) -> [u8; 6] {
    let [_, _, h, l] = r.to_be_bytes();
    [0x02, 0, 0, 0, h, l]
}

/// Pads `out` with zeros until the radiotap header that starts at `start` is a multiple of
/// `to` bytes long: radiotap aligns each field to its own size, counted from the header's
/// start (radiotap.org, "Alignment in Radiotap").
fn align(out: &mut Vec<u8>, start: usize, to: usize) {
    while !(out.len() - start).is_multiple_of(to) {
        out.push(0);
    }
}

/// The radiotap channel flags of a frame: mac80211's choice (`ieee80211_add_rx_radiotap_header`)
/// so that the files read as a Linux monitor interface's do: OFDM + 5 GHz for every frame in the
/// 5 GHz band; in the 2.4 GHz band CCK for DSSS/CCK frames, OFDM for non-HT OFDM ones, dynamic
/// CCK-OFDM for HT ones.
fn channel_flags(ghz5: bool, phy: Phy) -> u16 {
    match (ghz5, phy) {
        (true, _) => CHANNEL_OFDM | CHANNEL_5GHZ,
        (false, Phy::Dsss) => CHANNEL_CCK | CHANNEL_2GHZ,
        (false, Phy::Ofdm) => CHANNEL_OFDM | CHANNEL_2GHZ,
        (false, Phy::Ht(_)) => CHANNEL_DYNAMIC | CHANNEL_2GHZ,
    }
}

/// Appends the radiotap header and the 802.11 header of `f` to `out` (for a data frame, the
/// caller appends the IPv4 packet after it).
pub fn frame(out: &mut Vec<u8>, f: &Dot11) {
    radiotap(out, f);
    mac_header(out, f);
}

/// Appends the radiotap header of `f`.
fn radiotap(out: &mut Vec<u8>, f: &Dot11) {
    let start = out.len();
    let mcs = match f.phy {
        Phy::Ht(m) => Some(m),
        Phy::Dsss | Phy::Ofdm => None,
    };
    let mut present = PRESENT_FLAGS | PRESENT_CHANNEL;
    if mcs.is_none() {
        present |= PRESENT_RATE;
    }
    if f.signal_dbm.is_some() {
        present |= PRESENT_ANTENNA_SIGNAL;
    }
    if mcs.is_some() {
        present |= PRESENT_MCS;
    }
    if f.ampdu.is_some() {
        present |= PRESENT_AMPDU_STATUS;
    }
    // Version 0, padding, the length (set below), the presence bits.
    out.extend_from_slice(&[0, 0, 0, 0]);
    out.extend_from_slice(&present.to_le_bytes());
    // Flags: none (no FCS at the end, long preamble).
    out.push(0);
    if mcs.is_none() {
        out.push((f.rate_bps / 500_000).min(255) as u8);
    }
    align(out, start, 2);
    out.extend_from_slice(&f.freq_mhz.to_le_bytes());
    out.extend_from_slice(&channel_flags(f.ghz5, f.phy).to_le_bytes());
    if let Some(s) = f.signal_dbm {
        out.push(s as u8);
    }
    if let Some(m) = mcs {
        // Three bytes, aligned to 1: known, flags, MCS index.
        let flags = if m.bw40 { MCS_BW40 } else { 0 } | if m.short_gi { MCS_SHORT_GI } else { 0 };
        out.extend_from_slice(&[MCS_KNOWN, flags, m.index]);
    }
    if let Some(a) = f.ampdu {
        // Eight bytes, aligned to 4: reference number, flags, delimiter CRC, reserved.
        align(out, start, 4);
        let flags = AMPDU_LAST_KNOWN | if a.last { AMPDU_IS_LAST } else { 0 };
        out.extend_from_slice(&a.reference.to_le_bytes());
        out.extend_from_slice(&flags.to_le_bytes());
        out.extend_from_slice(&[0, 0]);
    }
    let len = (out.len() - start) as u16;
    out[start + 2..start + 4].copy_from_slice(&len.to_le_bytes());
}

/// Appends the 802.11 header of `f` (and LLC/SNAP for a data frame).
fn mac_header(out: &mut Vec<u8>, f: &Dot11) {
    let ra = f.dst.map_or(BROADCAST, address);
    let retry = if f.retry { 0x08 } else { 0 };
    let duration = f.duration_us.min(32767).to_le_bytes();
    match f.kind {
        Kind::Data | Kind::QosData | Kind::QosAmsdu => {
            // Type data; subtype 0 (Data) or 8 (QoS Data).
            let fc = if f.kind == Kind::Data { 0x08 } else { 0x88 };
            out.extend_from_slice(&[fc, retry]);
            out.extend_from_slice(&duration);
            out.extend_from_slice(&ra);
            out.extend_from_slice(&address(f.src));
            out.extend_from_slice(&BSSID);
            out.extend_from_slice(&((f.seq & 0x0fff) << 4).to_le_bytes());
            match f.kind {
                // QoS Control (§9.2.4.5): TID 0, Ack Policy 00 (Normal Ack, which in an A-MPDU
                // means an implicit Block Ack request), no A-MSDU, TXOP limit 0.
                Kind::QosData => out.extend_from_slice(&[0, 0]),
                // The same with A-MSDU Present (bit 7); the subframes carry the LLC/SNAP headers.
                Kind::QosAmsdu => {
                    out.extend_from_slice(&[0x80, 0]);
                    return;
                }
                _ => {}
            }
            out.extend_from_slice(&LLC_SNAP_IPV4);
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
/// channels (802.11a, 802.11n in its default band) at 5000 + 5 * channel, 2.4 GHz ones (802.11b,
/// 802.11n with `ht.band: 2.4GHz`) at 2407 + 5 * channel, channel 14 at 2484. airtcp's channels
/// are labels: any number maps by the same rule.
pub fn channel_mhz(ghz5: bool, channel: u32) -> u16 {
    let mhz = match (ghz5, channel) {
        (true, c) => 5000 + 5 * u64::from(c),
        (false, 14) => 2484,
        (false, c) => 2407 + 5 * u64::from(c),
    };
    mhz.min(u64::from(u16::MAX)) as u16
}
