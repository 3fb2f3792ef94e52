//! The physical layer of a wireless radio: path loss, fading, error rates and the receiver state
//! machine with cumulative interference.
//!
//! Reception model (after ns-2's `WirelessPhy`/`Mac802_11` with ns-3's SINR-based errors):
//! - every signal reaching a radio adds its power to the energy the radio sees;
//! - an idle radio locks onto a frame whose power is at least `rx_threshold`;
//! - the locked frame is lost to a collision if at any moment its power is less than
//!   `capture_threshold` (dB) above the sum of the other signals (cumulative interference);
//! - otherwise it is received with probability `frame_success(min SINR, rate, size)` over its
//!   duration, SINR counting noise and all other signals;
//! - the radio is busy (clear-channel assessment) while it transmits, while it is locked onto a
//!   frame, while a frame it could have locked onto (at least `rx_threshold`) is arriving though
//!   it did not lock onto it (it was transmitting or receiving another), or while the total
//!   energy is at least `cs_threshold`. The third is ns-3's: a PPDU it drops (`TXING`, `RXING`)
//!   holds CCA busy at its CCA sensitivity, -82 dBm (`PhyEntity::SwitchMaybeToCcaBusy`); in ns-2,
//!   where the receive threshold is above the carrier-sense one, it adds nothing;
//! - radios are half duplex: a radio that starts transmitting abandons the frame it was receiving,
//!   and does not lock onto frames while it transmits.

pub mod bimodal;
pub mod config;
pub mod error_rate;
pub mod fading;
pub mod holds;
pub mod ht;
pub mod ht_error;
pub mod link_error;
pub mod mobility;
pub mod ofdm;
pub mod ofdm_error;
pub mod propagation;
pub mod success_memo;

use crate::sim::Time;

/// The error curves a radio's frames follow: the standard's modulation family.
// A tag byte of its own: with the variants' tag packed into `HtConfig`'s niche, the derived
// comparison the reception path's memo makes per frame (`success_memo`) took a dozen instructions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(u8)]
pub enum ErrorModel {
    /// 802.11b DSSS/CCK ([`error_rate`]).
    #[default]
    Dsss,
    /// 802.11a OFDM, the NIST model as ns-3 implements it ([`ofdm_error`]).
    OfdmNist,
    /// 802.11n: ns-3's default table-based model ([`ht_error`]) for the radio's HT frames and
    /// its non-HT OFDM frames alike.
    HtTable(ht::HtConfig),
}

impl ErrorModel {
    /// Probability that a frame of `bytes` bytes sent at `rate_bps` is received without error at
    /// `sinr` (linear); 0 for a rate the model does not know (validation refuses such rates).
    pub fn frame_success(self, sinr: f64, rate_bps: u64, bytes: u32) -> f64 {
        match self {
            ErrorModel::Dsss => error_rate::frame_success(sinr, rate_bps, bytes),
            ErrorModel::OfdmNist => ofdm::OfdmMode::of(rate_bps)
                .map_or(0.0, |mode| ofdm_error::frame_success(&mode, sinr, bytes)),
            ErrorModel::HtTable(ht) => {
                let band = ht.band_2_4ghz();
                match ht.mode_of(rate_bps) {
                    Some(mode) => {
                        ht_error::ht_ppdu_success(&mode, ht.guard_interval, band, sinr, bytes)
                    }
                    None => {
                        ht_error::non_ht_ppdu_success(rate_bps, band, sinr, bytes).unwrap_or(0.0)
                    }
                }
            }
        }
    }

    /// Probability that the PHY preamble and headers of an A-MPDU sent at `rate_bps` are
    /// decoded at `sinr` (linear): the receiver goes on to the MPDUs only then.
    pub fn header_success(self, sinr: f64, rate_bps: u64) -> f64 {
        match self {
            ErrorModel::HtTable(ht) => ht
                .mode_of(rate_bps)
                .map_or(0.0, |mode| ht_error::ht_header_success(&mode, sinr)),
            _ => 1.0,
        }
    }

    /// Each MPDU of an A-MPDU of MPDUs of `mpdu_bytes` sent at `rate_bps`: where it lies and
    /// the probability it is decoded at `sinr` (linear), its PPDU's headers decoded, into `out`
    /// (empty for a model without aggregation).
    pub fn ampdu_mpdus(
        self,
        sinr: f64,
        rate_bps: u64,
        mpdu_bytes: &[u32],
        out: &mut Vec<ht_error::AmpduMpdu>,
    ) {
        out.clear();
        if let ErrorModel::HtTable(ht) = self {
            if let Some(mode) = ht.mode_of(rate_bps) {
                let (gi, band) = (ht.guard_interval, ht.band_2_4ghz());
                ht_error::ampdu_mpdus_into(&mode, gi, band, sinr, mpdu_bytes, out);
            }
        }
    }

    /// Probability that an MPDU of an A-MPDU sent at `rate_bps`, counted as `bits` bits (its
    /// stretch of the data field, [`ErrorModel::ampdu_mpdus`]), is decoded at `sinr` (linear).
    pub fn mpdu_success(self, sinr: f64, rate_bps: u64, bits: u64) -> f64 {
        match self {
            ErrorModel::HtTable(ht) => match (ht.mode_of(rate_bps), bits) {
                (_, 0) => 1.0,
                (Some(mode), _) => ht_error::chunk_success(mode.mcs % 8, sinr, bits),
                (None, _) => 0.0,
            },
            _ => 0.0,
        }
    }

    /// Where the data field of an A-MPDU sent at `rate_bps` starts: its PPDU's preamble and
    /// headers.
    pub fn data_field_start(self, rate_bps: u64) -> Time {
        match self {
            ErrorModel::HtTable(ht) => ht.mode_of(rate_bps).map_or(0, |m| m.preamble()),
            _ => 0,
        }
    }

    /// Probability that one payload bit sent at `rate_bps` is decoded wrongly at `sinr`
    /// (linear), after the code (OFDM); 0.5 for a rate the model does not know.
    pub fn bit_error(self, sinr: f64, rate_bps: u64) -> f64 {
        match self {
            ErrorModel::Dsss => error_rate::ber(sinr, rate_bps),
            ErrorModel::OfdmNist => ofdm::OfdmMode::of(rate_bps)
                .map_or(0.5, |mode| 1.0 - ofdm_error::chunk_success(&mode, sinr, 1)),
            // The table's one-byte chunk, as ns-3's `IdealWifiManager` asks its error model for
            // one bit (a chunk of at least a byte).
            ErrorModel::HtTable(ht) => {
                let table = match ht.mode_of(rate_bps) {
                    Some(mode) => Some(mode.mcs % 8),
                    None => ht_error::table_mcs_of_ofdm_rate(rate_bps),
                };
                table.map_or(0.5, |mcs| 1.0 - ht_error::chunk_success(mcs, sinr, 1))
            }
        }
    }
}

/// Identifier of a frame on the air (index into the medium's frame arena).
pub type FrameId = u32;

/// Thresholds of a receiver, in milliwatts (linear) for speed.
#[derive(Debug, Clone, Copy)]
pub struct PhyThresholds {
    /// Weakest frame the radio locks onto.
    pub rx_mw: f64,
    /// Energy that makes the channel busy.
    pub cs_mw: f64,
    /// Required ratio of the locked frame's power to the interference.
    pub capture_ratio: f64,
    /// Noise power.
    pub noise_mw: f64,
}

#[derive(Debug, Clone, Copy)]
struct Signal {
    frame: FrameId,
    power_mw: f64,
}

/// A frame the radio is locked onto.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reception {
    /// The frame.
    pub frame: FrameId,
    /// Its received power.
    pub power_mw: f64,
    /// Lowest SINR seen so far.
    pub min_sinr: f64,
    /// Lost to interference (capture condition violated) or abandoned for a transmission.
    pub collided: bool,
}

/// What a radio made of a signal starting to arrive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arrival {
    /// Below the receive threshold: energy only.
    Weak,
    /// The radio locked onto it.
    Locked,
    /// Strong enough, but the radio was locked onto another frame.
    WhileReceiving,
    /// Strong enough, but the radio was transmitting.
    WhileTransmitting,
}

/// Receiver state of one radio.
#[derive(Debug, Clone)]
pub struct Phy {
    th: PhyThresholds,
    signals: Vec<Signal>,
    total_mw: f64,
    /// Signals arriving at or above the receive threshold.
    strong: u32,
    rx: Option<Reception>,
    tx_end: Time,
    /// The SINR of the frame locked onto (or last received) from each change of interference
    /// on: (time, SINR), the first at the lock. What an A-MPDU's MPDUs are judged by, each over
    /// its own stretch of the frame, as ns-3 judges them. Kept only by a radio that receives
    /// A-MPDUs ([`Phy::keep_sinr_history`]): the others pay nothing for it.
    history: Option<Vec<(Time, f64)>>,
}

impl Phy {
    /// An idle radio.
    pub fn new(th: PhyThresholds) -> Self {
        Phy {
            th,
            signals: Vec::with_capacity(8),
            total_mw: 0.0,
            strong: 0,
            rx: None,
            tx_end: 0,
            history: None,
        }
    }

    /// Keeps the SINR of every reception over time, for [`Phy::min_sinr_between`].
    pub fn keep_sinr_history(&mut self) {
        self.history = Some(Vec::new());
    }

    /// The weakest signal the radio locks onto (receive threshold), mW.
    pub fn rx_mw(&self) -> f64 {
        self.th.rx_mw
    }

    /// Noise power, mW.
    pub fn noise_mw(&self) -> f64 {
        self.th.noise_mw
    }

    /// Clear-channel assessment: whether the radio senses the medium busy at `now`.
    pub fn busy(&self, now: Time) -> bool {
        now < self.tx_end || self.strong > 0 || self.total_mw >= self.th.cs_mw
    }

    /// Whether the radio is transmitting at `now`.
    pub fn transmitting(&self, now: Time) -> bool {
        now < self.tx_end
    }

    /// The frame being received, if any.
    pub fn reception(&self) -> Option<&Reception> {
        self.rx.as_ref()
    }

    /// The radio starts transmitting until `end`; a reception in progress is lost.
    pub fn start_transmission(&mut self, end: Time) {
        self.tx_end = end;
        if let Some(rx) = self.rx.as_mut() {
            rx.collided = true;
        }
    }

    /// A signal starts arriving; says what the radio made of it.
    #[inline]
    pub fn signal_start(&mut self, now: Time, frame: FrameId, power_mw: f64) -> Arrival {
        self.signals.push(Signal { frame, power_mw });
        self.total_mw += power_mw;
        let strong = power_mw >= self.th.rx_mw;
        self.strong += strong as u32;
        if let Some(rx) = self.rx {
            self.update_reception(now, rx.frame, rx.power_mw);
            return if strong {
                Arrival::WhileReceiving
            } else {
                Arrival::Weak
            };
        }
        if !strong {
            return Arrival::Weak;
        }
        if self.transmitting(now) {
            return Arrival::WhileTransmitting;
        }
        self.rx = Some(Reception {
            frame,
            power_mw,
            min_sinr: f64::INFINITY,
            collided: false,
        });
        if let Some(h) = self.history.as_mut() {
            h.clear();
        }
        self.update_reception(now, frame, power_mw);
        Arrival::Locked
    }

    /// A signal stops arriving at `now`. Returns the reception if it was the frame the radio was
    /// locked on.
    #[inline]
    pub fn signal_end(&mut self, now: Time, frame: FrameId) -> Option<Reception> {
        if let Some(i) = self.signals.iter().position(|s| s.frame == frame) {
            let s = self.signals.swap_remove(i);
            self.strong -= (s.power_mw >= self.th.rx_mw) as u32;
        }
        // Re-sum instead of subtracting, so rounding never leaves phantom energy behind.
        self.total_mw = self.signals.iter().map(|s| s.power_mw).sum();
        match self.rx {
            Some(rx) if rx.frame == frame => {
                self.rx = None;
                Some(rx)
            }
            Some(rx) => {
                if self.history.is_some() {
                    // An interferer left: the SINR rises (the lowest so far stays).
                    let interference = (self.total_mw - rx.power_mw).max(0.0);
                    self.record_sinr(now, rx.power_mw / (self.th.noise_mw + interference));
                }
                None
            }
            None => None,
        }
    }

    /// When the radio locked onto the frame it last received: the first entry of its SINR
    /// history; 0 unless it keeps the history (then [`Phy::min_sinr_between`] reads nothing
    /// and the time does not matter). Not a field of [`Reception`]: every radio's reception
    /// path copies that, and only A-MPDUs need the time.
    pub fn locked_at(&self) -> Time {
        let history = self.history.as_deref().unwrap_or_default();
        history.first().map_or(0, |&(at, _)| at)
    }

    /// The lowest SINR of the frame last locked onto over [`from`, `to`) (times at this radio):
    /// what one MPDU of an A-MPDU met. Read after [`Phy::signal_end`] handed the reception over;
    /// infinite unless the radio keeps the history.
    pub fn min_sinr_between(&self, from: Time, to: Time) -> f64 {
        let history = self.history.as_deref().unwrap_or_default();
        let mut min = f64::INFINITY;
        for (i, &(at, sinr)) in history.iter().enumerate() {
            let until = history.get(i + 1).map_or(Time::MAX, |&(next, _)| next);
            if at < to && until > from {
                min = min.min(sinr);
            }
        }
        min
    }

    fn update_reception(&mut self, now: Time, frame: FrameId, power_mw: f64) {
        let interference = (self.total_mw - power_mw).max(0.0);
        let sinr = power_mw / (self.th.noise_mw + interference);
        let rx = self.rx.as_mut().expect("locked");
        debug_assert_eq!(rx.frame, frame);
        rx.min_sinr = rx.min_sinr.min(sinr);
        if power_mw < self.th.capture_ratio * interference {
            rx.collided = true;
        }
        // After the reception's update: a push before it made LLVM reload the reception (and
        // not fold the first minimum against infinity) on every radio's path.
        if self.history.is_some() {
            self.record_sinr(now, sinr);
        }
    }

    /// Appends to the SINR history (a radio that keeps one). Out of line: the other radios'
    /// reception path stays as small as it was without the history.
    #[inline(never)]
    fn record_sinr(&mut self, now: Time, sinr: f64) {
        if let Some(h) = self.history.as_mut() {
            h.push((now, sinr));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn phy() -> Phy {
        Phy::new(PhyThresholds {
            rx_mw: 1.0,
            cs_mw: 0.1,
            capture_ratio: 10.0,
            noise_mw: 1e-6,
        })
    }

    #[test]
    fn a_lone_frame_is_received() {
        let mut p = phy();
        p.signal_start(0, 7, 5.0);
        assert!(p.busy(0));
        let rx = p.signal_end(9, 7).unwrap();
        assert!(!rx.collided);
        assert!(rx.min_sinr > 1e6);
        assert!(!p.busy(1));
    }

    #[test]
    fn a_strong_frame_captures_over_a_weak_one() {
        let mut p = phy();
        p.signal_start(0, 1, 100.0);
        p.signal_start(1, 2, 5.0); // 13 dB weaker
        assert!(!p.signal_end(9, 1).unwrap().collided);
        // The weak frame was never locked on.
        assert_eq!(p.signal_end(9, 2), None);
    }

    #[test]
    fn comparable_frames_collide() {
        let mut p = phy();
        p.signal_start(0, 1, 10.0);
        p.signal_start(1, 2, 5.0);
        assert!(p.signal_end(9, 1).unwrap().collided);
    }

    #[test]
    fn interference_adds_up() {
        let mut p = phy();
        p.signal_start(0, 1, 100.0);
        // Each interferer alone is 10.5 dB down, together 7.5 dB: collision.
        p.signal_start(1, 2, 8.9);
        p.signal_start(2, 3, 8.9);
        assert!(p.signal_end(9, 1).unwrap().collided);
    }

    #[test]
    fn energy_below_the_receive_threshold_still_makes_the_channel_busy() {
        let mut p = phy();
        p.signal_start(0, 1, 0.5);
        assert!(p.reception().is_none());
        assert!(p.busy(0));
        p.signal_end(9, 1);
        assert!(!p.busy(0));
    }

    #[test]
    fn transmitting_abandons_a_reception_and_ignores_new_frames() {
        let mut p = phy();
        p.signal_start(0, 1, 5.0);
        p.start_transmission(100);
        assert!(p.signal_end(9, 1).unwrap().collided);
        p.signal_start(10, 2, 5.0);
        assert!(p.reception().is_none());
    }
}
