//! 802.11n A-MPDU aggregation and HT-immediate Block Ack (IEEE 802.11-2016 §10.12, §10.24.7,
//! §10.24.8), the parts that are pure arithmetic: sequence numbers, how large an A-MPDU may grow,
//! and the recipient's reordering buffer. The DCF's use of them is `dcf/aggregate.rs`.
//!
//! - Sequence numbers are 12 bits (0-4095); a window is 64 of them (the compressed Block Ack's
//!   bitmap). An originator sends only MPDUs whose numbers lie in [WinStartO, WinStartO + 64),
//!   WinStartO being its oldest MPDU not yet acknowledged.
//! - An A-MPDU is a run of subframes: a 4-byte delimiter, the MPDU, and padding to a multiple of
//!   4 bytes before the next subframe (§9.7.1; ns-3's `MpduAggregator::GetSizeIfAggregated` pads
//!   every subframe but the last). It holds at most 64 MPDUs, at most `max_ampdu_bytes` (65,535
//!   for HT: the maximum A-MPDU length exponent 3, ns-3's `BE_MaxAmpduSize`), and its PPDU lasts
//!   at most aPPDUMaxTime, 5.484 ms for an HT-mixed PPDU (§19.4.3, Table 19-25).
//! - The recipient keeps a reordering buffer per originator (§10.24.7.6, the scoreboard and the
//!   buffer of §10.24.7.3 - 10.24.7.7 together): MPDUs arriving out of order wait until the ones
//!   before them arrive, or until the window moves past them (an MPDU beyond the window, or a
//!   BlockAckReq announcing a later start, when the originator has given some up); MSDUs are
//!   handed up in order. A compressed Block Ack reports, for the 64 numbers from the starting
//!   sequence number it answers, which the recipient has (received, or passed by its window).
//!
//! - An A-MSDU (§9.3.2.2, optional: `max_amsdu_bytes`) carries several MSDUs for the same
//!   recipient in one MPDU: each subframe is a 14-byte header (DA, SA, length), the MSDU (its
//!   LLC/SNAP header and packet) and padding to 4 bytes before the next one. The MPDU is sent,
//!   acknowledged, retransmitted and given up as one: its MSDUs live or die together.
//!
//! Simplifications: one traffic identifier (AC_BE) per pair of stations; the agreement exists
//! from the first frame (no ADDBA exchange: the Block Ack agreement is set up implicitly).

use serde::{Deserialize, Serialize};

use crate::sim::Time;

/// Sequence numbers are 12 bits.
pub const SEQ_MODULO: u16 = 4096;

/// The Block Ack window: 64 MPDUs (the compressed Block Ack's bitmap).
pub const WINDOW: u16 = 64;

/// Bytes of an A-MPDU subframe's delimiter.
pub const DELIMITER_BYTES: u32 = 4;

/// Bytes of an A-MSDU subframe's header: DA (6), SA (6) and length (2).
pub const AMSDU_SUBFRAME_HEADER_BYTES: u32 = 14;

/// Bytes of the LLC/SNAP header an MSDU carries before its packet (in the MAC's overhead of a
/// plain MPDU, and in each subframe of an A-MSDU).
pub const LLC_SNAP_BYTES: u32 = 8;

/// Largest A-MSDU an HT station takes (the Maximum A-MSDU Length of its HT Capabilities, the
/// larger value, Table 9-163; ns-3 caps `BE_MaxAmsduSize` there for HT PPDUs).
pub const MAX_AMSDU_BYTES: u32 = 7935;

/// Bytes of a compressed Block Ack frame: frame control, duration, RA, TA (16), BA control (2),
/// starting sequence control (2), the 8-byte bitmap and the FCS (4).
pub const BLOCK_ACK_BYTES: u32 = 32;

/// Bytes of a compressed BlockAckReq frame: 16 + BAR control (2) + starting sequence control (2)
/// + FCS (4).
pub const BLOCK_ACK_REQ_BYTES: u32 = 24;

/// aPPDUMaxTime of an HT-mixed PPDU.
pub const PPDU_MAX_TIME: Time = 5_484_000;

/// `a + k` in sequence-number space.
pub fn seq_add(a: u16, k: u16) -> u16 {
    (a + k) % SEQ_MODULO
}

/// How far `b` lies after `a` in sequence-number space (0-4095).
pub fn seq_distance(a: u16, b: u16) -> u16 {
    (b + SEQ_MODULO - a) % SEQ_MODULO
}

/// Whether `seq` lies in the window of 64 that starts at `start`.
pub fn in_window(start: u16, seq: u16) -> bool {
    seq_distance(start, seq) < WINDOW
}

/// Whether `seq` lies before `start` (in the half of the number space behind it, §10.24.7.6).
pub fn before(start: u16, seq: u16) -> bool {
    seq_distance(seq, start) > 0 && seq_distance(seq, start) < SEQ_MODULO / 2
}

/// A-MPDU aggregation of an 802.11n radio (`radio.aggregation`; absent: ns-3's defaults for
/// HT, 65,535 bytes and 64 MPDUs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AggregationConfig {
    /// Largest A-MPDU, bytes (ns-3's `BE_MaxAmpduSize`); 0: no aggregation and no Block Ack
    /// agreement, every data frame sent alone and retried up to the retry limit.
    #[serde(default = "default_max_ampdu_bytes")]
    #[schemars(transform = crate::quantity::size, range(max = 65535))]
    pub max_ampdu_bytes: u32,
    /// Most MPDUs in one A-MPDU (the Block Ack window holds 64).
    #[serde(default = "default_max_mpdus")]
    #[schemars(range(min = 1, max = 64))]
    pub max_mpdus: u32,
    /// Largest A-MSDU, bytes (ns-3's `BE_MaxAmsduSize`; 0, its default: none): packets for the
    /// same next hop share one MPDU (one MAC header, FCS and sequence number), each in a
    /// subframe with a 14-byte header, padded to 4 bytes. At most 7935, the HT maximum; needs
    /// A-MPDUs on (`max_ampdu_bytes` > 0), under whose agreement it is sent.
    #[serde(default)]
    #[schemars(transform = crate::quantity::size, range(max = 7935))]
    #[schemars(extend("x-omit-default" = true))]
    pub max_amsdu_bytes: u32,
}

impl Default for AggregationConfig {
    fn default() -> Self {
        AggregationConfig {
            max_ampdu_bytes: default_max_ampdu_bytes(),
            max_mpdus: default_max_mpdus(),
            max_amsdu_bytes: 0,
        }
    }
}

impl AggregationConfig {
    /// The checks serde's types do not make: field, message.
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        if self.max_ampdu_bytes > 65_535 {
            return Err((
                "max_ampdu_bytes",
                format!(
                    "an HT A-MPDU holds at most 65535 bytes; got {}",
                    self.max_ampdu_bytes
                ),
            ));
        }
        if !(1..=u32::from(WINDOW)).contains(&self.max_mpdus) {
            return Err((
                "max_mpdus",
                format!(
                    "must be 1-64 (the Block Ack window); got {}",
                    self.max_mpdus
                ),
            ));
        }
        if self.max_amsdu_bytes > MAX_AMSDU_BYTES {
            return Err((
                "max_amsdu_bytes",
                format!(
                    "an HT A-MSDU holds at most {MAX_AMSDU_BYTES} bytes; got {}",
                    self.max_amsdu_bytes
                ),
            ));
        }
        if self.max_amsdu_bytes > 0 && self.max_ampdu_bytes == 0 {
            return Err((
                "max_amsdu_bytes",
                "A-MSDUs are sent under the Block Ack agreement, which max_ampdu_bytes 0 turns off"
                    .into(),
            ));
        }
        Ok(())
    }

    /// What the MAC runs with (`None`: no aggregation).
    pub fn params(&self) -> Option<AggregationParams> {
        (self.max_ampdu_bytes > 0).then_some(AggregationParams {
            max_ampdu_bytes: self.max_ampdu_bytes,
            max_mpdus: self.max_mpdus as u16,
            max_amsdu_bytes: self.max_amsdu_bytes,
        })
    }
}

fn default_max_ampdu_bytes() -> u32 {
    65_535
}

fn default_max_mpdus() -> u32 {
    u32::from(WINDOW)
}

/// The aggregation a radio does, as the MAC runs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AggregationParams {
    /// Largest A-MPDU, bytes.
    pub max_ampdu_bytes: u32,
    /// Most MPDUs in an A-MPDU (at most the window).
    pub max_mpdus: u16,
    /// Largest A-MSDU, bytes (0: none).
    pub max_amsdu_bytes: u32,
}

impl AggregationParams {
    /// The A-MPDU's length once an MPDU of `mpdu_bytes` joins one of `ampdu_bytes` (0: the first
    /// MPDU): the previous subframe padded to 4 bytes, then a delimiter and the MPDU.
    pub fn grown(ampdu_bytes: u32, mpdu_bytes: u32) -> u32 {
        let padded = ampdu_bytes.next_multiple_of(4);
        padded + DELIMITER_BYTES + mpdu_bytes
    }

    /// The A-MSDU's length once an MSDU of `msdu_bytes` (the packet and its LLC/SNAP header)
    /// joins one of `amsdu_bytes` (0: the first MSDU): the previous subframe padded to 4 bytes,
    /// then the subframe header and the MSDU (ns-3's `MsduAggregator::GetSizeIfAggregated`).
    pub fn amsdu_grown(amsdu_bytes: u32, msdu_bytes: u32) -> u32 {
        amsdu_bytes.next_multiple_of(4) + AMSDU_SUBFRAME_HEADER_BYTES + msdu_bytes
    }
}

/// The slot of sequence number `seq` in a reordering buffer.
fn slot_of(seq: u16) -> usize {
    usize::from(seq % WINDOW)
}

/// The recipient's side of one agreement: its window and the MPDUs it holds out of order.
#[derive(Debug, Clone)]
pub struct Reorder<T> {
    /// WinStartR: the oldest sequence number not yet handed up.
    start: u16,
    /// The MPDUs held, each at its sequence number modulo 64 (the window's 64 numbers fall in
    /// distinct slots, so the window moves without moving the MPDUs).
    held: Vec<Option<T>>,
    /// How many of `held` are `Some`.
    count: usize,
}

/// What became of an MPDU the recipient decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arrival {
    /// New: held in order (and maybe handed up with the MPDUs behind it).
    New,
    /// The recipient had it already (its acknowledgement was lost): not handed up twice.
    Duplicate,
}

impl<T> Default for Reorder<T> {
    fn default() -> Self {
        Reorder {
            start: 0,
            held: (0..WINDOW).map(|_| None).collect(),
            count: 0,
        }
    }
}

impl<T> Reorder<T> {
    /// The window's start (the next sequence number to hand up).
    pub fn start(&self) -> u16 {
        self.start
    }

    /// MPDUs held out of order.
    pub fn held(&self) -> usize {
        self.count
    }

    /// Visits the MPDUs held.
    pub fn for_each(&self, f: &mut dyn FnMut(&T)) {
        self.held.iter().flatten().for_each(f);
    }

    /// An MPDU numbered `seq` was decoded. Beyond the window, the window first moves so that
    /// `seq` is its last number (§10.24.7.6 c), handing up what it passes; then whatever is in
    /// order from the start goes to `up`.
    pub fn receive(&mut self, seq: u16, mpdu: T, up: &mut impl FnMut(T)) -> Arrival {
        if before(self.start, seq) {
            return Arrival::Duplicate;
        }
        if !in_window(self.start, seq) {
            let new_start = seq_add(seq, SEQ_MODULO - (WINDOW - 1));
            self.advance_to(new_start, up);
        }
        let slot = &mut self.held[slot_of(seq)];
        if slot.is_some() {
            return Arrival::Duplicate;
        }
        *slot = Some(mpdu);
        self.count += 1;
        self.release_in_order(up);
        Arrival::New
    }

    /// A BlockAckReq starting at `ssn`: the originator no longer sends what lies before it, so the
    /// window moves there (handing up what it passes) and what is in order follows
    /// (§10.24.7.6 b). An `ssn` not ahead of the window changes nothing.
    pub fn block_ack_req(&mut self, ssn: u16, up: &mut impl FnMut(T)) {
        if before(self.start, ssn) || ssn == self.start {
            return;
        }
        self.advance_to(ssn, up);
        self.release_in_order(up);
    }

    /// The compressed Block Ack's bitmap for the 64 numbers from `ssn`: bit k says the recipient
    /// has `ssn + k` (held, or passed by its window).
    pub fn bitmap(&self, ssn: u16) -> u64 {
        let mut bits = 0u64;
        for k in 0..WINDOW {
            let seq = seq_add(ssn, k);
            let has = if before(self.start, seq) {
                true
            } else if in_window(self.start, seq) {
                self.held[slot_of(seq)].is_some()
            } else {
                false
            };
            if has {
                bits |= 1 << k;
            }
        }
        bits
    }

    /// Moves the window's start to `new_start`, handing up the MPDUs it passes, in order.
    fn advance_to(&mut self, new_start: u16, up: &mut impl FnMut(T)) {
        let steps = seq_distance(self.start, new_start);
        for _ in 0..steps.min(WINDOW) {
            self.shift(up);
        }
        // Past a whole window every slot is empty already.
        self.start = new_start;
    }

    /// Hands up the MPDUs in order from the start.
    fn release_in_order(&mut self, up: &mut impl FnMut(T)) {
        while self.held[slot_of(self.start)].is_some() {
            self.shift(up);
        }
    }

    /// Hands up the MPDU at the window's start, if there is one, and moves the start one on.
    fn shift(&mut self, up: &mut impl FnMut(T)) {
        if let Some(m) = self.held[slot_of(self.start)].take() {
            self.count -= 1;
            up(m);
        }
        self.start = seq_add(self.start, 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn receive_all(r: &mut Reorder<u16>, seqs: &[u16]) -> Vec<u16> {
        let mut up = Vec::new();
        for &s in seqs {
            r.receive(s, s, &mut |m| up.push(m));
        }
        up
    }

    #[test]
    fn sequence_arithmetic_wraps_at_4096() {
        assert_eq!(seq_add(4095, 1), 0);
        assert_eq!(seq_distance(4090, 5), 11);
        assert!(in_window(4090, 5));
        assert!(!in_window(4090, 4090 + 64 - 4096));
        assert!(before(10, 9));
        assert!(before(2, 4095));
        assert!(!before(10, 10));
        assert!(!before(10, 11));
    }

    #[test]
    fn subframes_are_padded_to_four_bytes_before_the_next() {
        // 1538-byte MPDUs: 4 + 1538 = 1542, padded to 1544 before the second.
        let one = AggregationParams::grown(0, 1538);
        assert_eq!(one, 1542);
        assert_eq!(AggregationParams::grown(one, 1538), 1544 + 1542);
    }

    #[test]
    fn in_order_mpdus_go_straight_up() {
        let mut r = Reorder::default();
        assert_eq!(receive_all(&mut r, &[0, 1, 2]), [0, 1, 2]);
        assert_eq!((r.start(), r.held()), (3, 0));
    }

    #[test]
    fn a_hole_holds_the_mpdus_behind_it_until_it_is_filled() {
        // MPDU 1 of an A-MPDU of 0..4 is lost, and comes in the next A-MPDU.
        let mut r = Reorder::default();
        assert_eq!(receive_all(&mut r, &[0, 2, 3]), [0]);
        assert_eq!(r.held(), 2);
        // The Block Ack from 0: 0, 2 and 3 received, 1 missing.
        assert_eq!(r.bitmap(0) & 0xF, 0b1101);
        assert_eq!(receive_all(&mut r, &[1, 4]), [1, 2, 3, 4]);
        assert_eq!((r.start(), r.held()), (5, 0));
    }

    #[test]
    fn a_retransmission_of_what_the_recipient_has_is_a_duplicate() {
        let mut r = Reorder::default();
        receive_all(&mut r, &[0, 2]);
        let mut up = Vec::new();
        assert_eq!(r.receive(0, 0, &mut |m| up.push(m)), Arrival::Duplicate);
        assert_eq!(r.receive(2, 2, &mut |m| up.push(m)), Arrival::Duplicate);
        assert!(up.is_empty());
        // Numbers the window has passed count as received in the bitmap.
        assert_eq!(r.bitmap(4095) & 0b111, 0b011);
    }

    #[test]
    fn a_block_ack_req_skips_what_the_originator_gave_up() {
        let mut r = Reorder::default();
        receive_all(&mut r, &[0, 2, 3]);
        let mut up = Vec::new();
        r.block_ack_req(2, &mut |m| up.push(m));
        assert_eq!(up, [2, 3]);
        assert_eq!(r.start(), 4);
        // A stale request changes nothing.
        r.block_ack_req(1, &mut |m| up.push(m));
        assert_eq!(r.start(), 4);
    }

    #[test]
    fn an_mpdu_beyond_the_window_pushes_it_forward() {
        let mut r = Reorder::default();
        receive_all(&mut r, &[0, 5]);
        // 70 is beyond [1, 65): the window becomes [7, 71), handing up 5 on the way.
        let up = receive_all(&mut r, &[70]);
        assert_eq!(up, [5]);
        assert_eq!((r.start(), r.held()), (7, 1));
    }

    #[test]
    fn the_window_wraps_around_the_sequence_space() {
        let mut r = Reorder::default();
        let seqs: Vec<u16> = (0..5000u32).map(|i| (i % 4096) as u16).collect();
        let up = receive_all(&mut r, &seqs);
        assert_eq!(up.len(), 5000);
        assert_eq!(r.start(), (5000 % 4096) as u16);
    }
}
