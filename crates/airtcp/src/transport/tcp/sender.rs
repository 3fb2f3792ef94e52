//! The TCP sender: windows, loss recovery and the retransmission timer.
//!
//! Loss recovery, selected per flow:
//! - [`Recovery::Reno`] — ns-2's TCP-Reno: fast retransmit on the `dupthresh`-th duplicate ACK,
//!   ssthresh = max(FlightSize/2, 2) (RFC 5681 eq. 4), cwnd = ssthresh + dupthresh, +1 per further
//!   duplicate ACK; the first ACK of new data ends recovery with cwnd = ssthresh, even if it is
//!   partial (which is why Reno needs a timeout for most multi-loss windows).
//! - [`Recovery::NewReno`] — RFC 6582 §3.2: as Reno, but a partial ACK retransmits the next hole,
//!   deflates cwnd by the amount acknowledged and adds back one segment, and recovery ends only
//!   when the ACK covers `recover` (cwnd = min(ssthresh, FlightSize + 1), option 1 of step 3).
//!   The retransmission timer is reset on the first partial ACK only ("Impatient" variant).
//! - [`Recovery::Sack`] — RFC 6675: the SACK scoreboard, recovery entered on `dupthresh` duplicate
//!   ACKs or when `IsLost(HighACK + 1)`, cwnd = ssthresh, transmission while cwnd - pipe >= 1 with
//!   `NextSeg()` rules 1-3 (rule 4, the rescue retransmission, is not implemented). Outside
//!   recovery the same pipe rule sends new data, which also gives RFC 3042 limited transmit.
//!
//! Entering recovery is refused while the cumulative ACK does not cover `recover`, the highest
//! segment outstanding when the last recovery or timeout began (RFC 6582 §3.2 step 2, RFC 6675 §5,
//! ns-2's `bug_fix_`).
//!
//! Timeout (RFC 6298 §5, RFC 5681 §3.1): ssthresh = max(FlightSize/2, 2) on the first expiry only
//! (held for repeated timeouts of one segment), cwnd = 1, the RTO backs off, and sending restarts
//! from the first unacknowledged segment: go-back-N without SACK, or every un-SACKed segment
//! marked lost with SACK (the scoreboard is kept). Karn's rule: only ACKs of segments never
//! retransmitted give RTT samples. The timer restarts on every ACK of new data (RFC 6298 §5.3)
//! and stops when nothing is outstanding.
//!
//! The amount ssthresh is halved from is configurable (`ssthresh_basis`): FlightSize by default
//! (RFC 5681 eq. 4, RFC 6675 §5 step 4.2), the window (ns-2, Linux) or the pipe (ns-3).
//!
//! With `recovery: prr` (SACK only) the window during recovery follows RFC 9937's Proportional
//! Rate Reduction ([`super::prr`]) instead of dropping to ssthresh at once, and is ssthresh when
//! recovery ends (Linux's `tcp_end_cwnd_reduction`).
//!
//! A controller that sets the window itself (`controls_window`: BBR) gets a delivery-rate sample
//! ([`super::rate`]) on every ACK, in recovery too (every (re)transmission is stamped for it),
//! and the recovery machinery leaves its window alone except after a timeout (cwnd = 1, as
//! Linux's `tcp_enter_loss` and ns-3 do for every controller); this is Linux's `cong_control`
//! hook and ns-3's `HasCongControl`.
//!
//! Pacing ([`super::pacing`]) spaces ordinary transmissions at the controller's rate (BBR) or,
//! with `pacing: true`, at Linux's rate from cwnd and srtt. The pacing deadline and the
//! retransmission timer share the endpoint's one timer, as Linux multiplexes its timers.
//!
//! With `rack_tlp: true` (SACK only), RFC 8985 RACK-TLP ([`super::rack`]) detects losses by
//! time in place of the DupThresh rules, as Linux does: recovery begins when RACK deems a segment
//! lost (on an ACK or when its reordering timer fires), only segments deemed lost are
//! retransmitted, and a Tail Loss Probe goes out 2 SRTT after the last ACK or transmission. Both
//! timers share the endpoint's one timer with the RTO and pacing deadlines.
//!
//! Speed: a sender with none of BBR, PRR, pacing or RACK-TLP (`extras` false) skips their
//! bookkeeping on its per-segment paths (stamps, rate samples, the multiplexed timer), so the
//! classic controllers' loop costs what it did before those existed (bench/README.md, "This
//! build against another").
//!
//! Deviations: no SYN/FIN; window in whole segments; SACK option bytes are not added to ACK sizes.

use super::cc::{AckSample, CcState, CongestionControl, CongestionEvent, DelayState};
use super::pacing::{self, Pacer};
use super::prr::Prr;
use super::rack::{DeliveredSeg, Rack, Tlp, TlpVerdict};
use super::rate::{CaState, DeliveryRate, LostSegment, RateSample};
use super::rtt::RtoEstimator;
use super::scoreboard::Scoreboard;
use super::TcpIo;
use crate::sim::header::tcp::{AckHeader, DataHeader};
use crate::sim::Time;
use crate::transport::tcp::config::{CcKind, RecoveryWindow, SsthreshBasis, TcpConfig};

/// Loss-recovery flavour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recovery {
    /// ns-2 TCP-Reno.
    Reno,
    /// RFC 6582 NewReno.
    NewReno,
    /// RFC 6675 SACK-based recovery.
    Sack,
}

impl Recovery {
    /// The flavour a TCP configuration selects: SACK whenever the option is on, otherwise the
    /// one the congestion-control name implies (ns-2's Reno agent for `reno`, NewReno otherwise).
    pub fn from_config(cfg: &TcpConfig) -> Self {
        match (cfg.sack, cfg.cc) {
            (true, _) => Recovery::Sack,
            (false, CcKind::Reno) => Recovery::Reno,
            (false, _) => Recovery::NewReno,
        }
    }
}

/// Counters of one sender.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SenderStats {
    /// Data segments put on the wire.
    pub packets_sent: u64,
    /// Of which retransmissions.
    pub retransmissions: u64,
    /// Fast-retransmit / recovery episodes.
    pub recoveries: u64,
    /// Retransmission timeouts.
    pub timeouts: u64,
    /// Sum of RTT samples, ns.
    pub rtt_sum: f64,
    /// Number of RTT samples.
    pub rtt_samples: u64,
    /// Tail loss probes sent (`rack_tlp`).
    pub tlp_probes: u64,
    /// Probes whose ACK showed they repaired a loss (RFC 8985 §7.4), each answered with a window
    /// reduction.
    pub tlp_recoveries: u64,
    /// Expiries of RACK's reordering timer (`rack_tlp`).
    pub rack_timeouts: u64,
    /// Retransmissions RACK inferred spurious: the ACK came sooner than min_RTT after them
    /// (`rack_tlp`).
    pub spurious_inferred: u64,
}

/// The sending half of a TCP connection.
pub struct TcpSender {
    mss: u32,
    dupthresh: u32,
    rwnd: u64,
    recovery: Recovery,
    ssthresh_basis: SsthreshBasis,
    cc: Box<dyn CongestionControl>,
    state: CcState,
    board: Scoreboard,
    /// Next segment to send without SACK (below `board.end()` after a timeout: go-back-N).
    snd_nxt: u64,
    /// Segments the application has handed over (u64::MAX: unlimited).
    app_limit: u64,
    total_segments: Option<u64>,
    last_len: u32,
    dupacks: u32,
    in_recovery: bool,
    recover: Option<u64>,
    partial_seen: bool,
    rto: RtoEstimator,
    /// The retransmission timer's deadline.
    timer: Option<Time>,
    /// RFC 9937 PRR sets the window in recovery (`recovery: prr`).
    use_prr: bool,
    /// PRR's state during a recovery episode.
    prr: Option<Prr>,
    /// The controller sets the window on every ACK from rate samples (BBR).
    cc_sets_window: bool,
    /// Delivery-rate estimation.
    rate: DeliveryRate,
    /// The rate sample of the ACK being processed (`cc_sets_window` only).
    rs: RateSample,
    /// Any of BBR's bookkeeping, RACK-TLP, PRR or pacing is on. Without them the per-segment
    /// paths skip those features' checks: the classic senders' loop stays as fast as before
    /// they existed.
    extras: bool,
    /// `pacing: true`: Linux's pacing rate for a controller without its own.
    pacing: bool,
    pacer: Pacer,
    /// After a timeout until the cumulative ACK passes `recover` (Linux's CA_Loss).
    in_loss: bool,
    /// RFC 8985 RACK and TLP (`rack_tlp: true`).
    rack: Option<Box<RackTlp>>,
    /// Counters.
    pub stats: SenderStats,
    /// (time, sample, srtt) of every RTT sample, when tracing.
    pub rtt_log: Option<Vec<(Time, Time, Time)>>,
}

impl TcpSender {
    /// A sender for a transfer of `bytes` bytes (unlimited if `None`); it sends nothing until
    /// [`TcpSender::start`].
    pub fn new(cfg: &TcpConfig, cc: Box<dyn CongestionControl>, bytes: Option<u64>) -> Self {
        let mss = cfg.mss as u64;
        let total_segments = bytes.map(|b| b.div_ceil(mss).max(1));
        let last_len = match bytes {
            Some(b) if b % mss != 0 => (b % mss) as u32,
            _ => cfg.mss,
        };
        let cc_sets_window = cc.controls_window();
        let rack_tlp = cfg.rack_tlp && cfg.sack;
        let mut board = Scoreboard::default();
        if cc.controls_window() {
            board.track_rates();
            board.track_losses();
        }
        if rack_tlp {
            board.track_deliveries();
        }
        TcpSender {
            mss: cfg.mss,
            dupthresh: cfg.dupthresh,
            rwnd: (cfg.rwnd / mss).max(1),
            recovery: Recovery::from_config(cfg),
            ssthresh_basis: cfg.ssthresh_basis,
            cc,
            state: CcState {
                cwnd: cfg.initial_cwnd as f64,
                ssthresh: cfg.initial_ssthresh.map_or(f64::INFINITY, |s| s as f64),
            },
            board,
            snd_nxt: 0,
            app_limit: 0,
            total_segments,
            last_len,
            dupacks: 0,
            in_recovery: false,
            recover: None,
            partial_seen: false,
            rto: RtoEstimator::new(
                cfg.initial_rto,
                cfg.min_rto,
                cfg.max_rto,
                cfg.clock_granularity,
            ),
            timer: None,
            use_prr: cfg.recovery == RecoveryWindow::Prr,
            prr: None,
            cc_sets_window,
            rate: DeliveryRate::default(),
            rs: RateSample::default(),
            extras: cc_sets_window || rack_tlp || cfg.pacing || cfg.recovery == RecoveryWindow::Prr,
            pacing: cfg.pacing,
            pacer: Pacer::default(),
            in_loss: false,
            rack: rack_tlp.then(Box::default),
            stats: SenderStats::default(),
            rtt_log: None,
        }
    }

    /// Congestion window, segments.
    pub fn cwnd(&self) -> f64 {
        self.state.cwnd
    }

    /// Slow-start threshold, segments.
    pub fn ssthresh(&self) -> f64 {
        self.state.ssthresh
    }

    /// The congestion control's own variables (BBR's mode, BtlBw, RTprop, gains), for traces.
    pub fn cc_metrics(&self) -> Vec<(&'static str, f64)> {
        self.cc.metrics()
    }

    /// The congestion control's delay estimates, for a delay-based law (FAST, QUIC-TCP).
    pub fn delay_state(&self) -> Option<DelayState> {
        self.cc.delay_state()
    }

    /// Segments believed in the network (RFC 6675 pipe with SACK, FlightSize without).
    pub fn in_flight(&self) -> u32 {
        match self.recovery {
            Recovery::Sack => self.board.pipe(),
            _ => (self.snd_nxt.max(self.board.base()) - self.board.base()) as u32,
        }
    }

    /// First unacknowledged segment.
    pub fn snd_una(&self) -> u64 {
        self.board.base()
    }

    /// Whether the sender is in fast recovery.
    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    /// The loss-recovery flavour.
    pub fn recovery(&self) -> Recovery {
        self.recovery
    }

    /// Name of the congestion-control algorithm.
    pub fn cc_name(&self) -> &'static str {
        self.cc.name()
    }

    /// The loss-recovery state (Linux's `icsk_ca_state`).
    pub fn ca_state(&self) -> CaState {
        if self.in_recovery {
            CaState::Recovery
        } else if self.in_loss {
            CaState::Loss
        } else {
            CaState::Open
        }
    }

    /// Segments delivered so far (the delivery-rate estimator's C.delivered).
    pub fn delivered(&self) -> u64 {
        self.rate.delivered
    }

    /// The rate transmissions are paced at, segments per second, if any.
    pub fn pacing_rate(&self) -> Option<f64> {
        match self.cc.pacing_rate() {
            Some(rate) => Some(rate),
            None if self.pacing => pacing::linux_rate(
                self.state.cwnd,
                self.state.ssthresh,
                self.in_flight(),
                self.rto.srtt(),
            ),
            None => None,
        }
    }

    /// Smoothed RTT, ns.
    pub fn srtt(&self) -> Option<Time> {
        self.rto.srtt()
    }

    /// Current retransmission timeout, ns.
    pub fn rto(&self) -> Time {
        self.rto.rto_ns()
    }

    /// The application starts: data becomes available and the first window goes out.
    pub fn start(&mut self, io: &mut impl TcpIo) {
        self.app_limit = self.total_segments.unwrap_or(u64::MAX);
        self.send_more(io);
    }

    /// The application stops: no new data after what has been sent (retransmissions go on).
    pub fn stop(&mut self) {
        self.app_limit = self.app_limit.min(self.board.end().max(self.snd_nxt));
    }

    /// Processes an acknowledgement.
    pub fn on_ack(&mut self, ack_hdr: &AckHeader, io: &mut impl TcpIo) {
        let now = io.now();
        let ack = ack_hdr.ack;
        if ack > self.board.end() {
            return; // acknowledges data never sent: ignore, as RFC 9293 requires
        }
        let sack = self.recovery == Recovery::Sack;
        let before = AckContext {
            in_flight: self.in_flight(),
            lost: self.board.lost_marked(),
        };
        let newly_sacked = if sack {
            self.board.apply_sack(ack_hdr.sack_blocks())
        } else {
            0
        };
        if let Some(rt) = self.rack.as_mut() {
            let (base, outstanding) = (self.board.base(), self.board.outstanding());
            // An ACK that tells nothing new while data is out: the receiver's ACK of a
            // duplicate segment (RACK's DSACK stand-in).
            rt.duplicate = ack == base && newly_sacked == 0 && outstanding > 0;
            if rt.tlp.on_ack(ack, ack > base, newly_sacked > 0) == TlpVerdict::Loss {
                self.tlp_loss_response(now);
            }
        }
        if ack > self.board.base() {
            self.on_new_ack(ack, now, before, newly_sacked, io);
        } else if ack == self.board.base() && self.board.outstanding() > 0 {
            self.on_dup_ack(now, before, newly_sacked, io);
        } else {
            // An old ACK: what its SACK blocks delivered counts, but it gives no sample.
            self.rack_on_ack(now);
            self.sample(now, before, newly_sacked);
        }
        if self.rack.is_some() {
            // The reordering timer may have been armed or stopped.
            self.arm(io);
        }
    }

    fn on_new_ack(
        &mut self,
        ack: u64,
        now: Time,
        before: AckContext,
        newly_sacked: u32,
        io: &mut impl TcpIo,
    ) {
        // What the window laws see as "in flight before this ACK" is the pipe after its SACK
        // blocks (the sample's `prior_in_flight`, as Linux's, is before them).
        let in_flight_before = self.in_flight();
        let acked = (ack - self.board.base()) as u32;
        let sacked_before = self.board.sacked();
        let newest = self.board.advance(ack).expect("ack > snd_una");
        // Segments this ACK delivered (RFC 9937's DeliveredData): those it SACKed, and those it
        // acknowledged cumulatively that no earlier SACK had reported.
        let delivered = acked - (sacked_before - self.board.sacked()) + newly_sacked;
        self.snd_nxt = self.snd_nxt.max(ack);
        self.dupacks = 0;
        // Karn's rule: a retransmitted segment's ACK is ambiguous.
        let rtt = (!newest.ever_retx).then(|| now - newest.sent_at);
        if let Some(r) = rtt {
            self.rto.sample(r);
            self.stats.rtt_sum += r as f64;
            self.stats.rtt_samples += 1;
            if let Some(log) = self.rtt_log.as_mut() {
                log.push((now, r, self.rto.srtt().unwrap_or(r)));
            }
        }
        if self.rack.is_some() {
            self.rack_on_ack(now);
        } else if self.recovery == Recovery::Sack {
            self.board.mark_losses(self.dupthresh);
        }
        let delivered = self.sample(now, before, delivered);
        if self.in_loss && self.recover.is_none_or(|r| ack > r) {
            self.in_loss = false;
            if let Some(rt) = self.rack.as_mut() {
                rt.rack.on_recovery_end();
            }
        }
        let sets_window = !self.cc_sets_window;
        let mut restart_timer = true;
        let mut entered = false;
        if self.in_recovery {
            let full = self.recover.is_none_or(|r| ack > r);
            match (self.recovery, full) {
                (Recovery::Reno, _) => {
                    if sets_window {
                        self.state.cwnd = self.state.ssthresh;
                    }
                    self.end_recovery(now);
                }
                (Recovery::NewReno, true) => {
                    if sets_window {
                        let flight = self.in_flight() as f64;
                        self.state.cwnd = self.state.ssthresh.min(flight.max(1.0) + 1.0);
                    }
                    self.end_recovery(now);
                }
                (Recovery::NewReno, false) => {
                    // Partial ACK: retransmit the next hole, deflate, add back one segment.
                    let hole = self.board.base();
                    self.transmit(hole, io);
                    if sets_window {
                        self.state.cwnd = (self.state.cwnd - acked as f64 + 1.0).max(1.0);
                    }
                    restart_timer = !self.partial_seen;
                    self.partial_seen = true;
                }
                (Recovery::Sack, true) => {
                    if sets_window && self.prr.is_some() {
                        self.state.cwnd = self.state.ssthresh;
                    }
                    self.end_recovery(now);
                }
                (Recovery::Sack, false) => {
                    // A partial ACK advances snd.una: safe unless it revealed a new loss.
                    let safe = self.board.lost_marked() == before.lost;
                    self.prr_step(delivered, safe);
                }
            }
        } else if self.rack_wants_recovery() {
            // RACK deemed a segment lost: fast recovery (Linux enters it on any ACK).
            self.enter_recovery(Some((delivered, before)), io);
            entered = true;
        } else if sets_window {
            let sample = AckSample {
                now,
                acked,
                rtt,
                min_rtt: self.rto.min_rtt(),
                srtt: self.rto.srtt(),
                in_flight: in_flight_before,
            };
            self.cc.on_ack(&mut self.state, &sample);
        }
        if !entered {
            self.control(before);
        }
        if self.board.outstanding() == 0 {
            if let Some(rt) = self.rack.as_mut() {
                rt.rack.on_idle();
            }
            self.set_timer(None, io);
        } else if restart_timer {
            self.set_timer(Some(now.saturating_add(self.rto.rto_ns())), io);
        }
        // RFC 8985 §7.2: an ACK of new data (re)starts the probe timer.
        self.schedule_tlp(now);
        self.send_more(io);
    }

    fn on_dup_ack(
        &mut self,
        now: Time,
        before: AckContext,
        newly_sacked: u32,
        io: &mut impl TcpIo,
    ) {
        self.dupacks += 1;
        let sack = self.recovery == Recovery::Sack;
        if self.rack.is_some() {
            self.rack_on_ack(now);
        } else if sack {
            self.board.mark_losses(self.dupthresh);
        }
        let delivered = self.sample(now, before, newly_sacked);
        if self.in_recovery {
            if !sack && !self.cc_sets_window {
                // Each duplicate ACK means a segment left the network (window inflation).
                self.state.cwnd += 1.0;
            }
            self.prr_step(delivered, false);
            self.control(before);
            self.send_more(io);
            return;
        }
        let may_enter = self.recover.is_none_or(|r| self.board.base() > r);
        let loss_detected = match self.rack {
            // RACK only, as Linux with RACK: a segment deemed lost.
            Some(_) => self.board.lost_outstanding() > 0,
            None => {
                self.dupacks >= self.dupthresh
                    || (sack && self.board.is_lost(self.board.base(), self.dupthresh))
            }
        };
        if may_enter && loss_detected {
            self.enter_recovery(Some((delivered, before)), io);
        } else {
            self.control(before);
            if sack || self.cc_sets_window {
                self.send_more(io);
            }
        }
    }

    /// Fast recovery begins, on an ACK (`ack`: the segments it delivered and what preceded it)
    /// or when RACK's reordering timer found a loss (`None`).
    fn enter_recovery(&mut self, ack: Option<(u32, AckContext)>, io: &mut impl TcpIo) {
        let now = io.now();
        let delivered = ack.map_or(0, |(delivered, _)| delivered);
        self.state.ssthresh = self.cc.ssthresh(&self.state, self.loss_basis());
        self.recover = Some(self.board.end() - 1);
        self.in_recovery = true;
        self.partial_seen = false;
        self.stats.recoveries += 1;
        let first = self.board.base();
        match self.recovery {
            Recovery::Reno | Recovery::NewReno => {
                if !self.cc_sets_window {
                    self.state.cwnd = self.state.ssthresh + self.dupthresh as f64;
                }
            }
            Recovery::Sack => {
                let recover_fs = self.board.pipe();
                if self.rack.is_none() {
                    self.board.mark_lost(first);
                }
                if self.use_prr && !self.cc_sets_window {
                    self.prr = Some(Prr::enter(recover_fs));
                    self.prr_step(delivered, false);
                } else if !self.cc_sets_window {
                    self.state.cwnd = self.state.ssthresh;
                }
            }
        }
        if let Some(rt) = self.rack.as_mut() {
            // The recovery is the response: a probe episode ends (Linux's
            // `tcp_init_cwnd_reduction` clears `tlp_high_seq`).
            rt.tlp.cancel();
        }
        self.cc
            .on_event(&mut self.state, CongestionEvent::Loss, now);
        if let Some((_, before)) = ack {
            self.control(before);
        }
        // Fast retransmit ignores the window (RFC 5681 §3.2 step 4, RFC 6675 §5 step 4.3); with
        // RACK it is the first segment deemed lost.
        let first = match self.rack {
            Some(_) => self.board.first_lost_unretransmitted(),
            None => Some(first),
        };
        if let Some(seq) = first {
            self.transmit(seq, io);
        }
        self.send_more(io);
    }

    fn end_recovery(&mut self, now: Time) {
        self.in_recovery = false;
        self.prr = None;
        if let Some(rt) = self.rack.as_mut() {
            rt.rack.on_recovery_end();
        }
        self.cc
            .on_event(&mut self.state, CongestionEvent::RecoveryEnd, now);
    }

    /// PRR's window for an ACK in recovery that delivered `delivered` segments (nothing without
    /// PRR).
    fn prr_step(&mut self, delivered: u32, safe: bool) {
        if let Some(prr) = self.prr.as_mut() {
            let pipe = self.board.pipe();
            self.state.cwnd = prr.on_ack(delivered, safe, pipe, self.state.ssthresh);
        }
    }

    /// The segments the ACK being processed delivered (`delivered`); for a controller that sets
    /// the window, also its delivery-rate sample, folded into the estimator, in `self.rs` (the
    /// fields about losses, flight and state are filled by [`Self::control`]).
    #[inline]
    fn sample(&mut self, now: Time, before: AckContext, delivered: u32) -> u32 {
        if self.cc_sets_window {
            self.rate_sample(now, before, delivered)
        } else {
            delivered
        }
    }

    fn rate_sample(&mut self, now: Time, before: AckContext, delivered: u32) -> u32 {
        let got = self.board.take_delivered();
        debug_assert_eq!(got.count, delivered, "the scoreboard's tally of the ACK");
        let mut rs = self.rate.on_ack(now, &got, self.rto.min_rtt());
        rs.rtt = got.newest_clean_sent_at.map(|t| now - t);
        rs.prior_in_flight = before.in_flight;
        rs.mss = self.mss;
        self.rs = rs;
        self.rs.acked_sacked
    }

    /// Hands a controller that sets the window itself (BBR) the ACK's sample, once the ACK's
    /// loss detection and recovery state are settled (Linux's `tcp_cong_control` after
    /// `tcp_fastretrans_alert`).
    #[inline]
    fn control(&mut self, before: AckContext) {
        if self.cc_sets_window {
            self.cong_control(before);
        }
    }

    fn cong_control(&mut self, before: AckContext) {
        let lost = self.board.lost_marked();
        self.rs.losses = (lost - before.lost) as u32;
        self.rs.in_flight = self.in_flight();
        self.rs.total_lost = lost;
        self.rs.ca_state = self.ca_state();
        self.report_losses(self.rs.now);
        self.cc.cong_control(&mut self.state, &self.rs);
        if self.cc.marks_app_limited() {
            self.rate.mark_app_limited(self.in_flight());
        }
    }

    /// Hands a controller that sets the window itself each segment newly marked lost.
    fn report_losses(&mut self, now: Time) {
        let delivered = self.rate.delivered;
        for (stamp, total_lost) in self.board.drain_losses() {
            let lost = LostSegment {
                now,
                stamp,
                total_lost,
                delivered,
            };
            self.cc.on_segment_lost(&lost);
        }
    }

    /// The endpoint's timer fired: the pacing deadline, the retransmission timer, RACK's
    /// reordering timer, the loss probe's, or several. The probe goes before the retransmission
    /// timer due at the same time (the PTO is capped at it; Linux's slot would hold the probe).
    pub fn on_timer(&mut self, io: &mut impl TcpIo) {
        let now = io.now();
        self.pacer.expire(now);
        if let Some(rt) = self.rack.as_ref() {
            let (reo, pto) = (rt.rack.deadline, rt.tlp.deadline);
            if reo.is_some_and(|t| t <= now) {
                self.on_reo_timeout(io);
            }
            if pto.is_some_and(|t| t <= now) {
                self.on_pto(io);
            }
        }
        if self.timer.is_some_and(|t| t <= now) {
            self.on_rto(io);
        } else {
            self.send_more(io);
            self.arm(io);
        }
    }

    fn on_rto(&mut self, io: &mut impl TcpIo) {
        self.timer = None;
        if self.board.outstanding() == 0 {
            self.arm(io);
            return;
        }
        let now = io.now();
        self.stats.timeouts += 1;
        if self.rto.backoff() == 0 {
            self.state.ssthresh = self.cc.ssthresh(&self.state, self.loss_basis());
        }
        self.state.cwnd = 1.0;
        self.rto.back_off();
        self.recover = Some(self.board.end() - 1);
        self.in_recovery = false;
        self.prr = None;
        self.in_loss = true;
        self.dupacks = 0;
        if let Some(rt) = self.rack.as_mut() {
            rt.rack.on_rto();
            rt.tlp.cancel();
        }
        self.cc.on_event(&mut self.state, CongestionEvent::Rto, now);
        match self.recovery {
            Recovery::Sack => {
                self.board.mark_all_lost();
                self.report_losses(now);
            }
            _ => self.snd_nxt = self.board.base(),
        }
        self.send_more(io);
        self.arm(io);
    }

    /// RFC 8985 §6.2 for one ACK, after its SACK blocks and cumulative point are applied: the
    /// RACK state from the segments it delivered, then loss detection if that advanced it.
    fn rack_on_ack(&mut self, now: Time) {
        let Some(rt) = self.rack.as_mut() else {
            return;
        };
        self.board.take_delivered_segments(&mut rt.scratch);
        let min_rtt = self.rto.min_rtt().unwrap_or(Time::MAX);
        let (una, nxt) = (self.board.base(), self.board.end());
        let dup = std::mem::take(&mut rt.duplicate);
        let spurious = rt
            .rack
            .on_delivered(now, min_rtt, &rt.scratch, una, nxt, dup);
        self.stats.spurious_inferred += spurious as u64;
        if rt.rack.advanced() {
            self.rack_detect(now);
        }
    }

    /// RFC 8985 §6.2 steps 4-5: marks what RACK deems lost and arms its reordering timer.
    fn rack_detect(&mut self, now: Time) {
        let Some(rt) = self.rack.as_mut() else {
            return;
        };
        let reo_wnd = rt.rack.reo_wnd(
            self.in_recovery || self.in_loss,
            self.board.sacked(),
            self.dupthresh,
            self.rto.min_rtt().unwrap_or(Time::MAX),
            self.rto.srtt(),
        );
        let board = &mut self.board;
        rt.rack
            .detect_loss(now, reo_wnd, |seq| board.mark_lost_again(seq));
    }

    /// Whether RACK has deemed a segment lost outside recovery, where recovery may begin
    /// (Linux's `tcp_time_to_recover` with RACK: `lost_out > 0`).
    fn rack_wants_recovery(&self) -> bool {
        self.rack.is_some()
            && !self.in_recovery
            && !self.in_loss
            && self.board.lost_outstanding() > 0
            && self.recover.is_none_or(|r| self.board.base() > r)
    }

    /// RACK's reordering timer fired (RFC 8985 §6.3, Linux's `tcp_rack_reo_timeout`): the
    /// segments whose wait is over are lost, and recovery begins if it has not.
    fn on_reo_timeout(&mut self, io: &mut impl TcpIo) {
        let now = io.now();
        self.stats.rack_timeouts += 1;
        let lost = self.board.lost_marked();
        self.rack_detect(now);
        if self.board.lost_marked() > lost && self.rack_wants_recovery() {
            self.enter_recovery(None, io);
        }
    }

    /// RFC 8985 §7.2: (re)starts the probe timer where a probe is allowed, stops it elsewhere.
    fn schedule_tlp(&mut self, now: Time) {
        let Some(rt) = self.rack.as_mut() else {
            return;
        };
        let outstanding = self.board.outstanding();
        let open = !self.in_recovery && !self.in_loss && outstanding > 0;
        rt.tlp.deadline = (open && rt.tlp.end_seq.is_none()).then(|| {
            let rto_left = self.timer.map(|t| t.saturating_sub(now));
            now + Tlp::pto(self.rto.srtt(), outstanding, rto_left)
        });
    }

    /// The probe timer fired (RFC 8985 §7.3, Linux's `tcp_send_loss_probe`): one new segment
    /// if there is one and the receiver window allows (beyond cwnd), else the highest segment
    /// again; the retransmission timer restarts from now.
    fn on_pto(&mut self, io: &mut impl TcpIo) {
        let now = io.now();
        let Some(rt) = self.rack.as_mut() else {
            return;
        };
        rt.tlp.deadline = None;
        let outstanding = self.board.outstanding();
        if outstanding == 0 || self.in_recovery || self.in_loss || rt.tlp.end_seq.is_some() {
            return;
        }
        let end = self.board.end();
        let new_data = end < self.app_limit && end < self.board.base() + self.rwnd;
        self.transmit(if new_data { end } else { end - 1 }, io);
        let rt = self.rack.as_mut().expect("rack_tlp");
        rt.tlp.end_seq = Some(self.board.end());
        rt.tlp.is_retrans = !new_data;
        self.stats.tlp_probes += 1;
        self.set_timer(Some(now.saturating_add(self.rto.rto_ns())), io);
    }

    /// The probe repaired a loss (RFC 8985 §7.4): the window is reduced as by a fast recovery
    /// that ends at once (Linux's CWR: `tcp_init_cwnd_reduction`, `tcp_end_cwnd_reduction`).
    fn tlp_loss_response(&mut self, now: Time) {
        self.stats.tlp_recoveries += 1;
        self.state.ssthresh = self.cc.ssthresh(&self.state, self.loss_basis());
        if !self.cc_sets_window {
            self.state.cwnd = self.state.ssthresh;
        }
        self.cc
            .on_event(&mut self.state, CongestionEvent::Loss, now);
        self.cc
            .on_event(&mut self.state, CongestionEvent::RecoveryEnd, now);
    }

    /// The amount ssthresh is computed from at a congestion event (see [`SsthreshBasis`]).
    fn loss_basis(&self) -> f64 {
        match self.ssthresh_basis {
            SsthreshBasis::FlightSize => self.board.outstanding() as f64,
            SsthreshBasis::Cwnd => self.state.cwnd,
            SsthreshBasis::Pipe => match self.recovery {
                Recovery::Sack => self.board.pipe() as f64,
                _ => self.in_flight().saturating_sub(self.dupacks) as f64,
            },
        }
    }

    /// Sends whatever the window, the pacing rate and the application allow.
    fn send_more(&mut self, io: &mut impl TcpIo) {
        let now = io.now();
        let end_before = self.board.end();
        match self.recovery {
            Recovery::Sack => {
                while self.state.cwnd - self.board.pipe() as f64 >= 1.0 {
                    if !self.pacer.ready(now) {
                        break;
                    }
                    let Some(seq) = self.next_seg() else {
                        self.check_app_limited();
                        break;
                    };
                    self.transmit(seq, io);
                }
            }
            Recovery::Reno | Recovery::NewReno => {
                let wnd = (self.state.cwnd.floor() as u64).min(self.rwnd).max(1);
                let limit = self.board.end().max(self.app_limit);
                while self.snd_nxt < self.board.base() + wnd && self.snd_nxt < limit {
                    if !self.pacer.ready(now) {
                        break;
                    }
                    self.transmit(self.snd_nxt, io);
                    self.snd_nxt += 1;
                }
                if self.snd_nxt >= limit && self.snd_nxt < self.board.base() + wnd {
                    self.check_app_limited();
                }
            }
        }
        if !self.extras {
            return;
        }
        if self.rack.is_some() && self.board.end() > end_before {
            // RFC 8985 §7.2: new data (re)starts the probe timer.
            self.schedule_tlp(now);
            self.arm(io);
        } else if self.pacer.deadline().is_some() {
            self.arm(io);
        }
    }

    /// The draft's `CheckIfApplicationLimited` (§3.4): out of data with window to spare and no
    /// lost segment waiting for its retransmission.
    fn check_app_limited(&mut self) {
        if !self.cc_sets_window {
            return;
        }
        let end = self.board.end().max(self.snd_nxt);
        let no_data = end >= self.app_limit;
        let waiting = self.recovery == Recovery::Sack && self.board.lost_waiting();
        if no_data && (self.in_flight() as f64) < self.state.cwnd && !waiting {
            self.rate.mark_app_limited(self.in_flight());
        }
    }

    /// RFC 6675 NextSeg(): lost segments first, then new data, then (in recovery) holes below
    /// the highest SACKed segment.
    fn next_seg(&mut self) -> Option<u64> {
        if let Some(seq) = self.board.first_lost_unretransmitted() {
            return Some(seq);
        }
        let end = self.board.end();
        if end < self.app_limit && end < self.board.base() + self.rwnd {
            return Some(end);
        }
        // Rule 3 (holes not deemed lost); RACK retransmits only what it deemed lost, as Linux.
        if self.in_recovery && self.rack.is_none() {
            return self.board.first_hole_unretransmitted();
        }
        None
    }

    fn transmit(&mut self, seq: u64, io: &mut impl TcpIo) {
        let now = io.now();
        let retransmission = seq < self.board.end();
        let last = self.total_segments == Some(seq + 1);
        let len = if last { self.last_len } else { self.mss };
        if self.extras {
            self.record_send_with_extras(seq, retransmission, len, now);
        } else {
            self.record_send(seq, retransmission, now);
        }
        io.window_hint((self.state.cwnd.floor() as u64).min(self.rwnd).max(1));
        io.send_data(DataHeader {
            seq,
            len,
            last,
            retransmission,
        });
        if self.timer.is_none() {
            self.set_timer(Some(now.saturating_add(self.rto.rto_ns())), io);
        }
    }

    /// The scoreboard and the counters record a (re)transmission of `seq`.
    #[inline]
    fn record_send(&mut self, seq: u64, retransmission: bool, now: Time) {
        if retransmission {
            self.board.mark_retransmitted(seq, now);
            self.stats.retransmissions += 1;
        } else {
            debug_assert_eq!(seq, self.board.end());
            self.board.push_new(now);
        }
        self.stats.packets_sent += 1;
    }

    /// [`Self::record_send`] with what RACK, BBR, PRR and pacing note of the transmission (out
    /// of line: the classic senders' path stays short).
    #[inline(never)]
    fn record_send_with_extras(&mut self, seq: u64, retransmission: bool, len: u32, now: Time) {
        let before = self.before_send(seq, retransmission, now);
        self.record_send(seq, retransmission, now);
        self.after_send(seq, len, before, now);
    }

    /// What RACK and BBR note of a (re)transmission of `seq` before the scoreboard records it.
    fn before_send(&mut self, seq: u64, retransmission: bool, now: Time) -> SendContext {
        if let Some(rt) = self.rack.as_mut() {
            let previous = retransmission.then(|| self.board.get(seq));
            if previous.is_none_or(|p| !p.sacked) {
                rt.rack.on_send(seq, previous.map(|p| p.sent_at), now);
            }
        }
        if !self.cc_sets_window {
            return SendContext::default();
        }
        SendContext {
            outstanding: self.board.outstanding(),
            tx_in_flight: self.in_flight() + 1,
        }
    }

    /// The delivery-rate stamp (BBR), PRR's count and the pacing gap of a transmission of `len`
    /// bytes of `seq`.
    fn after_send(&mut self, seq: u64, len: u32, before: SendContext, now: Time) {
        if self.cc_sets_window {
            // Only a controller that reads delivery rates (BBR) pays for stamping segments.
            let mut stamp = self.rate.on_send(now, before.outstanding);
            stamp.tx_in_flight = before.tx_in_flight;
            stamp.lost = self.board.lost_marked();
            self.board.set_stamp(seq, stamp);
        }
        if let Some(prr) = self.prr.as_mut() {
            prr.on_send();
        }
        if self.pacing || self.cc_sets_window {
            if let Some(rate) = self.pacing_rate() {
                self.pacer.sent(now, len as f64 / self.mss as f64, rate);
            }
        }
    }

    /// Sets (or cancels) the retransmission timer.
    fn set_timer(&mut self, at: Option<Time>, io: &mut impl TcpIo) {
        self.timer = at;
        self.arm(io);
    }

    /// Arms the endpoint's one timer for the earliest of the retransmission and pacing deadlines
    /// and, with RACK-TLP, the reordering and probe deadlines.
    #[inline]
    fn arm(&mut self, io: &mut impl TcpIo) {
        if self.extras {
            self.arm_earliest(io);
        } else {
            // Neither pacing nor RACK-TLP: the retransmission timer is the only deadline.
            io.set_timer(self.timer);
        }
    }

    fn arm_earliest(&mut self, io: &mut impl TcpIo) {
        let earliest = |a: Option<Time>, b: Option<Time>| match (a, b) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let mut at = earliest(self.timer, self.pacer.deadline());
        if let Some(rt) = self.rack.as_ref() {
            at = earliest(at, earliest(rt.rack.deadline, rt.tlp.deadline));
        }
        io.set_timer(at);
    }
}

/// RACK-TLP's state beside the sender's (`rack_tlp: true`).
#[derive(Debug, Default)]
struct RackTlp {
    rack: Rack,
    tlp: Tlp,
    /// Scratch: the segments one ACK newly delivered.
    scratch: Vec<DeliveredSeg>,
    /// The ACK being processed reports a duplicate segment.
    duplicate: bool,
}

/// What BBR's stamp of a transmission needs from before the scoreboard records it.
#[derive(Debug, Clone, Copy, Default)]
struct SendContext {
    /// Segments outstanding.
    outstanding: u32,
    /// BBR v3's RS.tx_in_flight: what is in flight once the segment has left.
    tx_in_flight: u32,
}

/// What the sender knew before an ACK's bookkeeping.
#[derive(Debug, Clone, Copy)]
struct AckContext {
    /// Segments in flight.
    in_flight: u32,
    /// Segments marked lost so far.
    lost: u64,
}
