//! BBR v1: Cardwell, Cheng, Gunn, Hassas Yeganeh, Jacobson, "BBR: Congestion-Based Congestion
//! Control", ACM Queue 14(5), 2016, and draft-cardwell-iccrg-bbr-congestion-control-00 (2017), as
//! Linux's `net/ipv4/tcp_bbr.c` and ns-3 3.44's `TcpBbr` run it. Windows in segments, rates in
//! segments per second, times in ns.
//!
//! The model: BtlBw, the windowed maximum of the delivery rate over the last 10 round trips
//! ([`filter::WindowedMax`], rate samples from [`crate::transport::tcp::rate`]), and RTprop, the
//! minimum RTT of the last 10 s. The sender paces at `pacing_gain x BtlBw` and keeps at most
//! `cwnd_gain x BtlBw x RTprop` (+ allowances) in flight. The state machine:
//!
//! | mode | pacing_gain | cwnd_gain | leaves when |
//! |---|---|---|---|
//! | Startup | 2.89 (2/ln 2) | 2.89 | BtlBw grew < 25 % in 3 rounds (not app-limited): Drain |
//! | Drain | 1/2.89 | 2.89 | in flight <= BDP: ProbeBW |
//! | ProbeBW | cycle 1.25, 0.75, 1 x 6 | 2 | RTprop 10 s old: ProbeRTT |
//! | ProbeRTT | 1 | 1 (cwnd <= 4) | 200 ms and a round at <= 4 in flight: ProbeBW (Startup if the pipe was never full) |
//!
//! ProbeBW moves to the next phase after one RTprop, except that the 1.25 phase also waits until
//! a loss or until the data in flight before the ACK reaches 1.25 BDP, and the 0.75 phase ends
//! early once in flight falls to the BDP. The first phase is drawn at random, never 0.75.
//!
//! Constants (ns-3's `TcpBbr` attribute and Linux's `tcp_bbr.c` name):
//! high gain 2.89 (`HighGain`; `bbr_high_gain` 2885/1000), BtlBw window 10 rounds
//! (`BwWindowLength`; `bbr_bw_rtts`), RTprop window 10 s (`RttWindowLength`;
//! `bbr_min_rtt_win_sec`), ProbeRTT 200 ms (`ProbeRttDuration`; `bbr_probe_rtt_mode_ms`), minimum
//! window 4 (`m_minPipeCwnd`; `bbr_cwnd_min_target`), full-pipe growth 1.25 over 3 rounds
//! (`bbr_full_bw_thresh`, `bbr_full_bw_cnt`), pacing margin 1 % (`m_pacingMargin`;
//! `bbr_pacing_margin_percent`), ACK-aggregation allowance: gain 1 over 5 rounds, capped at
//! 100 ms of BtlBw (`m_extraAckedGain`, `ExtraAckedRttWindowLength`; `bbr_extra_acked_gain`,
//! `bbr_extra_acked_win_rtts`, `bbr_extra_acked_max_us`).
//!
//! Loss recovery (Linux's `bbr_set_cwnd_to_recover_or_restore`): on entering fast recovery the
//! window becomes what is in flight plus what the ACK delivered, and for one round it only
//! follows deliveries (packet conservation); every segment newly marked lost takes one from the
//! window; when recovery (or the state after a timeout) ends, the window returns to at least the
//! one saved when it began.
//!
//! Choices where Linux and ns-3 differ (ns-3's, the reference users compare with, unless said):
//! - the send quantum is one segment (ns-3's `SetSendQuantum`; airtcp models no TSO), so the
//!   window allows 3 segments beyond the BDP where Linux allows 3 TSO bursts of 1-2 segments and
//!   rounds up to an even number;
//! - BtlBw is seeded with `cwnd / RTprop` at the first RTT sample (ns-3's `InitPacingRate`);
//!   Linux starts it empty;
//! - losses take from the window and the saved window is restored after a timeout too (Linux;
//!   ns-3 does both only around fast recovery);
//! - the ACK-aggregation epoch is measured in ns (Linux); ns-3 3.44 measures it in whole seconds
//!   and resets it after 2^17 bytes, which lets its allowance grow to the 100 ms cap.
//!
//! Not built: Linux's long-term bandwidth sampling for token-bucket policers (`bbr_lt_bw_*`,
//! absent from ns-3 too), and the restart after an idle period (`CA_EVENT_TX_START`; bulk
//! transfers never idle).
//!
//! BBR v3 (`cc: bbr3`) is [`v3`]; what both versions run is in [`common`] and [`filter`].

pub mod common;
pub mod filter;
pub mod v3;

use serde::{Deserialize, Serialize};

pub use self::common::MIN_CWND;
use self::common::{next_pacing_rate, saved_cwnd, AckAggregation, Rounds, PACING_MARGIN};
use self::filter::WindowedMax;
use super::{check_within, CcState, CongestionControl, CongestionEvent};
use crate::error::ConfigError;
use crate::sim::rng::Rng;
use crate::sim::time::{MILLIS, SECS};
use crate::sim::Time;
use crate::transport::tcp::rate::{CaState, RateSample};

/// The ProbeBW pacing-gain cycle (Linux's `bbr_pacing_gain`, ns-3's `PACING_GAIN_CYCLE`).
pub const GAIN_CYCLE: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
/// Startup ends when BtlBw grew less than this factor ...
const FULL_BW_THRESH: f64 = 1.25;
/// ... for this many rounds in a row.
const FULL_BW_COUNT: u32 = 3;
/// Segments the window allows beyond the BDP for the send quantum (3 quanta of one segment).
const QUANTA: f64 = 3.0;

/// BBR's parameters (`bbr: {...}` beside `cc: bbr`); the defaults are ns-3 3.44's and Linux's.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BbrParams {
    /// Startup's pacing and window gain (2/ln 2).
    #[serde(default = "default_high_gain")]
    pub high_gain: f64,
    /// ProbeBW's window gain.
    #[serde(default = "default_cwnd_gain")]
    pub cwnd_gain: f64,
    /// Length of BtlBw's max filter, round trips.
    #[serde(default = "default_bw_window")]
    #[schemars(range(min = 1))]
    pub bw_window_rounds: u32,
    /// Length of RTprop's min filter, ns.
    #[serde(default = "default_min_rtt_window")]
    #[schemars(transform = crate::quantity::duration, range(min = 1))]
    pub min_rtt_window: Time,
    /// Time spent in ProbeRTT, ns.
    #[serde(default = "default_probe_rtt")]
    #[schemars(transform = crate::quantity::duration, range(min = 1))]
    pub probe_rtt_duration: Time,
    /// Gain of the ACK-aggregation allowance (0: none).
    #[serde(default = "default_extra_acked_gain")]
    pub extra_acked_gain: f64,
    /// Length of the ACK-aggregation max filter, round trips.
    #[serde(default = "default_extra_acked_window")]
    #[schemars(range(min = 1))]
    pub extra_acked_window_rounds: u32,
}

fn default_high_gain() -> f64 {
    2.89
}
fn default_cwnd_gain() -> f64 {
    2.0
}
fn default_bw_window() -> u32 {
    10
}
fn default_min_rtt_window() -> Time {
    10 * SECS
}
fn default_probe_rtt() -> Time {
    200 * MILLIS
}
fn default_extra_acked_gain() -> f64 {
    1.0
}
fn default_extra_acked_window() -> u32 {
    5
}

impl Default for BbrParams {
    fn default() -> Self {
        serde_json::from_str("{}").expect("all BBR fields have defaults")
    }
}

impl BbrParams {
    /// Checks the values serde cannot; `p` is the block's path.
    pub fn check(&self, p: &str) -> Result<(), ConfigError> {
        check_within(
            format!("{p}.high_gain"),
            self.high_gain,
            (1.0, f64::INFINITY),
            (false, false),
        )?;
        check_within(
            format!("{p}.cwnd_gain"),
            self.cwnd_gain,
            (1.0, f64::INFINITY),
            (true, false),
        )?;
        check_within(
            format!("{p}.extra_acked_gain"),
            self.extra_acked_gain,
            (0.0, 16.0),
            (true, true),
        )?;
        for (name, v) in [
            ("bw_window_rounds", self.bw_window_rounds as u64),
            (
                "extra_acked_window_rounds",
                self.extra_acked_window_rounds as u64,
            ),
            ("min_rtt_window", self.min_rtt_window),
            ("probe_rtt_duration", self.probe_rtt_duration),
        ] {
            crate::error::positive(format!("{p}.{name}"), v)?;
        }
        Ok(())
    }
}

/// BBR's modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Exponential search for the bottleneck rate.
    Startup,
    /// Drains the queue Startup built.
    Drain,
    /// Cycles the pacing gain around the bottleneck rate.
    ProbeBw,
    /// Lowers the window to 4 to measure RTprop afresh.
    ProbeRtt,
}

impl Mode {
    /// The number the cwnd trace records (ns-3's `BbrMode_t` order).
    pub fn index(self) -> f64 {
        match self {
            Mode::Startup => 0.0,
            Mode::Drain => 1.0,
            Mode::ProbeBw => 2.0,
            Mode::ProbeRtt => 3.0,
        }
    }
}

/// BBR v1's state.
pub struct Bbr {
    params: BbrParams,
    rng: Rng,
    mode: Mode,
    pacing_gain: f64,
    cwnd_gain: f64,
    /// BtlBw, segments/s, over round counts.
    bw: WindowedMax,
    /// RTprop, ns (None before the first sample) and when it was measured.
    min_rtt: Option<Time>,
    min_rtt_stamp: Time,
    /// Packet-timed rounds.
    rounds: Rounds,
    /// Startup's full-pipe detector.
    full_bw: f64,
    full_bw_count: u32,
    full_bw_reached: bool,
    /// ProbeBW's phase and when it began.
    cycle_index: usize,
    cycle_stamp: Time,
    /// ProbeRTT's end and whether a round has passed in it.
    probe_rtt_done: Option<Time>,
    probe_rtt_round_done: bool,
    /// Loss recovery.
    packet_conservation: bool,
    prior_cwnd: f64,
    prev_ca_state: CaState,
    /// The pacing rate, segments/s (None until the first ACK: the first window goes unpaced,
    /// as ns-3's 1 ms initial RTT makes it in effect).
    pacing_rate: Option<f64>,
    has_seen_rtt: bool,
    /// ACK aggregation.
    aggregation: AckAggregation,
    /// Set while ProbeRTT asks the sender to mark its samples app-limited.
    app_limited: bool,
    /// The sender's initial window (read at the first ACK).
    initial_cwnd: Option<f64>,
}

impl Bbr {
    /// BBR in Startup with parameters `params`.
    pub fn new(params: BbrParams) -> Self {
        Bbr {
            params,
            rng: Rng::stream(0, "bbr"),
            mode: Mode::Startup,
            pacing_gain: params.high_gain,
            cwnd_gain: params.high_gain,
            bw: WindowedMax::default(),
            min_rtt: None,
            min_rtt_stamp: 0,
            rounds: Rounds::default(),
            full_bw: 0.0,
            full_bw_count: 0,
            full_bw_reached: false,
            cycle_index: 0,
            cycle_stamp: 0,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            packet_conservation: false,
            prior_cwnd: 0.0,
            prev_ca_state: CaState::Open,
            pacing_rate: None,
            has_seen_rtt: false,
            aggregation: AckAggregation::default(),
            app_limited: false,
            initial_cwnd: None,
        }
    }

    /// The current mode.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// BtlBw, segments/s.
    pub fn btl_bw(&self) -> f64 {
        self.bw.best()
    }

    /// RTprop, ns.
    pub fn rt_prop(&self) -> Option<Time> {
        self.min_rtt
    }

    /// The pacing gain in force.
    pub fn pacing_gain(&self) -> f64 {
        self.pacing_gain
    }

    /// `gain x BDP` plus the send quanta, segments (ns-3's `InFlight`, Linux's `bbr_inflight`);
    /// the initial window before RTprop is known.
    fn inflight(&self, gain: f64, initial: f64) -> f64 {
        let Some(min_rtt) = self.min_rtt else {
            return initial;
        };
        let bdp = self.bw.best() * min_rtt as f64 / 1e9;
        let probing = self.mode == Mode::ProbeBw && self.cycle_index == 0;
        gain * bdp + QUANTA + if probing { 2.0 } else { 0.0 }
    }

    fn enter_startup(&mut self) {
        self.mode = Mode::Startup;
        self.pacing_gain = self.params.high_gain;
        self.cwnd_gain = self.params.high_gain;
    }

    fn enter_probe_bw(&mut self, now: Time) {
        self.mode = Mode::ProbeBw;
        self.cwnd_gain = self.params.cwnd_gain;
        // Any phase but the 0.75 one: draw 0..=6 and step back from the last phase (Linux's
        // `bbr_cycle_rand` 7), then advance into it.
        let r = ((self.rng.uniform() * 7.0) as usize).min(6);
        self.cycle_index = GAIN_CYCLE.len() - 1 - r;
        self.advance_cycle(now);
    }

    fn advance_cycle(&mut self, now: Time) {
        self.cycle_stamp = now;
        self.cycle_index = (self.cycle_index + 1) % GAIN_CYCLE.len();
        self.pacing_gain = GAIN_CYCLE[self.cycle_index];
    }

    fn save_cwnd(&mut self, cwnd: f64) {
        let good = self.prev_ca_state == CaState::Open && self.mode != Mode::ProbeRtt;
        self.prior_cwnd = saved_cwnd(self.prior_cwnd, cwnd, good);
    }

    fn update_bw(&mut self, rs: &RateSample) {
        if self.rounds.update(rs) {
            self.packet_conservation = false;
        }
        let Some(rate) = rs.rate() else { return };
        if !rs.is_app_limited || rate >= self.bw.best() {
            let window = self.params.bw_window_rounds as u64;
            self.bw.update(window, self.rounds.count(), rate);
        }
    }

    fn update_ack_aggregation(&mut self, rs: &RateSample, cwnd: f64) {
        if self.params.extra_acked_gain <= 0.0 {
            return;
        }
        let window = self.params.extra_acked_window_rounds;
        let (bw, round_start) = (self.bw.best(), self.rounds.started());
        self.aggregation.update(rs, bw, cwnd, round_start, window);
    }

    fn aggregation_allowance(&self) -> f64 {
        if self.params.extra_acked_gain <= 0.0 || !self.full_bw_reached {
            return 0.0;
        }
        self.aggregation
            .allowance(self.params.extra_acked_gain, self.bw.best())
    }

    fn check_cycle_phase(&mut self, rs: &RateSample, initial: f64) {
        if self.mode != Mode::ProbeBw {
            return;
        }
        let full_length = self
            .min_rtt
            .is_none_or(|m| rs.now.saturating_sub(self.cycle_stamp) > m);
        let prior = rs.prior_in_flight as f64;
        let next = if self.pacing_gain > 1.0 {
            full_length && (rs.losses > 0 || prior >= self.inflight(self.pacing_gain, initial))
        } else if self.pacing_gain < 1.0 {
            full_length || prior <= self.inflight(1.0, initial)
        } else {
            full_length
        };
        if next {
            self.advance_cycle(rs.now);
        }
    }

    fn check_full_pipe(&mut self, rs: &RateSample) {
        if self.full_bw_reached || !self.rounds.started() || rs.is_app_limited {
            return;
        }
        let bw = self.bw.best();
        if bw >= self.full_bw * FULL_BW_THRESH {
            self.full_bw = bw;
            self.full_bw_count = 0;
            return;
        }
        self.full_bw_count += 1;
        self.full_bw_reached = self.full_bw_count >= FULL_BW_COUNT;
    }

    fn check_drain(&mut self, state: &mut CcState, rs: &RateSample, initial: f64) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            self.pacing_gain = 1.0 / self.params.high_gain;
            self.cwnd_gain = self.params.high_gain;
            state.ssthresh = self.inflight(1.0, initial);
        }
        if self.mode == Mode::Drain && rs.in_flight as f64 <= self.inflight(1.0, initial) {
            self.enter_probe_bw(rs.now);
        }
    }

    fn update_min_rtt(&mut self, state: &mut CcState, rs: &RateSample) {
        let now = rs.now;
        // The filter runs from the first sample (Linux stamps it when the connection starts): a
        // flow starting late must not find it expired at once.
        let expired = self.min_rtt.is_some()
            && now
                > self
                    .min_rtt_stamp
                    .saturating_add(self.params.min_rtt_window);
        if let Some(rtt) = rs.rtt {
            if self.min_rtt.is_none_or(|m| rtt < m) || expired {
                self.min_rtt = Some(rtt);
                self.min_rtt_stamp = now;
            }
        }
        if expired && self.mode != Mode::ProbeRtt && self.min_rtt.is_some() {
            self.mode = Mode::ProbeRtt;
            self.pacing_gain = 1.0;
            self.cwnd_gain = 1.0;
            self.save_cwnd(state.cwnd);
            self.probe_rtt_done = None;
        }
        // ProbeRTT's low rate says nothing about the bottleneck: its samples are app-limited.
        self.app_limited = self.mode == Mode::ProbeRtt;
        if self.mode != Mode::ProbeRtt {
            return;
        }
        match self.probe_rtt_done {
            None if rs.in_flight as f64 <= MIN_CWND => {
                self.probe_rtt_done = Some(now.saturating_add(self.params.probe_rtt_duration));
                self.probe_rtt_round_done = false;
                self.rounds.restart(rs.total_delivered);
            }
            None => {}
            Some(done) => {
                if self.rounds.started() {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done && now > done {
                    self.min_rtt_stamp = now;
                    self.probe_rtt_done = None;
                    state.cwnd = state.cwnd.max(self.prior_cwnd);
                    if self.full_bw_reached {
                        self.enter_probe_bw(now);
                    } else {
                        self.enter_startup();
                    }
                }
            }
        }
    }

    /// Linux's `bbr_set_pacing_rate`: `gain x BtlBw` less the 1 % margin, never lowered before
    /// the pipe is full; seeded from `cwnd / RTT` at the first RTT sample.
    fn set_pacing_rate(&mut self, state: &CcState) {
        if !self.has_seen_rtt {
            let Some(rtt) = self.min_rtt else { return };
            self.has_seen_rtt = true;
            // ns-3's InitPacingRate: RTT in whole ms, at least 1.
            let rtt_s = (rtt / MILLIS).max(1) as f64 / 1e3;
            let nominal = state.cwnd / rtt_s;
            self.pacing_rate = Some(self.pacing_gain * nominal);
            self.bw.reset(self.rounds.count(), nominal);
        }
        let rate = self.pacing_gain * self.bw.best() * (1.0 - PACING_MARGIN);
        self.pacing_rate = next_pacing_rate(self.pacing_rate, rate, self.full_bw_reached);
    }

    /// Linux's `bbr_set_cwnd` with `bbr_set_cwnd_to_recover_or_restore`.
    fn set_cwnd(&mut self, state: &mut CcState, rs: &RateSample, initial: f64) {
        let acked = rs.acked_sacked as f64;
        if acked > 0.0 && !self.recover_or_restore(state, rs) {
            let target = self.inflight(self.cwnd_gain, initial) + self.aggregation_allowance();
            let cwnd = state.cwnd;
            state.cwnd = if self.full_bw_reached {
                (cwnd + acked).min(target)
            } else if cwnd < target || (rs.total_delivered as f64) < initial {
                cwnd + acked
            } else {
                cwnd
            };
            state.cwnd = state.cwnd.max(MIN_CWND);
        }
        if self.mode == Mode::ProbeRtt {
            state.cwnd = state.cwnd.min(MIN_CWND);
        }
    }

    /// The window around loss recovery; true while packet conservation sets it.
    fn recover_or_restore(&mut self, state: &mut CcState, rs: &RateSample) -> bool {
        let (prev, now_state) = (self.prev_ca_state, rs.ca_state);
        let acked = rs.acked_sacked as f64;
        let mut cwnd = state.cwnd;
        if rs.losses > 0 {
            cwnd = (cwnd - rs.losses as f64).max(1.0);
        }
        if now_state == CaState::Recovery && prev != CaState::Recovery {
            self.packet_conservation = true;
            self.rounds.restart(rs.total_delivered);
            cwnd = rs.in_flight as f64 + acked;
        } else if prev != CaState::Open && now_state == CaState::Open {
            cwnd = cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_ca_state = now_state;
        if self.packet_conservation {
            state.cwnd = cwnd.max(rs.in_flight as f64 + acked);
            return true;
        }
        state.cwnd = cwnd;
        false
    }
}

impl CongestionControl for Bbr {
    fn name(&self) -> &'static str {
        "bbr"
    }

    fn on_ack(&mut self, _state: &mut CcState, _ack: &super::AckSample) {}

    /// Saves the window (restored when recovery ends) and leaves ssthresh as it is: BBR does
    /// not react to a loss by a multiplicative decrease (Linux's `bbr_ssthresh`).
    fn ssthresh(&mut self, state: &CcState, _in_flight: f64) -> f64 {
        self.save_cwnd(state.cwnd);
        state.ssthresh
    }

    fn on_event(&mut self, _state: &mut CcState, event: CongestionEvent, _now: Time) {
        if event == CongestionEvent::Rto {
            // Linux's `bbr_set_state(TCP_CA_Loss)`: a new round starts and Startup's growth
            // test starts over.
            self.prev_ca_state = CaState::Loss;
            self.full_bw = 0.0;
            self.rounds.force_start();
        }
    }

    fn controls_window(&self) -> bool {
        true
    }

    fn cong_control(&mut self, state: &mut CcState, rs: &RateSample) {
        if self.initial_cwnd.is_none() {
            self.initial_cwnd = Some(state.cwnd);
        }
        let initial = self.initial_cwnd.unwrap_or(state.cwnd);
        self.update_bw(rs);
        self.update_ack_aggregation(rs, state.cwnd);
        self.check_cycle_phase(rs, initial);
        self.check_full_pipe(rs);
        self.check_drain(state, rs, initial);
        self.update_min_rtt(state, rs);
        self.set_pacing_rate(state);
        self.set_cwnd(state, rs, initial);
    }

    fn pacing_rate(&self) -> Option<f64> {
        self.pacing_rate
    }

    fn marks_app_limited(&self) -> bool {
        self.app_limited
    }

    fn set_random(&mut self, rng: Rng) {
        self.rng = rng;
    }

    fn metrics(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("mode", self.mode.index()),
            ("btl_bw", self.bw.best()),
            ("rt_prop_s", self.min_rtt.map_or(0.0, |m| m as f64 / 1e9)),
            ("pacing_gain", self.pacing_gain),
            ("cwnd_gain", self.cwnd_gain),
        ]
    }
}

#[cfg(test)]
mod tests;
