//! Congestion control behind one trait, so that Vegas, Cubic, Compound, FAST and QUIC-TCP plug in
//! beside Reno.
//!
//! The split follows ns-3's `TcpCongestionOps` (and Linux's `tcp_congestion_ops`): the sender owns
//! the window state ([`CcState`]) and the loss-recovery machinery; the algorithm decides how the
//! window grows on ACKs ([`CongestionControl::on_ack`]) and what the slow-start threshold becomes
//! after a congestion event ([`CongestionControl::ssthresh`]). Windows are in segments (f64, so
//! that congestion avoidance can add fractions of a segment per ACK).
//!
//! The controllers a scenario can name are listed in [`registry`], one entry each.

pub mod bbr;
pub mod compound;
pub mod cubic;
pub mod fast;
pub mod hystart;
pub mod linux_reno;
pub mod quic_tcp;
pub mod registry;
pub mod reno;
pub mod vegas;

use crate::error::ConfigError;
use crate::sim::Time;
use crate::transport::tcp::config::TcpConfig;
use crate::transport::tcp::rate::{LostSegment, RateSample};

/// Window state shared by the sender and its algorithm.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CcState {
    /// Congestion window, segments.
    pub cwnd: f64,
    /// Slow-start threshold, segments (`f64::INFINITY` until the first congestion event).
    pub ssthresh: f64,
}

impl CcState {
    /// Whether the sender is in slow start (RFC 5681 §3.1: cwnd < ssthresh).
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }
}

/// One ACK that acknowledged new data outside loss recovery.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AckSample {
    /// Arrival time.
    pub now: Time,
    /// Segments newly acknowledged by this ACK.
    pub acked: u32,
    /// RTT measured from this ACK (Karn's rule applied), ns.
    pub rtt: Option<Time>,
    /// Smallest RTT seen so far, ns.
    pub min_rtt: Option<Time>,
    /// Smoothed RTT, ns.
    pub srtt: Option<Time>,
    /// Segments outstanding before this ACK.
    pub in_flight: u32,
}

/// Congestion signals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CongestionEvent {
    /// Loss detected by duplicate ACKs or SACK: fast retransmit / recovery starts.
    Loss,
    /// The retransmission timer expired.
    Rto,
    /// Loss recovery ended (full ACK).
    RecoveryEnd,
}

/// A congestion-control algorithm. Hooks never read a clock: time comes with the arguments.
pub trait CongestionControl: Send {
    /// Name used in results ("newreno", "cubic", ...).
    fn name(&self) -> &'static str;
    /// Grows (or shrinks, for delay-based algorithms) the window on an ACK of new data outside
    /// loss recovery.
    fn on_ack(&mut self, state: &mut CcState, ack: &AckSample);
    /// The slow-start threshold after a congestion event with `in_flight` segments outstanding.
    fn ssthresh(&mut self, state: &CcState, in_flight: f64) -> f64;
    /// Notification after the sender has applied a congestion event to `state`.
    fn on_event(&mut self, _state: &mut CcState, _event: CongestionEvent, _now: Time) {}
    /// Algorithm-specific variables for traces (name, value).
    fn metrics(&self) -> Vec<(&'static str, f64)> {
        Vec::new()
    }
    /// The delay estimates of a delay-based window law (FAST, QUIC-TCP), which the cwnd trace
    /// records in its `avg_rtt_s`, `base_rtt_s` and `v` columns; None for algorithms without
    /// them. Called at every trace sample, so it allocates nothing.
    fn delay_state(&self) -> Option<DelayState> {
        None
    }
    /// Whether the algorithm sets the window itself on every ACK from delivery-rate samples
    /// ([`CongestionControl::cong_control`]), as BBR does: Linux's `cong_control` hook, ns-3's
    /// `HasCongControl`. The sender then neither calls `on_ack` nor moves the window in loss
    /// recovery (PRR included), except to one segment after a timeout.
    fn controls_window(&self) -> bool {
        false
    }
    /// Every ACK's delivery-rate sample, for an algorithm that [`controls_window`]
    /// (`Self::controls_window`), after the ACK's loss detection; it sets `state.cwnd`.
    fn cong_control(&mut self, _state: &mut CcState, _rs: &RateSample) {}
    /// Each segment the sender newly marks lost (SACK scoreboard or timeout), for an algorithm
    /// that [`controls_window`](Self::controls_window): on an ACK before its `cong_control`, after
    /// a timeout at once (the draft-ietf-ccwg-bbr `HandleLostPacket`, Linux's
    /// `skb_marked_lost`).
    fn on_segment_lost(&mut self, _lost: &LostSegment) {}
    /// The rate the algorithm paces transmissions at, segments per second (None: the sender's
    /// `pacing` setting decides).
    fn pacing_rate(&self) -> Option<f64> {
        None
    }
    /// Whether the sender should mark its delivery-rate samples app-limited now (BBR's
    /// ProbeRTT, whose low rate says nothing about the path).
    fn marks_app_limited(&self) -> bool {
        false
    }
    /// Gives the algorithm the flow's own random stream (BBR draws its first ProbeBW phase).
    fn set_random(&mut self, _rng: crate::sim::rng::Rng) {}
}

/// What a delay-based window law estimates: each value None until it is first known.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct DelayState {
    /// The average RTT the law uses (QUIC-TCP's AvgRTT of eq. 8, FAST's avgRTT), s.
    pub avg_rtt_s: Option<f64>,
    /// BaseRTT, the smallest RTT seen, s.
    pub base_rtt_s: Option<f64>,
    /// v = w - (BaseRTT/AvgRTT) w - target backlog (p_s, FAST's alpha) at the last window
    /// computation, segments: the flow's estimated backlog minus its target (0 at equilibrium).
    pub v: Option<f64>,
}

/// Round-trip bookkeeping for algorithms that act once per RTT (Vegas, FAST).
///
/// ns-2's Vegas tags the next segment to be sent (`v_begseq_`) and ends the round when an ACK
/// covers it. [`AckSample`] carries no sequence numbers, so the same test is made in time: a
/// round that began at `start` ends with the first ACK whose RTT sample shows that the newly
/// acknowledged segment was sent at or after `start` (`now - rtt >= start`). ACKs without a
/// sample (Karn's rule) cannot end a round. The first sample ends the initial, empty round, as
/// ns-2's first ACK does (`v_begseq_` starts at 0).
#[derive(Debug, Clone, Default)]
pub(crate) struct Rounds {
    start: Option<Time>,
}

impl Rounds {
    /// Feeds one ACK; true when it ends the current round (the next one starts at `now`).
    pub(crate) fn ends_round(&mut self, now: Time, rtt: Option<Time>) -> bool {
        let Some(rtt) = rtt else { return false };
        let ended = self.start.is_none_or(|s| now.saturating_sub(rtt) >= s);
        if ended {
            self.start = Some(now);
        }
        ended
    }

    /// Forgets the current round: the next RTT sample starts a new one.
    pub(crate) fn restart(&mut self) {
        self.start = None;
    }
}

/// FAST's update cadence (Jin, Wei & Low 2004, §3 and its ns-2/Linux implementation): the window
/// is computed at the end of every other round (updated in one RTT, frozen in the next, so that
/// the RTT measured while frozen belongs to the window just set); a decrease applies at once, an
/// increase is spread over the next round's ACKs, `(target - w) / w` segments per acknowledged
/// segment. Shared by FAST and QUIC-TCP's `fast_rounds` cadence; the window law is the caller's.
#[derive(Debug, Clone)]
pub(crate) struct FastRounds {
    rounds: Rounds,
    /// Whether the round that ends next computes a new window (else it freezes the window).
    update_next: bool,
    /// Window the current increase is heading for, segments.
    target: f64,
    /// Increase per acknowledged segment until `target` is reached.
    step: f64,
}

impl Default for FastRounds {
    fn default() -> Self {
        FastRounds {
            rounds: Rounds::default(),
            update_next: true,
            target: 0.0,
            step: 0.0,
        }
    }
}

impl FastRounds {
    /// Feeds one ACK; true when it ends a round that computes a new window (every other round).
    /// Whatever increase is still being paced stops at the end of every round.
    pub(crate) fn computes(&mut self, now: Time, rtt: Option<Time>) -> bool {
        if !self.rounds.ends_round(now, rtt) {
            return false;
        }
        let update = self.update_next;
        self.update_next = !update;
        self.step = 0.0;
        update
    }

    /// Heads for the window `target` just computed from `state.cwnd`: a decrease at once, an
    /// increase paced by [`FastRounds::pace`].
    pub(crate) fn head_for(&mut self, state: &mut CcState, target: f64) {
        let w = state.cwnd;
        if target < w {
            state.cwnd = target;
        } else {
            self.target = target;
            self.step = (target - w) / w;
        }
    }

    /// The paced increase owed to an ACK of `acked` segments.
    pub(crate) fn pace(&self, state: &mut CcState, acked: u32) {
        if self.step > 0.0 && state.cwnd < self.target {
            state.cwnd = (state.cwnd + self.step * acked as f64).min(self.target);
        }
    }

    /// Starts over (after slow start, a loss or a timeout): the next RTT sample computes a window
    /// and starts a round, which freezes it.
    pub(crate) fn restart(&mut self) {
        self.rounds.restart();
        self.update_next = true;
        self.step = 0.0;
    }
}

/// Refuses a parameter outside `(low, high)`, each end included as `included` says (an infinite
/// `high`: only a lower bound), or not finite; worded as the Python front end words it.
pub(crate) fn check_within(
    path: String,
    v: f64,
    (low, high): (f64, f64),
    (low_in, high_in): (bool, bool),
) -> Result<(), ConfigError> {
    let above = if low_in { v >= low } else { v > low };
    let below = if high_in { v <= high } else { v < high };
    if above && below && v.is_finite() {
        return Ok(());
    }
    let message = if high.is_infinite() {
        format!("must be greater than {low}, got {v}")
    } else {
        let interval = format!(
            "{}{low}, {high}{}",
            if low_in { '[' } else { '(' },
            if high_in { ']' } else { ')' }
        );
        format!("must be within {interval}, got {v}")
    };
    Err(ConfigError::new(path, message))
}

/// Refuses a parameter that is not finite or breaks `ok`, with `rule` saying what it must be
/// (`{v}` prints like Python's `{v:g}` for the values users write: 2, 0.5, 1e-3).
pub(crate) fn check_rule(path: String, v: f64, ok: bool, rule: &str) -> Result<(), ConfigError> {
    if v.is_finite() && ok {
        Ok(())
    } else {
        Err(ConfigError::new(path, format!("{rule}, got {v}")))
    }
}

/// serde's default for the switches that are on unless turned off.
pub(crate) fn default_true() -> bool {
    true
}

/// Builds the algorithm a TCP configuration selects, with its parameter block (or the
/// defaults when the block is absent).
pub fn build(cfg: &TcpConfig) -> Box<dyn CongestionControl> {
    cfg.cc.build(&cfg.cc_params)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kinds_that_trace_delay_state_are_the_algorithms_that_report_it() {
        for kind in registry::CcKind::ALL {
            let cfg = TcpConfig {
                cc: *kind,
                ..TcpConfig::default()
            };
            assert_eq!(
                build(&cfg).delay_state().is_some(),
                cfg.cc.traces_delay_state(),
                "{kind:?}"
            );
        }
    }
}
