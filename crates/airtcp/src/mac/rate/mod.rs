//! Adaptive rate control: the data rate of each unicast attempt a radio makes, chosen per
//! neighbour from what its earlier attempts to that neighbour did (docs/rate_control.md).
//!
//! The DCF asks for the rate of every attempt to a neighbour, the first and each retry
//! ([`super::dcf::MacIo::attempt_rate`]), and reports how each data attempt ended
//! ([`super::dcf::MacIo::rate_feedback`]): acknowledged, with the SNR the addressee measured
//! (carried back in the ACK, or in the CTS for an RTS, as 802.11 stations learn it from the
//! responder and ns-3's `SnrTag` conveys it), or unanswered; and when a packet is given up.
//! Retries thus step down the rate chain as the manager says (ns-3 asks its station manager for
//! the data TX vector of every attempt as well).
//!
//! A radio's [`RateControl`] holds the manager (one state per neighbour, indexed like the
//! radio's neighbour list), the rate ladder (the standard's rates up to `radio.data_rate`,
//! lowest first), the attempts and acknowledgements per neighbour and rate (the `link_rates`
//! table), and, when asked, the time of every change of a link's rate (`metrics.trace_rates`).
//!
//! Managers: [`aarf`] (ARF and AARF, as ns-3's `ArfWifiManager` and `AarfWifiManager`),
//! [`snr_threshold`] (the highest rate whose SNR threshold the last reported SNR clears, as
//! ns-3's `IdealWifiManager`), [`minstrel`] (ns-3's `MinstrelWifiManager`) and [`minstrel_ht`]
//! (802.11n, ns-3's `MinstrelHtWifiManager`, which counts an A-MPDU's MPDUs). The static choices (`constant`, and `ideal` from the mean SNR)
//! fill the radio's rate table when the scenario is built and need no manager.

pub mod aarf;
pub mod config;
pub mod minstrel;
pub mod minstrel_ht;
pub mod snr_threshold;

use crate::sim::Time;

pub use config::RateControlConfig;

/// One per-neighbour rate-adaptation algorithm, for all of a radio's neighbours.
pub trait RateManager: std::fmt::Debug {
    /// The ladder index of the rate for the next attempt to neighbour `nb` (its slot among the
    /// radio's neighbours, `Neighbor::slot`). A manager counts a packet's failures itself, from
    /// the feedback.
    fn pick(&mut self, nb: usize) -> usize;
    /// A neighbour joins (a node came within reach), with the next slot.
    fn add_neighbour(&mut self);
    /// A data attempt to `nb` at ladder index `rate` ended at `now`: acknowledged, with the SNR
    /// (linear) the addressee measured (`Some`), or unanswered (`None`).
    fn on_data(&mut self, nb: usize, rate: usize, acked: Option<f64>, now: Time);
    /// An RTS to `nb` was answered; `snr` is the RTS's SNR at the responder (linear).
    fn on_rts_answered(&mut self, _nb: usize, _snr: f64) {}
    /// The packet to `nb` was given up at `now` (retry limit of its data frame or of its RTS).
    fn on_given_up(&mut self, _nb: usize, _now: Time) {}
    /// An A-MPDU of `mpdus` MPDUs to `nb` at ladder index `rate` ended at `now` with `acked` of
    /// them acknowledged (`snr`: what the Block Ack reported). A manager made for single frames
    /// takes it as one frame, acknowledged if any MPDU was (ns-3's managers without A-MPDU
    /// statistics see `ReportDataOk` or `ReportDataFailed` likewise).
    fn on_ampdu(&mut self, nb: usize, rate: usize, _mpdus: u32, acked: u32, snr: f64, now: Time) {
        self.on_data(nb, rate, (acked > 0).then_some(snr), now);
    }
    /// How many data attempts a packet to `nb` gets, if the manager decides that rather than the
    /// MAC's retry limit (Minstrel's retry chain).
    fn attempts_allowed(&self, _nb: usize) -> Option<u32> {
        None
    }
}

/// What the DCF reports to rate control about one neighbour.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RateFeedback {
    /// A data frame sent at `rate` bit/s was acknowledged; `snr` (linear) is what the addressee
    /// measured of it.
    Acked {
        /// The frame's rate, bit/s.
        rate: u64,
        /// Its SNR at the addressee (linear).
        snr: f64,
    },
    /// A data frame sent at `rate` bit/s was not acknowledged.
    Lost {
        /// The frame's rate, bit/s.
        rate: u64,
    },
    /// An RTS was answered; `snr` (linear) is what the responder measured of it.
    RtsAnswered {
        /// The RTS's SNR at the responder (linear).
        snr: f64,
    },
    /// The packet was given up after its retry limit.
    GivenUp,
    /// An A-MPDU of `mpdus` MPDUs sent at `rate` bit/s (802.11n aggregation): its Block Ack
    /// acknowledged `acked` of them, or none came back (`acked` 0, `snr` 0).
    Ampdu {
        /// The A-MPDU's rate, bit/s.
        rate: u64,
        /// MPDUs it carried.
        mpdus: u32,
        /// MPDUs its Block Ack acknowledged.
        acked: u32,
        /// Its SNR at the addressee (linear), as the Block Ack reports it.
        snr: f64,
    },
}

/// Attempts and acknowledgements of one link at one rate.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RateCount {
    /// Data frames sent (first attempts and retries).
    pub attempts: u64,
    /// Of which acknowledged.
    pub acked: u64,
}

/// The rate control of one radio.
#[derive(Debug)]
pub struct RateControl {
    ladder: Vec<u64>,
    manager: Box<dyn RateManager>,
    /// Neighbour-major: `counts[nb * ladder.len() + rate]`.
    counts: Vec<RateCount>,
    /// Ladder index of the latest attempt to each neighbour (`u8::MAX`: none yet).
    latest: Vec<u8>,
    /// With `metrics.trace_rates`: (time, neighbour, ladder index) of every attempt whose rate
    /// differs from the previous attempt's to the same neighbour.
    changes: Option<Vec<(Time, u32, u8)>>,
}

impl RateControl {
    /// Rate control over `ladder` (bit/s, lowest first, at most 255 rates) for a radio with
    /// `neighbours` neighbours.
    pub fn new(ladder: Vec<u64>, manager: Box<dyn RateManager>, neighbours: usize) -> Self {
        debug_assert!(!ladder.is_empty() && ladder.len() < u8::MAX as usize);
        RateControl {
            counts: vec![RateCount::default(); ladder.len() * neighbours],
            latest: vec![u8::MAX; neighbours],
            ladder,
            manager,
            changes: None,
        }
    }

    /// Bytes kept per neighbour besides the manager's state: a count per rate and the latest
    /// rate.
    pub fn bytes_per_neighbour(rates: usize) -> u64 {
        (rates * size_of::<RateCount>() + 1) as u64
    }

    /// A neighbour joins with the next slot (see [`RateManager::add_neighbour`]).
    pub fn add_neighbour(&mut self) {
        self.counts
            .extend(std::iter::repeat_n(RateCount::default(), self.ladder.len()));
        self.latest.push(u8::MAX);
        self.manager.add_neighbour();
    }

    /// Keeps the time of every change of a link's rate ([`RateControl::changes`]).
    pub fn trace_changes(&mut self) {
        self.changes = Some(Vec::new());
    }

    /// The rates, bit/s, lowest first.
    pub fn ladder(&self) -> &[u64] {
        &self.ladder
    }

    /// The rate of the next attempt to neighbour `nb` at `now`, bit/s.
    pub fn rate(&mut self, nb: usize, now: Time) -> u64 {
        let i = self.manager.pick(nb).min(self.ladder.len() - 1);
        if self.latest[nb] != i as u8 {
            self.latest[nb] = i as u8;
            if let Some(changes) = self.changes.as_mut() {
                changes.push((now, nb as u32, i as u8));
            }
        }
        self.ladder[i]
    }

    /// What the DCF saw of neighbour `nb` at `now`.
    pub fn feedback(&mut self, nb: usize, feedback: RateFeedback, now: Time) {
        match feedback {
            RateFeedback::Acked { rate, snr } => {
                let i = self.index_of(rate);
                self.count(nb, i, true);
                self.manager.on_data(nb, i, Some(snr), now);
            }
            RateFeedback::Lost { rate } => {
                let i = self.index_of(rate);
                self.count(nb, i, false);
                self.manager.on_data(nb, i, None, now);
            }
            RateFeedback::RtsAnswered { snr } => self.manager.on_rts_answered(nb, snr),
            RateFeedback::GivenUp => self.manager.on_given_up(nb, now),
            RateFeedback::Ampdu {
                rate,
                mpdus,
                acked,
                snr,
            } => {
                let i = self.index_of(rate);
                // Counted by MPDU: the link_rates table's frames under aggregation.
                let c = &mut self.counts[nb * self.ladder.len() + i];
                c.attempts += u64::from(mpdus);
                c.acked += u64::from(acked);
                self.manager.on_ampdu(nb, i, mpdus, acked, snr, now);
            }
        }
    }

    /// The data attempts a packet to `nb` gets, if the manager decides it.
    pub fn attempts_allowed(&self, nb: usize) -> Option<u32> {
        self.manager.attempts_allowed(nb)
    }

    /// The ladder index of `rate` (the nearest rate below it if it is not on the ladder, which
    /// only a frame sent before the manager took over could be).
    fn index_of(&self, rate: u64) -> usize {
        self.ladder
            .iter()
            .rposition(|&r| r <= rate)
            .unwrap_or_default()
    }

    fn count(&mut self, nb: usize, rate: usize, acked: bool) {
        let c = &mut self.counts[nb * self.ladder.len() + rate];
        c.attempts += 1;
        c.acked += acked as u64;
    }

    /// Attempts and acknowledgements to neighbour `nb` per rate: (rate bit/s, counts), the
    /// ladder's order.
    pub fn counts(&self, nb: usize) -> impl Iterator<Item = (u64, RateCount)> + '_ {
        let n = self.ladder.len();
        self.ladder
            .iter()
            .copied()
            .zip(self.counts[nb * n..(nb + 1) * n].iter().copied())
    }

    /// The rate changes kept with [`RateControl::trace_changes`]: (time, neighbour index, rate
    /// bit/s).
    pub fn changes(&self) -> impl Iterator<Item = (Time, usize, u64)> + '_ {
        self.changes
            .iter()
            .flatten()
            .map(|&(t, nb, i)| (t, nb as usize, self.ladder[i as usize]))
    }
}

#[cfg(test)]
mod tests;
