//! The TCP receiver: cumulative ACKs, delayed ACKs and SACK blocks.
//!
//! - Delayed ACKs (RFC 5681 §4.2, RFC 1122 §4.2.3.2): an ACK for every `delayed_ack` in-order
//!   segments, or when the delayed-ACK timer (`delayed_ack_timeout`) expires, whichever is first.
//! - Immediate ACKs: for an out-of-order segment (a duplicate ACK, so that fast retransmit works),
//!   for a segment that fills all or part of a gap, and for a duplicate segment (RFC 5681 §4.2).
//! - SACK (RFC 2018 §4): up to [`MAX_SACK_BLOCKS`] blocks; the first holds the segment that
//!   triggered the ACK, the others repeat the most recently reported blocks.
//! - The application reads everything delivered in order at once, so the advertised window is
//!   constant (the sender applies `rwnd`).

use super::TcpIo;
use crate::sim::header::tcp::{AckHeader, DataHeader, SackBlock, MAX_SACK_BLOCKS};
use crate::sim::Time;
use crate::transport::tcp::config::TcpConfig;

/// How many recent out-of-order arrivals are remembered for choosing SACK blocks.
const RECENT: usize = 8;

/// Counters of one receiver.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReceiverStats {
    /// Data segments received (including duplicates).
    pub segments: u64,
    /// Duplicate segments.
    pub duplicates: u64,
    /// ACKs sent.
    pub acks: u64,
}

/// The receiving half of a TCP connection.
#[derive(Debug, Clone)]
pub struct TcpReceiver {
    mss: u32,
    delayed_ack: u32,
    delayed_ack_timeout: Time,
    sack: bool,
    rcv_nxt: u64,
    /// Out-of-order data above `rcv_nxt`: sorted, disjoint `[start, end)` ranges.
    ooo: Vec<(u64, u64)>,
    /// Recent out-of-order arrivals, most recent first.
    recent: Vec<u64>,
    /// In-order segments not yet acknowledged.
    pending: u32,
    timer_armed: bool,
    final_seg: Option<(u64, u32)>,
    /// Counters.
    pub stats: ReceiverStats,
}

impl TcpReceiver {
    /// A receiver configured like its flow's sender.
    pub fn new(cfg: &TcpConfig) -> Self {
        TcpReceiver {
            mss: cfg.mss,
            delayed_ack: cfg.delayed_ack.max(1),
            delayed_ack_timeout: cfg.delayed_ack_timeout,
            sack: cfg.sack,
            rcv_nxt: 0,
            ooo: Vec::with_capacity(8),
            recent: Vec::with_capacity(RECENT + 1),
            pending: 0,
            timer_armed: false,
            final_seg: None,
            stats: ReceiverStats::default(),
        }
    }

    /// Next segment expected.
    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }

    /// Whether the last segment of a finite transfer has been delivered in order.
    pub fn complete(&self) -> bool {
        self.final_seg.is_some_and(|(seq, _)| self.rcv_nxt > seq)
    }

    /// Processes a data segment; returns the payload bytes newly delivered in order to the
    /// application.
    pub fn on_data(&mut self, h: &DataHeader, io: &mut impl TcpIo) -> u64 {
        self.stats.segments += 1;
        if h.last {
            self.final_seg = Some((h.seq, h.len));
        }
        let seq = h.seq;
        if seq < self.rcv_nxt || self.ooo.iter().any(|&(a, b)| a <= seq && seq < b) {
            self.stats.duplicates += 1;
            self.ack_now(None, io);
            return 0;
        }
        if seq > self.rcv_nxt {
            self.insert_out_of_order(seq);
            self.recent.insert(0, seq);
            self.recent.truncate(RECENT);
            self.ack_now(Some(seq), io);
            return 0;
        }
        // In order.
        let filled_gap = !self.ooo.is_empty();
        let mut end = seq + 1;
        if let Some(&(a, b)) = self.ooo.first() {
            if a == end {
                end = b;
                self.ooo.remove(0);
            }
        }
        let bytes = self.range_bytes(self.rcv_nxt, end);
        self.rcv_nxt = end;
        if filled_gap {
            self.ack_now(None, io);
        } else {
            self.pending += 1;
            if self.pending >= self.delayed_ack {
                self.ack_now(None, io);
            } else if !self.timer_armed {
                self.timer_armed = true;
                io.set_timer(Some(io.now().saturating_add(self.delayed_ack_timeout)));
            }
        }
        bytes
    }

    /// The delayed-ACK timer expired.
    pub fn on_timer(&mut self, io: &mut impl TcpIo) {
        self.timer_armed = false;
        if self.pending > 0 {
            self.ack_now(None, io);
        }
    }

    fn ack_now(&mut self, trigger: Option<u64>, io: &mut impl TcpIo) {
        self.pending = 0;
        if self.timer_armed {
            self.timer_armed = false;
            io.set_timer(None);
        }
        let mut hdr = AckHeader::cumulative(self.rcv_nxt);
        if self.sack {
            self.fill_sack(trigger, &mut hdr);
        }
        self.stats.acks += 1;
        io.send_ack(hdr);
    }

    fn fill_sack(&mut self, trigger: Option<u64>, hdr: &mut AckHeader) {
        let rcv_nxt = self.rcv_nxt;
        self.recent.retain(|&s| s >= rcv_nxt);
        let mut n = 0usize;
        let candidates = trigger.into_iter().chain(self.recent.iter().copied());
        for s in candidates {
            let Some(&(a, b)) = self.ooo.iter().find(|&&(a, b)| a <= s && s < b) else {
                continue;
            };
            if hdr.sack[..n].iter().any(|blk| blk.start == a) {
                continue;
            }
            hdr.sack[n] = SackBlock { start: a, end: b };
            n += 1;
            if n == MAX_SACK_BLOCKS {
                break;
            }
        }
        hdr.n_sack = n as u8;
    }

    fn insert_out_of_order(&mut self, seq: u64) {
        let i = self.ooo.partition_point(|&(_, b)| b < seq);
        // Extend a range ending at seq, and merge with one starting at seq + 1.
        if i < self.ooo.len() && self.ooo[i].1 == seq {
            self.ooo[i].1 = seq + 1;
            if i + 1 < self.ooo.len() && self.ooo[i + 1].0 == seq + 1 {
                self.ooo[i].1 = self.ooo[i + 1].1;
                self.ooo.remove(i + 1);
            }
        } else if i < self.ooo.len() && self.ooo[i].0 == seq + 1 {
            self.ooo[i].0 = seq;
        } else {
            self.ooo.insert(i, (seq, seq + 1));
        }
    }

    fn range_bytes(&self, start: u64, end: u64) -> u64 {
        let mut bytes = (end - start) * self.mss as u64;
        if let Some((seq, len)) = self.final_seg {
            if start <= seq && seq < end {
                bytes -= (self.mss - len) as u64;
            }
        }
        bytes
    }
}
