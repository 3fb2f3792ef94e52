//! BBR v3: draft-ietf-ccwg-bbr-04 (Cardwell, Swett, Beshay, "BBR Congestion Control", IETF
//! CCWG, October 2025), as Linux runs it (`net/ipv4/tcp_bbr.c` of the v3 branch of
//! github.com/google/bbr). Windows in segments, rates in segments per second, times in ns.
//!
//! The model has two time scales (§3.4.2):
//!
//! - long-term: `BBR.max_bw`, the largest delivery rate of the current and the previous
//!   ProbeBW cycle ([`PairMax`], the draft's `MaxBwFilterLen` = 2, Linux's `bw_hi[2]`), and
//!   `BBR.inflight_longterm` (Linux's `inflight_hi`), the volume found to cause a loss rate above
//!   `BBR.LossThresh` while probing (§5.5.10.2, `IsInflightTooHigh`);
//! - short-term: `BBR.bw_shortterm` and `BBR.inflight_shortterm` (Linux's `bw_lo`,
//!   `inflight_lo`), cut once per round trip with loss to `max(latest, beta x bound)` while not
//!   probing (§5.5.10.3, `LossLowerBounds`), forgotten when a probe begins (REFILL).
//!
//! `BBR.bw = min(max_bw, bw_shortterm)`; the sender paces at `pacing_gain x bw x 0.99` and keeps
//! at most `cwnd_gain x bw x min_rtt` (+ the ACK-aggregation estimate, at least 4) in flight,
//! capped per state (the "Volume Cap" of §5.6.1):
//!
//! | state | pacing gain | cwnd gain | cap | leaves when |
//! |---|---|---|---|---|
//! | Startup | 2.77 | 2 | - | `max_bw` grew < 25 % in 3 rounds, or a round in recovery lost > 2 % with >= 6 loss events: Drain |
//! | Drain | 0.35 | 2 | short-term | in flight <= BDP: ProbeBW_DOWN |
//! | ProbeBW_DOWN | 0.9 | 2 | long-, short-term | time to probe: REFILL; in flight <= BDP and <= 0.85 `inflight_longterm`: CRUISE |
//! | ProbeBW_CRUISE | 1 | 2 | 0.85 long-term, short-term | time to probe: REFILL |
//! | ProbeBW_REFILL | 1 | 2 | long-term | one round: UP |
//! | ProbeBW_UP | 1.25 | 2.25 | long-term | `max_bw` plateau (3 rounds), loss > 2 %, or the precautionary stop at `inflight_longterm`: DOWN |
//! | ProbeRTT | 1 | 0.5 | 0.85 long-term, short-term | 200 ms and a round at <= 0.5 BDP: ProbeBW_CRUISE (Startup if the pipe was never full) |
//!
//! Any state but ProbeRTT enters ProbeRTT when `BBR.probe_rtt_min_delay` (the minimum RTT of
//! the last 5 s) was not refreshed for 5 s; `BBR.min_rtt` is the minimum of the last 10 s. Time
//! to probe (§5.3.3.8, `IsTimeToProbeBW`): 2-3 s (uniformly drawn at each DOWN) since DOWN began,
//! or, if sooner, `min(63, min(bdp, cwnd))` rounds (Reno coexistence, `BBRTargetInflight`), the
//! round count starting at 0 or 1 at random. In UP, `inflight_longterm` grows while the window
//! is full and at it, by 1, 2, 4, ... segments per round (`BBRProbeInflightLongtermUpward`).
//! After a probe that went too high, the next UP stops as soon as in flight reaches
//! `inflight_longterm`, and if that probe's feedback shows no excess loss a new probe starts at
//! once (precautionary probing: Linux's `stopped_risky_probe`, the draft's later
//! `prev_probe_precautionary`).
//!
//! Per ACK, in Linux's order (`bbr_main`): round count, latest delivery signals, max_bw sample
//! and the once-per-round loss response, ACK aggregation, Startup's loss exit, the full-pipe
//! estimator, Drain, the ProbeBW cycle (with the long-term bound), `min_rtt` and ProbeRTT, gains,
//! pacing rate, window, the per-state cap. Every segment marked lost is also seen on its own
//! ([`CongestionControl::on_segment_lost`], `HandleLostPacket`): while probing, the first whose
//! losses since its send exceed 2 % of what was in flight at its send sets `inflight_longterm`
//! to the volume at which the rate crossed 2 % (`InflightAtLoss`).
//!
//! Constants (draft-ietf-ccwg-bbr-04 name; Linux v3 name; here):
//!
//! | constant | draft | Linux | here |
//! |---|---|---|---|
//! | Startup pacing gain 2.77 (4 ln 2) | `BBR.StartupPacingGain` | `bbr_startup_pacing_gain` (277/100 + 1/256) | `startup_pacing_gain` |
//! | Startup cwnd gain 2 | `BBR.DefaultCwndGain` | `bbr_startup_cwnd_gain` | `startup_cwnd_gain` |
//! | Drain pacing gain 0.35 | `BBR.DrainPacingGain` | `bbr_drain_gain` (1000/2885) | `drain_pacing_gain` |
//! | cwnd gain 2 (2.25 in UP) | `BBR.DefaultCwndGain` | `bbr_cwnd_gain`, `bbr_bw_probe_cwnd_gain` | `cwnd_gain` (+0.25) |
//! | DOWN / UP pacing gains 0.9 / 1.25 | §5.3.3.1, §5.3.3.4 | `bbr_pacing_gain[]` (0.91, 1.25) | `probe_down_pacing_gain`, `probe_up_pacing_gain` |
//! | loss threshold 2 % | `BBR.LossThresh` | `bbr_loss_thresh` | `loss_thresh` |
//! | Startup loss events 6 | `BBRStartupFullLossCnt` | `bbr_full_loss_cnt` | `full_loss_count` |
//! | beta 0.7 | `BBR.Beta` | `1 - bbr_beta` (0.3) | `beta` |
//! | headroom 0.15 | `BBR.Headroom` | `bbr_inflight_headroom` | `headroom` |
//! | ProbeRTT every 5 s | `ProbeRTTInterval` | `bbr_probe_rtt_win_ms` | `probe_rtt_interval` |
//! | ProbeRTT 200 ms | `ProbeRTTDuration` | `bbr_probe_rtt_mode_ms` | `probe_rtt_duration` |
//! | ProbeRTT cwnd 0.5 BDP | `BBR.ProbeRTTCwndGain` | `bbr_probe_rtt_cwnd_gain` | `probe_rtt_cwnd_gain` |
//! | min_rtt window 10 s | `MinRTTFilterLen` | `bbr_min_rtt_win_sec` | `min_rtt_window` |
//! | probe wait 2 s + 0-1 s | `BBRPickProbeWait` | `bbr_bw_probe_base_us`, `bbr_bw_probe_rand_us` | `probe_wait_base`, `probe_wait_random` |
//! | Reno rounds at most 63 | `BBRIsRenoCoexistenceProbeTime` | `bbr_bw_probe_max_rounds` | `probe_max_rounds` |
//! | extra_acked gain 1, 5-10 rounds (1 in Startup) | `ExtraAckedFilterLen` 10 | `bbr_extra_acked_gain`, `bbr_extra_acked_win_rtts` 5 | `extra_acked_gain` (windows fixed) |
//! | full pipe: 1.25 over 3 rounds | `BBRCheckFullBWReached` | `bbr_full_bw_thresh`, `bbr_full_bw_cnt` | fixed |
//! | minimum window 4 | `BBR.MinPipeCwnd` | `bbr_cwnd_min_target` | fixed |
//! | pacing margin 1 % | `BBR.PacingMarginPercent` | `bbr_pacing_margin_percent` | fixed |
//! | inflight_longterm growth: 1, 2, 4 ... per round, at most 2^30 | `BBRRaiseInflightLongtermSlope` | `bbr_raise_inflight_hi_slope` | fixed |
//!
//! Deviations, and choices where the draft and Linux differ:
//! - no ECN (airtcp models no ECN marks): the draft specifies no ECN response either; Linux's
//!   ECN and PLB code (`ecn_alpha`, `bbr_ecn_*`, `bbr_plb`) is not built;
//! - no TSO: the send quantum is one segment, so the offload budget (3 quanta) is 3 segments,
//!   always under `MinPipeCwnd`; windows are segment-granular floats (not rounded up to whole
//!   segments as Linux's `bbr_bdp`) and rates are segments per second;
//! - `C.is_cwnd_limited` is read from the ACKs: the window counts as full in a round when an ACK
//!   found in flight (before it) at least `cwnd - 1` segments; the flag holds for that round and
//!   the next (Linux latches it at sends and clears it once per round);
//! - the cycle's in-flight tests (UP's precautionary stop, DOWN to CRUISE) read the flight
//!   before the ACK (Linux's `prior_in_flight`; the draft's `C.inflight`), Drain the flight after
//!   it; the full-pipe test compares only round-start samples (the draft; Linux compares every
//!   ACK's sample against the 25 % step);
//! - without SACK the sender marks no segment lost (go-back-N after a timeout, and NewReno's
//!   holes are not listed), so the loss responses need `sack: true`; the draft's "any loss
//!   without SACK" rule is not built;
//! - not built: spurious-recovery undo (airtcp detects no spurious recovery), restart after idle
//!   (bulk flows never idle; `BBR.idle_restart` is always false), the loss-probe (TLP) response,
//!   and the later draft revisions' Drain exit after 3 rounds and Drain gain of 0.5;
//! - the first pacing rate is `2.77 x cwnd / first RTT` at the first RTT sample (the draft's
//!   `InitPacingRate`), the first window unpaced; `BBR.min_rtt`'s and ProbeRTT's clocks start at
//!   the first ACK (Linux: at connection set-up).

use serde::{Deserialize, Serialize};

use super::common::{
    next_pacing_rate, saved_cwnd, AckAggregation, Rounds, MIN_CWND, PACING_MARGIN,
};
use super::filter::PairMax;
use crate::error::ConfigError;
use crate::sim::rng::Rng;
use crate::sim::time::{MILLIS, SECS};
use crate::sim::Time;
use crate::transport::tcp::cc::{
    check_within, AckSample, CcState, CongestionControl, CongestionEvent,
};
use crate::transport::tcp::rate::{CaState, LostSegment, RateSample};

/// Startup ends when the delivery rate grew less than this factor ...
const FULL_BW_THRESH: f64 = 1.25;
/// ... for this many rounds in a row.
const FULL_BW_COUNT: u32 = 3;
/// The offload budget: 3 send quanta of one segment (no TSO).
const OFFLOAD_BUDGET: f64 = 3.0;
/// UP adds this to the window gain (Linux's `bbr_bw_probe_cwnd_gain` of 1/4).
const PROBE_UP_EXTRA_CWND_GAIN: f64 = 0.25;
/// Rounds over which the ACK-aggregation estimate is kept (two such periods; one round in
/// Startup).
const EXTRA_ACKED_WINDOW_ROUNDS: u32 = 5;
/// The loss events a Startup round counts at most (Linux's 4-bit counter).
const MAX_LOSS_EVENTS: u32 = 15;
/// `inflight_longterm` grows by at most 2^30 segments per round.
const MAX_PROBE_UP_ROUNDS: u32 = 30;

/// BBR v3's parameters (`bbr3: {...}` beside `cc: bbr3`); the defaults are the draft's.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Bbr3Params {
    /// Startup's pacing gain (4 ln 2).
    #[serde(default = "default_startup_pacing_gain")]
    pub startup_pacing_gain: f64,
    /// Startup's (and Drain's) window gain.
    #[serde(default = "default_two")]
    pub startup_cwnd_gain: f64,
    /// Drain's pacing gain.
    #[serde(default = "default_drain_pacing_gain")]
    pub drain_pacing_gain: f64,
    /// ProbeBW's window gain (UP adds 0.25).
    #[serde(default = "default_two")]
    pub cwnd_gain: f64,
    /// ProbeBW_DOWN's pacing gain.
    #[serde(default = "default_probe_down_pacing_gain")]
    pub probe_down_pacing_gain: f64,
    /// ProbeBW_UP's pacing gain.
    #[serde(default = "default_probe_up_pacing_gain")]
    pub probe_up_pacing_gain: f64,
    /// The loss rate over a round trip above which probing went too far (`BBR.LossThresh`).
    #[serde(default = "default_loss_thresh")]
    pub loss_thresh: f64,
    /// Loss events in a Startup round (with the loss rate above `loss_thresh`) that end
    /// Startup (`BBRStartupFullLossCnt`; 0: never).
    #[serde(default = "default_full_loss_count")]
    pub full_loss_count: u32,
    /// The short-term bounds are cut to this fraction per round trip with loss (`BBR.Beta`).
    #[serde(default = "default_beta")]
    pub beta: f64,
    /// Fraction of `inflight_longterm` left free in CRUISE and ProbeRTT (`BBR.Headroom`).
    #[serde(default = "default_headroom")]
    pub headroom: f64,
    /// ProbeRTT is entered when the minimum RTT was not refreshed for this long, ns.
    #[serde(default = "default_probe_rtt_interval")]
    #[schemars(transform = crate::quantity::duration, range(min = 1))]
    pub probe_rtt_interval: Time,
    /// Time spent in ProbeRTT (at least a round trip too), ns.
    #[serde(default = "default_probe_rtt_duration")]
    #[schemars(transform = crate::quantity::duration, range(min = 1))]
    pub probe_rtt_duration: Time,
    /// ProbeRTT's window, as a fraction of the BDP (at least 4 segments).
    #[serde(default = "default_probe_rtt_cwnd_gain")]
    pub probe_rtt_cwnd_gain: f64,
    /// Length of `BBR.min_rtt`'s min filter, ns (at least `probe_rtt_interval`).
    #[serde(default = "default_min_rtt_window")]
    #[schemars(transform = crate::quantity::duration, range(min = 1))]
    pub min_rtt_window: Time,
    /// The fixed part of the wall-clock wait between bandwidth probes, ns.
    #[serde(default = "default_probe_wait_base")]
    #[schemars(transform = crate::quantity::duration, range(min = 1))]
    pub probe_wait_base: Time,
    /// The random part added to it (uniform in `[0, probe_wait_random)`), ns.
    #[serde(default = "default_probe_wait_random")]
    #[schemars(transform = crate::quantity::duration)]
    pub probe_wait_random: Time,
    /// The Reno-coexistence wait between probes is at most this many round trips.
    #[serde(default = "default_probe_max_rounds")]
    #[schemars(range(min = 1))]
    pub probe_max_rounds: u32,
    /// Gain of the ACK-aggregation allowance (0: none).
    #[serde(default = "default_extra_acked_gain")]
    pub extra_acked_gain: f64,
}

fn default_startup_pacing_gain() -> f64 {
    2.77
}
fn default_two() -> f64 {
    2.0
}
fn default_drain_pacing_gain() -> f64 {
    0.35
}
fn default_probe_down_pacing_gain() -> f64 {
    0.9
}
fn default_probe_up_pacing_gain() -> f64 {
    1.25
}
fn default_loss_thresh() -> f64 {
    0.02
}
fn default_full_loss_count() -> u32 {
    6
}
fn default_beta() -> f64 {
    0.7
}
fn default_headroom() -> f64 {
    0.15
}
fn default_probe_rtt_interval() -> Time {
    5 * SECS
}
fn default_probe_rtt_duration() -> Time {
    200 * MILLIS
}
fn default_probe_rtt_cwnd_gain() -> f64 {
    0.5
}
fn default_min_rtt_window() -> Time {
    10 * SECS
}
fn default_probe_wait_base() -> Time {
    2 * SECS
}
fn default_probe_wait_random() -> Time {
    SECS
}
fn default_probe_max_rounds() -> u32 {
    63
}
fn default_extra_acked_gain() -> f64 {
    1.0
}

impl Default for Bbr3Params {
    fn default() -> Self {
        serde_json::from_str("{}").expect("all BBR v3 fields have defaults")
    }
}

impl Bbr3Params {
    /// Checks the values serde cannot; `p` is the block's path.
    pub fn check(&self, p: &str) -> Result<(), ConfigError> {
        let inf = f64::INFINITY;
        for (name, v, range, included) in [
            (
                "startup_pacing_gain",
                self.startup_pacing_gain,
                (1.0, inf),
                (false, false),
            ),
            (
                "startup_cwnd_gain",
                self.startup_cwnd_gain,
                (1.0, inf),
                (true, false),
            ),
            (
                "drain_pacing_gain",
                self.drain_pacing_gain,
                (0.0, 1.0),
                (false, true),
            ),
            ("cwnd_gain", self.cwnd_gain, (1.0, inf), (true, false)),
            (
                "probe_down_pacing_gain",
                self.probe_down_pacing_gain,
                (0.0, 1.0),
                (false, true),
            ),
            (
                "probe_up_pacing_gain",
                self.probe_up_pacing_gain,
                (1.0, inf),
                (true, false),
            ),
            ("loss_thresh", self.loss_thresh, (0.0, 1.0), (false, false)),
            ("beta", self.beta, (0.0, 1.0), (false, true)),
            ("headroom", self.headroom, (0.0, 1.0), (true, false)),
            (
                "probe_rtt_cwnd_gain",
                self.probe_rtt_cwnd_gain,
                (0.0, 1.0),
                (false, true),
            ),
            (
                "extra_acked_gain",
                self.extra_acked_gain,
                (0.0, 16.0),
                (true, true),
            ),
        ] {
            check_within(format!("{p}.{name}"), v, range, included)?;
        }
        for (name, v) in [
            ("probe_rtt_interval", self.probe_rtt_interval),
            ("probe_rtt_duration", self.probe_rtt_duration),
            ("min_rtt_window", self.min_rtt_window),
            ("probe_wait_base", self.probe_wait_base),
            ("probe_max_rounds", self.probe_max_rounds as u64),
        ] {
            crate::error::positive(format!("{p}.{name}"), v)?;
        }
        if self.probe_rtt_interval > self.min_rtt_window {
            return Err(ConfigError::new(
                format!("{p}.probe_rtt_interval"),
                "must not exceed min_rtt_window",
            ));
        }
        Ok(())
    }
}

/// BBR v3's states (the draft's §5.1.1), ProbeBW's four phases apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Exponential search for the bottleneck rate.
    Startup,
    /// Drains the queue Startup built.
    Drain,
    /// ProbeBW_DOWN: paces below `bw` until the queue and the headroom are drained.
    Down,
    /// ProbeBW_CRUISE: paces at `bw`, answering losses with the short-term bounds.
    Cruise,
    /// ProbeBW_REFILL: a round at `bw` with the short-term bounds forgotten.
    Refill,
    /// ProbeBW_UP: paces above `bw` to probe for more.
    Up,
    /// Lowers the window to half the BDP to measure `min_rtt` afresh.
    ProbeRtt,
}

impl Mode {
    /// The number the `mode` metric records (the draft's state order).
    pub fn index(self) -> f64 {
        match self {
            Mode::Startup => 0.0,
            Mode::Drain => 1.0,
            Mode::Down => 2.0,
            Mode::Cruise => 3.0,
            Mode::Refill => 4.0,
            Mode::Up => 5.0,
            Mode::ProbeRtt => 6.0,
        }
    }

    /// One of ProbeBW's phases (the draft's `IsInAProbeBWState`).
    pub fn is_probe_bw(self) -> bool {
        matches!(self, Mode::Down | Mode::Cruise | Mode::Refill | Mode::Up)
    }

    /// The draft's `IsProbingBW`: Startup, REFILL, UP.
    fn is_probing(self) -> bool {
        matches!(self, Mode::Startup | Mode::Refill | Mode::Up)
    }
}

/// What the ACKs say about bandwidth probing (the draft's `BBR.ack_phase`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AckPhase {
    /// Not probing, no probe feedback.
    Init,
    /// Refilling the pipe at `bw`.
    Refilling,
    /// In flight rising to probe.
    ProbeStarting,
    /// Feedback from the probe arriving.
    ProbeFeedback,
    /// Probe over, its feedback still arriving.
    ProbeStopping,
}

/// BBR v3's state.
pub struct Bbr3 {
    params: Bbr3Params,
    rng: Rng,
    mode: Mode,
    pacing_gain: f64,
    cwnd_gain: f64,
    rounds: Rounds,
    /// `BBR.max_bw` over the current and the previous cycle, segments/s.
    max_bw: PairMax,
    /// `BBR.bw_shortterm` (infinite: not set).
    bw_lo: f64,
    /// `BBR.inflight_longterm` (infinite: not set).
    inflight_hi: f64,
    /// `BBR.inflight_shortterm` (infinite: not set).
    inflight_lo: f64,
    /// `BBR.bw_latest`, `BBR.inflight_latest`: the round's largest rate and volume delivered.
    bw_latest: f64,
    inflight_latest: f64,
    /// `BBR.min_rtt` and when its sample was taken.
    min_rtt: Option<Time>,
    min_rtt_stamp: Time,
    /// `BBR.probe_rtt_min_delay` and when its sample was taken.
    probe_rtt_min: Option<Time>,
    probe_rtt_min_stamp: Time,
    aggregation: AckAggregation,
    /// Loss rounds (Linux's `loss_round_delivered`, `loss_round_start`).
    loss_round_delivered: u64,
    loss_round_start: bool,
    /// `BBR.is_loss_in_round`.
    loss_in_round: bool,
    /// Loss events (ACKs that marked losses) in the current Startup round.
    loss_events_in_round: u32,
    /// The full-pipe estimator.
    full_bw: f64,
    full_bw_count: u32,
    full_bw_now: bool,
    full_bw_reached: bool,
    /// ProbeBW's bookkeeping.
    ack_phase: AckPhase,
    cycle_stamp: Time,
    probe_wait: Time,
    rounds_since_probe: u64,
    bw_probe_samples: bool,
    prev_probe_too_high: bool,
    stopped_risky_probe: bool,
    bw_probe_up_rounds: u32,
    bw_probe_up_acks: f64,
    probe_up_cnt: f64,
    /// ProbeRTT's end and whether a round has passed in it.
    probe_rtt_done: Option<Time>,
    probe_rtt_round_done: bool,
    /// The window saved at recovery or ProbeRTT, to restore after.
    prior_cwnd: f64,
    prev_ca_state: CaState,
    /// The window was full in the current / the previous round.
    cwnd_limited_now: bool,
    cwnd_limited_prev: bool,
    /// The window at the end of the last hook (for losses reported between ACKs).
    cwnd: f64,
    initial_cwnd: Option<f64>,
    pacing_rate: Option<f64>,
    app_limited: bool,
    /// The states entered since the tests last looked.
    #[cfg(test)]
    path: Vec<Mode>,
}

impl Bbr3 {
    /// BBR v3 in Startup with parameters `params`.
    pub fn new(params: Bbr3Params) -> Self {
        Bbr3 {
            params,
            rng: Rng::stream(0, "bbr3"),
            mode: Mode::Startup,
            pacing_gain: params.startup_pacing_gain,
            cwnd_gain: params.startup_cwnd_gain,
            rounds: Rounds::default(),
            max_bw: PairMax::default(),
            bw_lo: f64::INFINITY,
            inflight_hi: f64::INFINITY,
            inflight_lo: f64::INFINITY,
            bw_latest: 0.0,
            inflight_latest: 0.0,
            min_rtt: None,
            min_rtt_stamp: 0,
            probe_rtt_min: None,
            probe_rtt_min_stamp: 0,
            aggregation: AckAggregation::default(),
            loss_round_delivered: 1,
            loss_round_start: false,
            loss_in_round: false,
            loss_events_in_round: 0,
            full_bw: 0.0,
            full_bw_count: 0,
            full_bw_now: false,
            full_bw_reached: false,
            ack_phase: AckPhase::Init,
            cycle_stamp: 0,
            probe_wait: 0,
            rounds_since_probe: 0,
            bw_probe_samples: false,
            prev_probe_too_high: false,
            stopped_risky_probe: false,
            bw_probe_up_rounds: 0,
            bw_probe_up_acks: 0.0,
            probe_up_cnt: f64::INFINITY,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            prior_cwnd: 0.0,
            prev_ca_state: CaState::Open,
            cwnd_limited_now: false,
            cwnd_limited_prev: false,
            cwnd: 0.0,
            initial_cwnd: None,
            pacing_rate: None,
            app_limited: false,
            #[cfg(test)]
            path: Vec::new(),
        }
    }

    /// The current state.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// `BBR.max_bw`, segments/s.
    pub fn max_bw(&self) -> f64 {
        self.max_bw.best()
    }

    /// `BBR.bw = min(max_bw, bw_shortterm)`, segments/s.
    pub fn bw(&self) -> f64 {
        self.max_bw.best().min(self.bw_lo)
    }

    /// `BBR.inflight_longterm`, segments (infinite until set).
    pub fn inflight_longterm(&self) -> f64 {
        self.inflight_hi
    }

    /// `BBR.inflight_shortterm`, segments (infinite until set).
    pub fn inflight_shortterm(&self) -> f64 {
        self.inflight_lo
    }

    /// `BBR.min_rtt`, ns.
    pub fn min_rtt(&self) -> Option<Time> {
        self.min_rtt
    }

    fn initial(&self) -> f64 {
        self.initial_cwnd.unwrap_or(MIN_CWND)
    }

    /// The draft's `BDPMultiple`: `gain x bw x min_rtt` (the initial window before an RTT
    /// sample).
    fn bdp(&self, bw: f64, gain: f64) -> f64 {
        match self.min_rtt {
            None => self.initial(),
            Some(rtt) => gain * bw * rtt as f64 / 1e9,
        }
    }

    /// The draft's `QuantizationBudget`.
    fn quantization_budget(&self, inflight: f64) -> f64 {
        let cap = inflight.max(OFFLOAD_BUDGET).max(MIN_CWND);
        if self.mode == Mode::Up {
            cap + 2.0
        } else {
            cap
        }
    }

    /// The draft's `Inflight(bw, gain)`.
    fn inflight(&self, bw: f64, gain: f64) -> f64 {
        self.quantization_budget(self.bdp(bw, gain))
    }

    /// The draft's `BBR.max_inflight`: the window's target.
    fn max_inflight(&self) -> f64 {
        let bw = self.bw();
        let mut cap = self.bdp(bw, self.cwnd_gain);
        if self.params.extra_acked_gain > 0.0 {
            cap += self.aggregation.allowance(self.params.extra_acked_gain, bw);
        }
        self.quantization_budget(cap)
    }

    /// The draft's `TargetInflight`: the BDP, unless congestion cut the window below it.
    fn target_inflight(&self, cwnd: f64) -> f64 {
        self.bdp(self.bw(), 1.0).min(cwnd)
    }

    /// The draft's `InflightWithHeadroom`.
    fn inflight_with_headroom(&self) -> f64 {
        if self.inflight_hi.is_infinite() {
            return f64::INFINITY;
        }
        let headroom = (self.params.headroom * self.inflight_hi).max(1.0);
        (self.inflight_hi - headroom).max(MIN_CWND)
    }

    fn probe_rtt_cwnd(&self) -> f64 {
        self.bdp(self.bw(), self.params.probe_rtt_cwnd_gain)
            .max(MIN_CWND)
    }

    fn is_cwnd_limited(&self) -> bool {
        self.cwnd_limited_now || self.cwnd_limited_prev
    }

    /// `IsInflightTooHigh`: `lost` segments lost out of `tx_in_flight` exceed the threshold.
    fn is_inflight_too_high(&self, lost: u64, tx_in_flight: u32) -> bool {
        lost > 0 && tx_in_flight > 0 && lost as f64 > tx_in_flight as f64 * self.params.loss_thresh
    }

    fn reset_full_bw(&mut self) {
        self.full_bw = 0.0;
        self.full_bw_count = 0;
        self.full_bw_now = false;
    }

    fn reset_lower_bounds(&mut self) {
        self.bw_lo = f64::INFINITY;
        self.inflight_lo = f64::INFINITY;
    }

    fn reset_congestion_signals(&mut self) {
        self.loss_in_round = false;
        self.bw_latest = 0.0;
        self.inflight_latest = 0.0;
    }

    fn save_cwnd(&mut self, cwnd: f64) {
        let good = self.prev_ca_state == CaState::Open && self.mode != Mode::ProbeRtt;
        self.prior_cwnd = saved_cwnd(self.prior_cwnd, cwnd, good);
    }

    /// Every change of state goes through here (tests read the path taken within an ACK).
    fn set_mode(&mut self, mode: Mode) {
        #[cfg(test)]
        self.path.push(mode);
        self.mode = mode;
    }

    /// `BBRPickProbeWait`: 0 or 1 rounds already counted, and 2-3 s of wall clock.
    fn pick_probe_wait(&mut self) {
        self.rounds_since_probe = ((self.rng.uniform() * 2.0) as u64).min(1);
        let random = (self.rng.uniform() * self.params.probe_wait_random as f64) as Time;
        self.probe_wait = self.params.probe_wait_base + random;
    }

    fn start_down(&mut self, now: Time, delivered: u64) {
        self.reset_congestion_signals();
        self.probe_up_cnt = f64::INFINITY;
        self.pick_probe_wait();
        self.cycle_stamp = now;
        self.ack_phase = AckPhase::ProbeStopping;
        self.rounds.restart(delivered);
        self.set_mode(Mode::Down);
    }

    fn start_cruise(&mut self) {
        if self.inflight_lo.is_finite() {
            self.inflight_lo = self.inflight_lo.min(self.inflight_hi);
        }
        self.set_mode(Mode::Cruise);
    }

    fn start_refill(&mut self, delivered: u64) {
        self.reset_lower_bounds();
        self.bw_probe_up_rounds = 0;
        self.bw_probe_up_acks = 0.0;
        self.stopped_risky_probe = false;
        self.ack_phase = AckPhase::Refilling;
        self.rounds.restart(delivered);
        self.set_mode(Mode::Refill);
    }

    fn start_up(&mut self, rs: &RateSample, sample_bw: f64, cwnd: f64) {
        self.ack_phase = AckPhase::ProbeStarting;
        self.rounds.restart(rs.total_delivered);
        self.cycle_stamp = rs.now;
        self.reset_full_bw();
        self.full_bw = sample_bw;
        self.set_mode(Mode::Up);
        self.raise_inflight_hi_slope(cwnd);
    }

    /// `BBRRaiseInflightLongtermSlope`: each round of UP doubles the growth.
    fn raise_inflight_hi_slope(&mut self, cwnd: f64) {
        let growth = (1u64 << self.bw_probe_up_rounds) as f64;
        self.bw_probe_up_rounds = (self.bw_probe_up_rounds + 1).min(MAX_PROBE_UP_ROUNDS);
        self.probe_up_cnt = (cwnd / growth).floor().max(1.0);
    }

    /// `BBRProbeInflightLongtermUpward`: one segment per `probe_up_cnt` acknowledged, while the
    /// window is full and at the bound.
    fn probe_inflight_hi_upward(&mut self, rs: &RateSample, cwnd: f64) {
        if !self.is_cwnd_limited() || cwnd < self.inflight_hi {
            return;
        }
        self.bw_probe_up_acks += rs.acked_sacked as f64;
        if self.bw_probe_up_acks >= self.probe_up_cnt {
            let delta = (self.bw_probe_up_acks / self.probe_up_cnt).floor();
            self.bw_probe_up_acks -= delta * self.probe_up_cnt;
            self.inflight_hi += delta;
        }
        if self.rounds.started() {
            self.raise_inflight_hi_slope(cwnd);
        }
    }

    /// `BBRHandleInflightTooHigh`: the probe went too far; `tx_in_flight` was in flight.
    fn handle_inflight_too_high(
        &mut self,
        app_limited: bool,
        tx_in_flight: f64,
        now: Time,
        delivered: u64,
    ) {
        self.prev_probe_too_high = true;
        self.bw_probe_samples = false;
        if !app_limited {
            let floor = self.target_inflight(self.cwnd) * self.params.beta;
            self.inflight_hi = tx_in_flight.max(floor);
        }
        if self.mode == Mode::Up {
            self.start_down(now, delivered);
        }
    }

    /// `InflightAtLoss`: the flight at which the losses among `tx_in_flight` segments (the lost
    /// one last) crossed the threshold.
    fn inflight_at_loss(&self, tx_in_flight: u32, lost: u64) -> f64 {
        let thresh = self.params.loss_thresh;
        let inflight_prev = tx_in_flight.saturating_sub(1) as f64;
        let lost_prev = lost.saturating_sub(1) as f64;
        let prefix = ((thresh * inflight_prev - lost_prev) / (1.0 - thresh)).max(0.0);
        inflight_prev + prefix
    }

    /// `BBRUpdateLatestDeliverySignals`.
    fn update_latest_delivery_signals(&mut self, rs: &RateSample, sample_bw: f64) {
        self.loss_round_start = false;
        if rs.rate().is_none() || rs.acked_sacked == 0 {
            return;
        }
        self.bw_latest = self.bw_latest.max(sample_bw);
        self.inflight_latest = self.inflight_latest.max(rs.delivered as f64);
        if rs
            .prior_delivered
            .is_some_and(|p| p >= self.loss_round_delivered)
        {
            self.loss_round_delivered = rs.total_delivered;
            self.loss_round_start = true;
        }
    }

    /// `BBRAdvanceLatestDeliverySignals`.
    fn advance_latest_delivery_signals(&mut self, rs: &RateSample, sample_bw: f64) {
        if self.loss_round_start {
            self.bw_latest = sample_bw;
            self.inflight_latest = rs.delivered as f64;
        }
    }

    /// `BBRUpdateCongestionSignals`: the max_bw sample, and once per round the loss response.
    fn update_congestion_signals(&mut self, rs: &RateSample, sample_bw: f64, cwnd: f64) {
        if rs.rate().is_none() || rs.acked_sacked == 0 {
            return;
        }
        if !rs.is_app_limited || sample_bw >= self.max_bw.best() {
            self.max_bw.update(sample_bw);
        }
        self.loss_in_round |= rs.losses > 0;
        if !self.loss_round_start {
            return;
        }
        self.adapt_lower_bounds(cwnd);
        self.loss_in_round = false;
    }

    /// `BBRAdaptLowerBoundsFromCongestion` with `BBRInitLowerBounds` and `BBRLossLowerBounds`.
    fn adapt_lower_bounds(&mut self, cwnd: f64) {
        if self.mode.is_probing() || !self.loss_in_round {
            return;
        }
        if self.bw_lo.is_infinite() {
            self.bw_lo = self.max_bw.best();
        }
        if self.inflight_lo.is_infinite() {
            self.inflight_lo = cwnd;
        }
        let beta = self.params.beta;
        self.bw_lo = self.bw_latest.max(beta * self.bw_lo);
        self.inflight_lo = self.inflight_latest.max(beta * self.inflight_lo);
    }

    /// `BBRCheckStartupHighLoss`.
    fn check_startup_high_loss(&mut self, rs: &RateSample) {
        if self.full_bw_reached {
            return;
        }
        if rs.losses > 0 {
            self.loss_events_in_round = (self.loss_events_in_round + 1).min(MAX_LOSS_EVENTS);
        }
        let count = self.params.full_loss_count;
        if count > 0
            && self.loss_round_start
            && rs.ca_state == CaState::Recovery
            && self.loss_events_in_round >= count
            && self.is_inflight_too_high(rs.lost(), rs.tx_in_flight)
        {
            self.full_bw_reached = true;
            let bdp = self.inflight(self.max_bw.best(), 1.0);
            self.inflight_hi = bdp.max(self.inflight_latest);
            return;
        }
        if self.loss_round_start {
            self.loss_events_in_round = 0;
        }
    }

    /// `BBRCheckFullBWReached`.
    fn check_full_bw_reached(&mut self, rs: &RateSample, sample_bw: f64) {
        if self.full_bw_now || !self.rounds.started() || rs.is_app_limited {
            return;
        }
        if sample_bw >= self.full_bw * FULL_BW_THRESH {
            self.reset_full_bw();
            self.full_bw = sample_bw;
            return;
        }
        self.full_bw_count += 1;
        self.full_bw_now = self.full_bw_count >= FULL_BW_COUNT;
        self.full_bw_reached |= self.full_bw_now;
    }

    /// `BBRCheckStartupDone` and `BBRCheckDrainDone`.
    fn check_drain(&mut self, state: &mut CcState, rs: &RateSample) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.set_mode(Mode::Drain);
            // Not used by BBR: it marks the end of Startup in traces (Linux).
            state.ssthresh = self.inflight(self.max_bw.best(), 1.0);
            self.reset_congestion_signals();
        }
        if self.mode == Mode::Drain && rs.in_flight as f64 <= self.inflight(self.max_bw.best(), 1.0)
        {
            self.start_down(rs.now, rs.total_delivered);
        }
    }

    /// `BBRAdaptLongTermModel` (Linux's `bbr_adapt_upper_bounds`); true when it decided a
    /// transition.
    fn adapt_upper_bounds(&mut self, rs: &RateSample, cwnd: f64) -> bool {
        let round_start = self.rounds.started();
        if self.ack_phase == AckPhase::ProbeStarting && round_start {
            self.ack_phase = AckPhase::ProbeFeedback;
        }
        if self.ack_phase == AckPhase::ProbeStopping && round_start {
            self.bw_probe_samples = false;
            self.ack_phase = AckPhase::Init;
            if self.mode.is_probe_bw() && !rs.is_app_limited && self.max_bw.current() > 0.0 {
                self.max_bw.advance();
            }
            if self.mode.is_probe_bw() && self.stopped_risky_probe && !self.prev_probe_too_high {
                self.start_refill(rs.total_delivered);
                return true;
            }
        }
        if self.is_inflight_too_high(rs.lost(), rs.tx_in_flight) {
            if self.bw_probe_samples {
                let tx = rs.tx_in_flight as f64;
                self.handle_inflight_too_high(rs.is_app_limited, tx, rs.now, rs.total_delivered);
            }
            return false;
        }
        if self.inflight_hi.is_infinite() {
            return false;
        }
        self.inflight_hi = self.inflight_hi.max(rs.tx_in_flight as f64);
        if self.mode == Mode::Up {
            self.probe_inflight_hi_upward(rs, cwnd);
        }
        false
    }

    /// `BBRIsTimeToProbeBW` (starting REFILL if so).
    fn check_time_to_probe_bw(&mut self, rs: &RateSample, cwnd: f64) -> bool {
        let waited = rs.now > self.cycle_stamp.saturating_add(self.probe_wait);
        let reno_rounds = (self.params.probe_max_rounds as f64).min(self.target_inflight(cwnd));
        if waited || self.rounds_since_probe as f64 >= reno_rounds {
            self.start_refill(rs.total_delivered);
            return true;
        }
        false
    }

    /// `BBRUpdateProbeBWCyclePhase`.
    fn update_cycle_phase(&mut self, rs: &RateSample, sample_bw: f64, cwnd: f64) {
        if !self.full_bw_reached || self.adapt_upper_bounds(rs, cwnd) || !self.mode.is_probe_bw() {
            return;
        }
        let inflight = rs.prior_in_flight as f64;
        match self.mode {
            Mode::Cruise => {
                self.check_time_to_probe_bw(rs, cwnd);
            }
            Mode::Refill => {
                if self.rounds.started() {
                    self.bw_probe_samples = true;
                    self.start_up(rs, sample_bw, cwnd);
                }
            }
            Mode::Up => {
                let mut done = false;
                if self.prev_probe_too_high && inflight >= self.inflight_hi {
                    self.stopped_risky_probe = true;
                    done = true;
                } else if self.is_cwnd_limited() && cwnd >= self.inflight_hi {
                    // The bound, not the path, limits the rate: the plateau test starts over.
                    self.reset_full_bw();
                    self.full_bw = sample_bw;
                } else if self.full_bw_now {
                    done = true;
                }
                if done {
                    self.prev_probe_too_high = false;
                    self.start_down(rs.now, rs.total_delivered);
                }
            }
            Mode::Down => {
                if self.check_time_to_probe_bw(rs, cwnd) {
                    return;
                }
                let headroom = inflight <= self.inflight_with_headroom();
                if headroom && inflight <= self.inflight(self.max_bw.best(), 1.0) {
                    self.start_cruise();
                }
            }
            Mode::Startup | Mode::Drain | Mode::ProbeRtt => {}
        }
    }

    /// `BBRUpdateMinRTT` and `BBRCheckProbeRTT`.
    fn update_min_rtt(&mut self, state: &mut CcState, rs: &RateSample) {
        let now = rs.now;
        let probe_rtt_expired = now
            > self
                .probe_rtt_min_stamp
                .saturating_add(self.params.probe_rtt_interval);
        if let Some(rtt) = rs.rtt {
            if self.probe_rtt_min.is_none_or(|m| rtt < m) || probe_rtt_expired {
                self.probe_rtt_min = Some(rtt);
                self.probe_rtt_min_stamp = now;
            }
        }
        let min_rtt_expired = now
            > self
                .min_rtt_stamp
                .saturating_add(self.params.min_rtt_window);
        if let Some(p) = self.probe_rtt_min {
            if self.min_rtt.is_none_or(|m| p <= m) || min_rtt_expired {
                self.min_rtt = Some(p);
                self.min_rtt_stamp = self.probe_rtt_min_stamp;
            }
        }
        if probe_rtt_expired && self.mode != Mode::ProbeRtt {
            self.save_cwnd(state.cwnd);
            self.set_mode(Mode::ProbeRtt);
            self.probe_rtt_done = None;
            self.ack_phase = AckPhase::ProbeStopping;
            self.rounds.restart(rs.total_delivered);
        }
        // ProbeRTT's low rate says nothing about the path: its samples are app-limited.
        self.app_limited = self.mode == Mode::ProbeRtt;
        if self.mode != Mode::ProbeRtt {
            return;
        }
        match self.probe_rtt_done {
            None if rs.in_flight as f64 <= self.probe_rtt_cwnd() => {
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
                    self.probe_rtt_min_stamp = now;
                    state.cwnd = state.cwnd.max(self.prior_cwnd);
                    self.exit_probe_rtt(rs);
                }
            }
        }
    }

    /// `BBRExitProbeRTT`: back to CRUISE through DOWN (the probe clock restarts), or Startup.
    fn exit_probe_rtt(&mut self, rs: &RateSample) {
        self.reset_lower_bounds();
        self.probe_rtt_done = None;
        if self.full_bw_reached {
            self.start_down(rs.now, rs.total_delivered);
            self.start_cruise();
        } else {
            self.set_mode(Mode::Startup);
        }
    }

    fn update_gains(&mut self) {
        let p = &self.params;
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (p.startup_pacing_gain, p.startup_cwnd_gain),
            Mode::Drain => (p.drain_pacing_gain, p.startup_cwnd_gain),
            Mode::Down => (p.probe_down_pacing_gain, p.cwnd_gain),
            Mode::Cruise | Mode::Refill => (1.0, p.cwnd_gain),
            Mode::Up => (
                p.probe_up_pacing_gain,
                p.cwnd_gain + PROBE_UP_EXTRA_CWND_GAIN,
            ),
            Mode::ProbeRtt => (1.0, p.probe_rtt_cwnd_gain),
        };
    }

    /// `BBRSetPacingRate`, after `BBRInitPacingRate` at the first RTT sample.
    fn set_pacing_rate(&mut self, state: &CcState) {
        if self.pacing_rate.is_none() {
            let Some(rtt) = self.min_rtt else { return };
            let nominal = state.cwnd / (rtt.max(1) as f64 / 1e9);
            let gain = self.params.startup_pacing_gain;
            self.pacing_rate = Some(gain * nominal * (1.0 - PACING_MARGIN));
        }
        let bw = self.bw();
        if bw > 0.0 {
            let rate = self.pacing_gain * bw * (1.0 - PACING_MARGIN);
            self.pacing_rate = next_pacing_rate(self.pacing_rate, rate, self.full_bw_reached);
        }
    }

    /// `BBRSetCwnd` with `BBRBoundCwndForProbeRTT`.
    fn set_cwnd(&mut self, state: &mut CcState, rs: &RateSample) {
        let acked = rs.acked_sacked as f64;
        if acked > 0.0 {
            let target = self.max_inflight();
            let cwnd = state.cwnd;
            if self.full_bw_reached {
                state.cwnd = (cwnd + acked).min(target);
            } else if cwnd < target || (rs.total_delivered as f64) < self.initial() {
                state.cwnd = cwnd + acked;
            }
            state.cwnd = state.cwnd.max(MIN_CWND);
        }
        if self.mode == Mode::ProbeRtt {
            state.cwnd = state.cwnd.min(self.probe_rtt_cwnd());
        }
    }

    /// `BBRBoundCwndForModel`: the per-state volume cap.
    fn bound_cwnd_for_model(&self, state: &mut CcState) {
        let cap = match self.mode {
            Mode::Down | Mode::Refill | Mode::Up => self.inflight_hi,
            Mode::Cruise | Mode::ProbeRtt => self.inflight_with_headroom(),
            Mode::Startup | Mode::Drain => f64::INFINITY,
        };
        let cap = cap.min(self.inflight_lo).max(MIN_CWND);
        state.cwnd = state.cwnd.min(cap);
    }
}

impl CongestionControl for Bbr3 {
    fn name(&self) -> &'static str {
        "bbr3"
    }

    fn on_ack(&mut self, _state: &mut CcState, _ack: &AckSample) {}

    /// Saves the window (restored when recovery ends) and leaves ssthresh as it is (the
    /// draft's `OnEnterFastRecovery` / `OnEnterRTO`, Linux's `bbr_ssthresh`).
    fn ssthresh(&mut self, state: &CcState, _in_flight: f64) -> f64 {
        self.save_cwnd(state.cwnd);
        state.ssthresh
    }

    fn on_event(&mut self, state: &mut CcState, event: CongestionEvent, _now: Time) {
        self.cwnd = state.cwnd;
        if event == CongestionEvent::Rto {
            // Linux's `bbr_set_state(TCP_CA_Loss)`: the plateau test starts over, and outside a
            // probe the short-term volume starts from the window before the timeout.
            self.prev_ca_state = CaState::Loss;
            self.reset_full_bw();
            if !self.mode.is_probing() && self.inflight_lo.is_infinite() {
                self.inflight_lo = state.cwnd.max(self.prior_cwnd);
            }
        }
    }

    fn controls_window(&self) -> bool {
        true
    }

    /// `HandleLostPacket` (Linux's `bbr_skb_marked_lost`).
    fn on_segment_lost(&mut self, lost: &LostSegment) {
        if !self.loss_in_round {
            self.loss_round_delivered = lost.delivered;
        }
        self.loss_in_round = true;
        if !self.bw_probe_samples {
            return;
        }
        let (tx, n) = (lost.stamp.tx_in_flight, lost.lost());
        if self.is_inflight_too_high(n, tx) {
            let at = self.inflight_at_loss(tx, n);
            self.handle_inflight_too_high(lost.stamp.app_limited, at, lost.now, lost.delivered);
        }
    }

    fn cong_control(&mut self, state: &mut CcState, rs: &RateSample) {
        if self.initial_cwnd.is_none() {
            self.initial_cwnd = Some(state.cwnd);
            self.min_rtt_stamp = rs.now;
            self.probe_rtt_min_stamp = rs.now;
        }
        if self.prev_ca_state != CaState::Open && rs.ca_state == CaState::Open {
            // RestoreCwnd on leaving recovery; the model's caps apply below.
            state.cwnd = state.cwnd.max(self.prior_cwnd);
        }
        if self.rounds.update(rs) {
            self.rounds_since_probe = self.rounds_since_probe.saturating_add(1);
            self.cwnd_limited_prev = self.cwnd_limited_now;
            self.cwnd_limited_now = false;
        }
        if rs.prior_in_flight as f64 + 1.0 > state.cwnd {
            self.cwnd_limited_now = true;
        }
        let sample_bw = rs.rate().unwrap_or(0.0);
        let cwnd = state.cwnd;
        self.update_latest_delivery_signals(rs, sample_bw);
        self.update_congestion_signals(rs, sample_bw, cwnd);
        if self.params.extra_acked_gain > 0.0 {
            let window = if self.full_bw_reached {
                EXTRA_ACKED_WINDOW_ROUNDS
            } else {
                1
            };
            let (bw, round_start) = (self.bw(), self.rounds.started());
            self.aggregation.update(rs, bw, cwnd, round_start, window);
        }
        self.check_startup_high_loss(rs);
        self.check_full_bw_reached(rs, sample_bw);
        self.check_drain(state, rs);
        self.update_cycle_phase(rs, sample_bw, cwnd);
        self.update_min_rtt(state, rs);
        self.update_gains();
        self.set_pacing_rate(state);
        self.set_cwnd(state, rs);
        self.bound_cwnd_for_model(state);
        self.advance_latest_delivery_signals(rs, sample_bw);
        self.prev_ca_state = rs.ca_state;
        self.cwnd = state.cwnd;
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
            ("max_bw", self.max_bw.best()),
            ("bw", self.bw()),
            ("bw_shortterm", self.bw_lo),
            ("inflight_longterm", self.inflight_hi),
            ("inflight_shortterm", self.inflight_lo),
            ("min_rtt_s", self.min_rtt.map_or(0.0, |m| m as f64 / 1e9)),
            ("pacing_gain", self.pacing_gain),
            ("cwnd_gain", self.cwnd_gain),
        ]
    }
}

#[cfg(test)]
mod tests;
