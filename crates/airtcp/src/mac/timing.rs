//! DCF timing of the two PHYs airtcp has.
//!
//! 802.11b DSSS (IEEE 802.11-2016 §16.3 and Table 16-5): slot 20 us, SIFS 10 us, DIFS = SIFS + 2
//! slots = 50 us, CWmin 31, CWmax 1023. PLCP preamble and header: 192 us (long preamble, all at
//! 1 Mbps) or 96 us (short). A frame lasts preamble + ceil(8 bytes / rate) microseconds.
//!
//! 802.11a OFDM (§17.3.2.4, §17.4.4, Table 17-21): slot 9 us, SIFS 16 us, DIFS 34 us, CWmin 15,
//! CWmax 1023. A frame lasts the preamble and SIGNAL (16 + 4 us) and then
//! ceil((16 + 8 bytes + 6) / N_DBPS) symbols of 4 us (SERVICE, the bytes and the tail; N_DBPS =
//! rate x 4 us). A control response goes at the highest mandatory rate (6, 12, 24 Mbps) not
//! above the rate of the frame it answers ([`crate::phy::ofdm::control_rate`]).
//!
//! 802.11n HT (§19; `phy::ht`): 802.11a's timing at 5 GHz, ERP's at 2.4 GHz (slot 20 us, SIFS
//! 10 us, as ns-3 3.44 sets 802.11n up there, and a 6-us signal extension after every OFDM
//! frame). Its data frames are QoS data, so a station waits AIFS[AC_BE] = SIFS + 3 slots (43 us
//! at 5 GHz; §10.22.2.4, Table 9-137's AIFSN 3, ns-3's EDCA default) where a DCF station waits
//! DIFS; CWmin 15, CWmax 1023. A data frame at an HT rate is an HT-mixed PPDU
//! ([`crate::phy::ht::HtMode::airtime`]); its control response goes at the mandatory rate below
//! its non-HT reference rate. EIFS is SIFS + ns-3's EstimatedAckTxTime (44 us at 5 GHz; 304 us at
//! 2.4 GHz, which ns-3 keeps from its 802.11b set-up) + AIFS.
//!
//! Both: ACK and CTS are 14 bytes, RTS 20 bytes. EIFS = SIFS + ACK time at the lowest rate + DIFS
//! (§10.3.2.3.7): 364 us (11b, long preamble), 94 us (11a).

use super::config::{AckRate, Preamble};
use crate::phy::ht::{Band, HtConfig};
use crate::phy::ofdm;
use crate::sim::time::MICROS;
use crate::sim::Time;

/// Bytes of an ACK frame.
pub const ACK_BYTES: u32 = 14;
/// Bytes of a CTS frame.
pub const CTS_BYTES: u32 = 14;
/// Bytes of an RTS frame.
pub const RTS_BYTES: u32 = 20;

/// The rates 802.11b offers, bit/s.
pub const DOT11B_RATES: [u64; 4] = [1_000_000, 2_000_000, 5_500_000, 11_000_000];

/// The slot time of 802.11b's DSSS PHY (IEEE 802.11-2016 Table 16-4).
pub const DOT11B_SLOT: Time = 20 * MICROS;

/// The slot time of 802.11a's OFDM PHY in 20 MHz channels (IEEE 802.11-2016 Table 17-21).
pub const DOT11A_SLOT: Time = 9 * MICROS;

/// DCF timing of one radio.
#[derive(Debug, Clone, Copy)]
pub struct Timing {
    /// Slot time.
    pub slot: Time,
    /// Short interframe space.
    pub sifs: Time,
    /// DCF interframe space.
    pub difs: Time,
    /// Extended interframe space (after an erroneous reception).
    pub eifs: Time,
    /// PLCP preamble + header duration.
    pub plcp: Time,
    /// Minimum contention window.
    pub cw_min: u32,
    /// Maximum contention window.
    pub cw_max: u32,
    /// Rate of data frames.
    pub data_rate: u64,
    /// Rate of control frames and broadcasts.
    pub basic_rate: u64,
    /// How the rate of an ACK follows the rate of the frame it answers.
    pub ack: AckRate,
    /// OFDM (802.11a) symbols rather than DSSS microseconds.
    pub ofdm: bool,
    /// 802.11n: the HT PHY (data frames at its MCS rates are HT-mixed PPDUs).
    pub ht: Option<HtConfig>,
}

impl Timing {
    /// 802.11b with the given rates and preamble.
    pub fn dot11b(data_rate: u64, basic_rate: u64, preamble: Preamble) -> Self {
        let slot = DOT11B_SLOT;
        let sifs = 10 * MICROS;
        let difs = sifs + 2 * slot;
        let plcp = match preamble {
            Preamble::Long => 192 * MICROS,
            Preamble::Short => 96 * MICROS,
        };
        let mut t = Timing {
            slot,
            sifs,
            difs,
            eifs: 0,
            plcp,
            cw_min: 31,
            cw_max: 1023,
            data_rate,
            basic_rate,
            ack: AckRate::Basic,
            ofdm: false,
            ht: None,
        };
        t.eifs = sifs + t.airtime(ACK_BYTES, 1_000_000) + difs;
        t
    }

    /// 802.11a with the given rates (OFDM rates, bit/s); ACKs at the control rate of the frame
    /// they answer.
    pub fn dot11a(data_rate: u64, basic_rate: u64) -> Self {
        let slot = DOT11A_SLOT;
        let sifs = 16 * MICROS;
        let difs = sifs + 2 * slot;
        let mut t = Timing {
            slot,
            sifs,
            difs,
            eifs: 0,
            plcp: 20 * MICROS,
            cw_min: 15,
            cw_max: 1023,
            data_rate,
            basic_rate,
            ack: AckRate::Control,
            ofdm: true,
            ht: None,
        };
        t.eifs = sifs + t.airtime(ACK_BYTES, ofdm::MANDATORY[0]) + difs;
        t
    }

    /// 802.11n with the given HT PHY and rates (an HT data rate, a non-HT basic rate); ACKs at
    /// the control rate of the frame they answer; AIFS[AC_BE] in place of DIFS.
    pub fn dot11n(ht: HtConfig, data_rate: u64, basic_rate: u64) -> Self {
        let (slot, sifs, ack_estimate) = match ht.band {
            Band::Ghz5 => (DOT11A_SLOT, 16 * MICROS, 44 * MICROS),
            Band::Ghz2_4 => (DOT11B_SLOT, 10 * MICROS, 304 * MICROS),
        };
        let aifs = sifs + 3 * slot;
        Timing {
            slot,
            sifs,
            difs: aifs,
            eifs: sifs + ack_estimate + aifs,
            ht: Some(ht),
            ..Timing::dot11a(data_rate, basic_rate)
        }
    }

    /// Air time of `bytes` at `rate_bps`, preamble included: whole microseconds (DSSS) or whole
    /// 4-us symbols (OFDM).
    // Always inlined, as `ack_rate_for` is: a few operations, on the DCF's send and receive
    // paths for every frame; with the HT branch LLVM stopped inlining them there.
    #[inline(always)]
    pub fn airtime(&self, bytes: u32, rate_bps: u64) -> Time {
        if let Some(ht) = self.ht {
            return Self::ht_airtime(ht, self.plcp, bytes, rate_bps);
        }
        if self.ofdm {
            let bits_per_symbol = (rate_bps * 4 / 1_000_000).max(1);
            let symbols = (16 + 8 * u64::from(bytes) + 6).div_ceil(bits_per_symbol);
            return self.plcp + symbols * 4 * MICROS;
        }
        let us = (bytes as u64 * 8 * 1_000_000).div_ceil(rate_bps);
        self.plcp + us * MICROS
    }

    /// An 802.11n radio's airtime: an HT-mixed PPDU at an HT rate, else a non-HT OFDM one (with
    /// the signal extension at 2.4 GHz). Out of line: the other standards' path stays small.
    #[inline(never)]
    fn ht_airtime(ht: HtConfig, plcp: Time, bytes: u32, rate_bps: u64) -> Time {
        if let Some(mode) = ht.mode_of(rate_bps) {
            return mode.airtime(bytes, ht.guard_interval, ht.band_2_4ghz());
        }
        let bits_per_symbol = (rate_bps * 4 / 1_000_000).max(1);
        let symbols = (16 + 8 * u64::from(bytes) + 6).div_ceil(bits_per_symbol);
        let extension = match ht.band_2_4ghz() {
            true => crate::phy::ht::SIGNAL_EXTENSION,
            false => 0,
        };
        plcp + symbols * 4 * MICROS + extension
    }

    /// Rate of the ACK that answers a data frame sent at `data_rate`.
    #[inline(always)]
    pub fn ack_rate_for(&self, data_rate: u64) -> u64 {
        match self.ack {
            AckRate::Basic => self.basic_rate,
            // Every 802.11b rate is mandatory (§16.1.1), so its control rule is the data rate.
            AckRate::Data => data_rate,
            AckRate::Control if self.ofdm => match self.ht {
                Some(ht) => Self::ht_control_rate(ht, data_rate),
                None => ofdm::control_rate(data_rate),
            },
            AckRate::Control => data_rate,
        }
    }

    /// An 802.11n radio's control rate for a data frame at `data_rate`. Out of line, as
    /// [`Timing::ht_airtime`] is: inlined, the HT mode search made `ack_time_for` too large to
    /// inline into the DCF's send and receive paths.
    #[inline(never)]
    fn ht_control_rate(ht: HtConfig, data_rate: u64) -> u64 {
        match ht.mode_of(data_rate) {
            Some(mode) => mode.control_rate(),
            None => ofdm::control_rate(data_rate),
        }
    }

    /// How long after the end of a data frame or RTS the sender waits for the start of the
    /// response: aSIFSTime + aSlotTime + aRxPHYStartDelay (IEEE 802.11-2016 10.3.2.9; the PHY
    /// preamble and header, as ns-3 takes it). A response whose reception has started by then is
    /// waited for to its end.
    pub fn response_timeout(&self) -> Time {
        self.sifs + self.slot + self.plcp
    }

    /// Air time of the ACK that answers a data frame sent at `data_rate`.
    #[inline]
    pub fn ack_time_for(&self, data_rate: u64) -> Time {
        self.airtime(ACK_BYTES, self.ack_rate_for(data_rate))
    }

    /// CTS air time.
    pub fn cts_time(&self) -> Time {
        self.airtime(CTS_BYTES, self.basic_rate)
    }

    /// RTS air time.
    pub fn rts_time(&self) -> Time {
        self.airtime(RTS_BYTES, self.basic_rate)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot11b_long_preamble_figures() {
        let t = Timing::dot11b(2_000_000, 1_000_000, Preamble::Long);
        assert_eq!(t.difs, 50 * MICROS);
        assert_eq!(t.ack_time_for(2_000_000), 304 * MICROS);
        let data = Timing {
            ack: AckRate::Data,
            ..t
        };
        assert_eq!(data.ack_time_for(2_000_000), 248 * MICROS);
        assert_eq!(data.ack_rate_for(11_000_000), 11_000_000);
        assert_eq!(t.rts_time(), 352 * MICROS);
        assert_eq!(t.eifs, 364 * MICROS);
        // 1000 B payload + 40 B TCP/IP + 36 B MAC = 1076 B at 2 Mbps.
        assert_eq!(t.airtime(1076, 2_000_000), (192 + 4304) * MICROS);
        // 11 Mbps rounds up to a whole microsecond.
        assert_eq!(t.airtime(1076, 11_000_000), (192 + 783) * MICROS);
    }

    #[test]
    fn dot11a_figures() {
        let t = Timing::dot11a(54_000_000, 6_000_000);
        assert_eq!(
            (t.slot, t.sifs, t.difs),
            (9 * MICROS, 16 * MICROS, 34 * MICROS)
        );
        assert_eq!((t.cw_min, t.cw_max), (15, 1023));
        assert_eq!(t.eifs, 94 * MICROS);
        let us = |bytes: u32, mbps: u64| t.airtime(bytes, mbps * 1_000_000) / MICROS;
        assert_eq!(us(14, 6), 44);
        assert_eq!(us(14, 24), 28);
        assert_eq!(us(1536, 54), 248);
        assert_eq!(us(1555, 54), 252);
        assert_eq!(us(1536, 6), 2072);
        // ACKs answer 54 Mbps data at 24 Mbps; CTS answers the RTS at the basic rate.
        assert_eq!(t.ack_time_for(54_000_000), 28 * MICROS);
        assert_eq!(t.rts_time(), 52 * MICROS);
        // The rule per data rate: 6 -> 6, 9 -> 6, 12 -> 12, 18 -> 12, 24 and above -> 24.
        let rule: Vec<u64> = ofdm::RATES
            .iter()
            .map(|&r| t.ack_rate_for(r) / 1_000_000)
            .collect();
        assert_eq!(rule, [6, 6, 12, 12, 24, 24, 24, 24]);
        assert_eq!(t.ack_time_for(6_000_000), 44 * MICROS);
    }
}
