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
//! Every (re)transmission is stamped and every ACK yields a delivery-rate sample
//! ([`super::rate`]). A controller that sets the window itself (`controls_window`: BBR) gets the
//! sample on every ACK, in recovery too, and the recovery machinery leaves its window alone
//! except after a timeout (cwnd = 1, as Linux's `tcp_enter_loss` and ns-3 do for every
//! controller); this is Linux's `cong_control` hook and ns-3's `HasCongControl`.
//!
//! Pacing ([`super::pacing`]) spaces ordinary transmissions at the controller's rate (BBR) or,
//! with `pacing: true`, at Linux's rate from cwnd and srtt. The pacing deadline and the
//! retransmission timer share the endpoint's one timer, as Linux multiplexes its timers.
//!
//! Deviations: no SYN/FIN; window in whole segments; SACK option bytes are not added to ACK sizes.

use super::cc::{AckSample, CcState, CongestionControl, CongestionEvent, DelayState};
use super::pacing::{self, Pacer};
use super::prr::Prr;
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
    /// `pacing: true`: Linux's pacing rate for a controller without its own.
    pacing: bool,
    pacer: Pacer,
    /// After a timeout until the cumulative ACK passes `recover` (Linux's CA_Loss).
    in_loss: bool,
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
            board: {
                let mut board = Scoreboard::default();
                if cc_sets_window {
                    board.track_losses();
                }
                board
            },
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
            pacing: cfg.pacing,
            pacer: Pacer::default(),
            in_loss: false,
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
        if sack {
            self.board.apply_sack(ack_hdr.sack_blocks());
        }
        if ack > self.board.base() {
            self.on_new_ack(ack, now, before, io);
        } else if ack == self.board.base() && self.board.outstanding() > 0 {
            self.on_dup_ack(now, before, io);
        } else {
            // An old ACK: what its SACK blocks delivered counts, but it gives no sample.
            self.sample(now, before);
        }
    }

    fn on_new_ack(&mut self, ack: u64, now: Time, before: AckContext, io: &mut impl TcpIo) {
        let acked = (ack - self.board.base()) as u32;
        let newest = self.board.advance(ack).expect("ack > snd_una");
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
        if self.recovery == Recovery::Sack {
            self.board.mark_losses(self.dupthresh);
        }
        let mut rs = self.sample(now, before);
        if self.in_loss && self.recover.is_none_or(|r| ack > r) {
            self.in_loss = false;
        }
        let sets_window = !self.cc_sets_window;
        let mut restart_timer = true;
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
                    self.prr_step(rs.acked_sacked, safe);
                }
            }
        } else if sets_window {
            let sample = AckSample {
                now,
                acked,
                rtt,
                min_rtt: self.rto.min_rtt(),
                srtt: self.rto.srtt(),
                in_flight: before.in_flight,
            };
            self.cc.on_ack(&mut self.state, &sample);
        }
        self.control(&mut rs, before);
        if self.board.outstanding() == 0 {
            self.set_timer(None, io);
        } else if restart_timer {
            self.set_timer(Some(now.saturating_add(self.rto.rto_ns())), io);
        }
        self.send_more(io);
    }

    fn on_dup_ack(&mut self, now: Time, before: AckContext, io: &mut impl TcpIo) {
        self.dupacks += 1;
        let sack = self.recovery == Recovery::Sack;
        if sack {
            self.board.mark_losses(self.dupthresh);
        }
        let mut rs = self.sample(now, before);
        if self.in_recovery {
            if !sack && !self.cc_sets_window {
                // Each duplicate ACK means a segment left the network (window inflation).
                self.state.cwnd += 1.0;
            }
            self.prr_step(rs.acked_sacked, false);
            self.control(&mut rs, before);
            self.send_more(io);
            return;
        }
        let may_enter = self.recover.is_none_or(|r| self.board.base() > r);
        let loss_detected = self.dupacks >= self.dupthresh
            || (sack && self.board.is_lost(self.board.base(), self.dupthresh));
        if may_enter && loss_detected {
            self.enter_recovery(&mut rs, before, io);
        } else {
            self.control(&mut rs, before);
            if sack || self.cc_sets_window {
                self.send_more(io);
            }
        }
    }

    fn enter_recovery(&mut self, rs: &mut RateSample, before: AckContext, io: &mut impl TcpIo) {
        let now = io.now();
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
                self.board.mark_lost(first);
                if self.use_prr && !self.cc_sets_window {
                    self.prr = Some(Prr::enter(recover_fs));
                    self.prr_step(rs.acked_sacked, false);
                } else if !self.cc_sets_window {
                    self.state.cwnd = self.state.ssthresh;
                }
            }
        }
        self.cc
            .on_event(&mut self.state, CongestionEvent::Loss, now);
        self.control(rs, before);
        // Fast retransmit ignores the window (RFC 5681 §3.2 step 4, RFC 6675 §5 step 4.3).
        self.transmit(first, io);
        self.send_more(io);
    }

    fn end_recovery(&mut self, now: Time) {
        self.in_recovery = false;
        self.prr = None;
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

    /// The delivery-rate sample of the ACK being processed (what it delivered, folded into the
    /// estimator); the fields about losses, flight and state are filled by [`Self::control`].
    fn sample(&mut self, now: Time, before: AckContext) -> RateSample {
        let got = self.board.take_delivered();
        let mut rs = self.rate.on_ack(now, &got, self.rto.min_rtt());
        rs.rtt = got.newest_clean_sent_at.map(|t| now - t);
        rs.prior_in_flight = before.in_flight;
        rs.mss = self.mss;
        rs
    }

    /// Hands a controller that sets the window itself (BBR) the ACK's sample, once the ACK's
    /// loss detection and recovery state are settled (Linux's `tcp_cong_control` after
    /// `tcp_fastretrans_alert`).
    fn control(&mut self, rs: &mut RateSample, before: AckContext) {
        if !self.cc_sets_window {
            return;
        }
        rs.losses = (self.board.lost_marked() - before.lost) as u32;
        rs.in_flight = self.in_flight();
        rs.total_lost = self.board.lost_marked();
        rs.ca_state = self.ca_state();
        self.report_losses(rs.now);
        self.cc.cong_control(&mut self.state, rs);
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

    /// The endpoint's timer fired: the pacing deadline, the retransmission timer, or both.
    pub fn on_timer(&mut self, io: &mut impl TcpIo) {
        let now = io.now();
        self.pacer.expire(now);
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
        if self.pacer.deadline().is_some() {
            self.arm(io);
        }
    }

    /// The draft's `CheckIfApplicationLimited` (§3.4): out of data with window to spare and no
    /// lost segment waiting for its retransmission.
    fn check_app_limited(&mut self) {
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
        if self.in_recovery {
            return self.board.first_hole_unretransmitted();
        }
        None
    }

    fn transmit(&mut self, seq: u64, io: &mut impl TcpIo) {
        let now = io.now();
        let mut stamp = self.rate.on_send(now, self.board.outstanding());
        stamp.tx_in_flight = self.in_flight() + 1;
        stamp.lost = self.board.lost_marked();
        let retransmission = seq < self.board.end();
        if retransmission {
            self.board.mark_retransmitted(seq, now);
            self.stats.retransmissions += 1;
        } else {
            debug_assert_eq!(seq, self.board.end());
            self.board.push_new(now);
        }
        self.board.set_stamp(seq, stamp);
        if let Some(prr) = self.prr.as_mut() {
            prr.on_send();
        }
        self.stats.packets_sent += 1;
        let last = self.total_segments == Some(seq + 1);
        let len = if last { self.last_len } else { self.mss };
        if let Some(rate) = self.pacing_rate() {
            self.pacer.sent(now, len as f64 / self.mss as f64, rate);
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

    /// Sets (or cancels) the retransmission timer.
    fn set_timer(&mut self, at: Option<Time>, io: &mut impl TcpIo) {
        self.timer = at;
        self.arm(io);
    }

    /// Arms the endpoint's one timer for the earlier of the retransmission and pacing deadlines.
    fn arm(&mut self, io: &mut impl TcpIo) {
        let at = match (self.timer, self.pacer.deadline()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        io.set_timer(at);
    }
}

/// What the sender knew before an ACK's bookkeeping.
#[derive(Debug, Clone, Copy)]
struct AckContext {
    /// Segments in flight.
    in_flight: u32,
    /// Segments marked lost so far.
    lost: u64,
}
