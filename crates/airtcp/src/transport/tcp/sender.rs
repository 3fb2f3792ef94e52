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
//! Deviations: no SYN/FIN; window in whole segments; SACK option bytes are not added to ACK sizes.

use super::cc::{AckSample, CcState, CongestionControl, CongestionEvent, DelayState};
use super::rtt::RtoEstimator;
use super::scoreboard::Scoreboard;
use super::TcpIo;
use crate::sim::header::tcp::{AckHeader, DataHeader};
use crate::sim::Time;
use crate::transport::tcp::config::{CcKind, SsthreshBasis, TcpConfig};

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
    timer: Option<Time>,
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
            board: Scoreboard::default(),
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
        if sack {
            self.board.apply_sack(ack_hdr.sack_blocks());
        }
        if ack > self.board.base() {
            self.on_new_ack(ack, now, io);
        } else if ack == self.board.base() && self.board.outstanding() > 0 {
            self.on_dup_ack(io);
        }
    }

    fn on_new_ack(&mut self, ack: u64, now: Time, io: &mut impl TcpIo) {
        let in_flight_before = self.in_flight();
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
        let mut restart_timer = true;
        if self.in_recovery {
            let full = self.recover.is_none_or(|r| ack > r);
            match (self.recovery, full) {
                (Recovery::Reno, _) => {
                    self.state.cwnd = self.state.ssthresh;
                    self.end_recovery(now);
                }
                (Recovery::NewReno, true) => {
                    let flight = self.in_flight() as f64;
                    self.state.cwnd = self.state.ssthresh.min(flight.max(1.0) + 1.0);
                    self.end_recovery(now);
                }
                (Recovery::NewReno, false) => {
                    // Partial ACK: retransmit the next hole, deflate, add back one segment.
                    let hole = self.board.base();
                    self.transmit(hole, io);
                    self.state.cwnd = (self.state.cwnd - acked as f64 + 1.0).max(1.0);
                    restart_timer = !self.partial_seen;
                    self.partial_seen = true;
                }
                (Recovery::Sack, true) => self.end_recovery(now),
                (Recovery::Sack, false) => {}
            }
        } else {
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
        if self.board.outstanding() == 0 {
            self.set_timer(None, io);
        } else if restart_timer {
            self.set_timer(Some(now.saturating_add(self.rto.rto_ns())), io);
        }
        self.send_more(io);
    }

    fn on_dup_ack(&mut self, io: &mut impl TcpIo) {
        self.dupacks += 1;
        let sack = self.recovery == Recovery::Sack;
        if sack {
            self.board.mark_losses(self.dupthresh);
        }
        if self.in_recovery {
            if !sack {
                // Each duplicate ACK means a segment left the network (window inflation).
                self.state.cwnd += 1.0;
            }
            self.send_more(io);
            return;
        }
        let may_enter = self.recover.is_none_or(|r| self.board.base() > r);
        let loss_detected = self.dupacks >= self.dupthresh
            || (sack && self.board.is_lost(self.board.base(), self.dupthresh));
        if may_enter && loss_detected {
            self.enter_recovery(io);
        } else if sack {
            self.send_more(io);
        }
    }

    fn enter_recovery(&mut self, io: &mut impl TcpIo) {
        let now = io.now();
        self.state.ssthresh = self.cc.ssthresh(&self.state, self.loss_basis());
        self.recover = Some(self.board.end() - 1);
        self.in_recovery = true;
        self.partial_seen = false;
        self.stats.recoveries += 1;
        let first = self.board.base();
        match self.recovery {
            Recovery::Reno | Recovery::NewReno => {
                self.state.cwnd = self.state.ssthresh + self.dupthresh as f64;
            }
            Recovery::Sack => {
                self.state.cwnd = self.state.ssthresh;
                self.board.mark_lost(first);
            }
        }
        self.cc
            .on_event(&mut self.state, CongestionEvent::Loss, now);
        // Fast retransmit ignores the window (RFC 5681 §3.2 step 4, RFC 6675 §5 step 4.3).
        self.transmit(first, io);
        self.send_more(io);
    }

    fn end_recovery(&mut self, now: Time) {
        self.in_recovery = false;
        self.cc
            .on_event(&mut self.state, CongestionEvent::RecoveryEnd, now);
    }

    /// The retransmission timer expired.
    pub fn on_timer(&mut self, io: &mut impl TcpIo) {
        self.timer = None;
        if self.board.outstanding() == 0 {
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
        self.dupacks = 0;
        self.cc.on_event(&mut self.state, CongestionEvent::Rto, now);
        match self.recovery {
            Recovery::Sack => self.board.mark_all_lost(),
            _ => self.snd_nxt = self.board.base(),
        }
        self.send_more(io);
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

    /// Sends whatever the window and the application allow.
    fn send_more(&mut self, io: &mut impl TcpIo) {
        match self.recovery {
            Recovery::Sack => {
                while self.state.cwnd - self.board.pipe() as f64 >= 1.0 {
                    let Some(seq) = self.next_seg() else { break };
                    self.transmit(seq, io);
                }
            }
            Recovery::Reno | Recovery::NewReno => {
                let wnd = (self.state.cwnd.floor() as u64).min(self.rwnd).max(1);
                let limit = self.board.end().max(self.app_limit);
                while self.snd_nxt < self.board.base() + wnd && self.snd_nxt < limit {
                    self.transmit(self.snd_nxt, io);
                    self.snd_nxt += 1;
                }
            }
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
        let retransmission = seq < self.board.end();
        if retransmission {
            self.board.mark_retransmitted(seq, now);
            self.stats.retransmissions += 1;
        } else {
            debug_assert_eq!(seq, self.board.end());
            self.board.push_new(now);
        }
        self.stats.packets_sent += 1;
        let last = self.total_segments == Some(seq + 1);
        let len = if last { self.last_len } else { self.mss };
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

    fn set_timer(&mut self, at: Option<Time>, io: &mut impl TcpIo) {
        self.timer = at;
        io.set_timer(at);
    }
}
