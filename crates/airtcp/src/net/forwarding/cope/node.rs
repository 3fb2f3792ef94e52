//! What one COPE node keeps (spec 001 §2.2) besides its output queue (`queue.rs`): its knowledge
//! (pool, reports to send, neighbours' reports), the natives it took as next hop, its retransmission
//! buffer and acknowledgement state, and when it owes its neighbours a report or an ACK.

use serde::Serialize;

use super::params::CopeParams;
use crate::coding::cope_ack::{AckBlock, AckState, Retransmissions};
use crate::coding::cope_state::{Knowledge, Pool};
use crate::mac::frame::RadioId;
use crate::sim::{NodeId, Time};

/// How long a next hop remembers the natives it took, to tell a retransmission of one (its
/// ACK was lost) from a new native [I]: four times COPE's pool lifetime covers the coder's
/// three retransmissions after its queue.
pub const ACCEPTED_LIFETIME_FACTOR: Time = 4;

/// "Never": no deadline, no timer.
pub(crate) const NEVER: Time = Time::MAX;

/// A node's counters, one row of the results' `coding` table.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CodingRow {
    /// The node.
    pub node: String,
    /// Data frames sent (each with one native or more), MAC retries not counted.
    pub frames: u64,
    /// Of those, frames with 1, 2, ... 8 natives.
    pub frames_1: u64,
    /// Frames with 2 natives.
    pub frames_2: u64,
    /// Frames with 3 natives.
    pub frames_3: u64,
    /// Frames with 4 natives.
    pub frames_4: u64,
    /// Frames with 5 natives.
    pub frames_5: u64,
    /// Frames with 6 natives.
    pub frames_6: u64,
    /// Frames with 7 natives.
    pub frames_7: u64,
    /// Frames with 8 natives.
    pub frames_8: u64,
    /// Natives sent, coded or not.
    pub natives_sent: u64,
    /// Natives sent inside coded frames.
    pub natives_coded: u64,
    /// Natives this node was a next hop of that it could not decode (a side native missing).
    pub decode_failures: u64,
    /// Natives it was a next hop of and had taken already (MAC or COPE retransmissions).
    pub duplicates: u64,
    /// Natives it put back at the head of its queue after their COPE ACK timed out.
    pub retransmissions: u64,
    /// Natives it dropped after `retry_limit` COPE retransmissions.
    pub retry_drops: u64,
    /// Control packets (a report or ACKs alone) sent.
    pub control_packets: u64,
    /// Their bytes.
    pub control_bytes: u64,
    /// COPE header bytes on every frame it sent (data and control).
    pub header_bytes: u64,
    /// Natives it listed in reception reports.
    pub natives_reported: u64,
    /// ACK blocks it sent.
    pub ack_blocks: u64,
    /// BFLY pairs it coded (first hop: two natives to one relay).
    pub bfly_pairs: u64,
    /// BFLY pairs it forwarded undecoded as their relay.
    pub bfly_forwarded: u64,
    /// ACKs it owed a BFLY coder for relay copies their decoders acknowledged.
    pub relayed_acks: u64,
    /// Relay copies it released unacknowledged after Ta.
    pub relay_timeouts: u64,
    /// Seconds its output queue held data natives of at least two flows (a coding partner for
    /// a flow's packet could be there): paper 001's Example 1 is the rest of the run.
    pub two_flows_s: f64,
}

impl CodingRow {
    /// Counts a data frame of `natives` natives.
    pub fn count_frame(&mut self, natives: usize) {
        self.frames += 1;
        self.natives_sent += natives as u64;
        if natives > 1 {
            self.natives_coded += natives as u64;
        }
        let slot = match natives {
            1 => &mut self.frames_1,
            2 => &mut self.frames_2,
            3 => &mut self.frames_3,
            4 => &mut self.frames_4,
            5 => &mut self.frames_5,
            6 => &mut self.frames_6,
            7 => &mut self.frames_7,
            _ => &mut self.frames_8,
        };
        *slot += 1;
    }
}

/// One node's COPE state.
#[derive(Debug, Clone)]
pub struct CopeNode {
    /// Its radio (`NO_RADIO`: a node without one, which takes no part).
    pub radio: RadioId,
    /// Its neighbours (node ids, ascending: the order the coding rule tries them in).
    pub neighbours: Vec<NodeId>,
    /// Delivery probability from this node to each neighbour (indexed like `neighbours`).
    pub delivery: Vec<f64>,
    /// Pool, reports to send, neighbours' reports (native ids are packet uids).
    pub knowledge: Knowledge,
    /// Natives taken as next hop (uids), to recognise retransmissions.
    pub accepted: Pool,
    /// BFLY pairs taken as their relay (the first native's uid), likewise.
    pub pairs: Pool,
    /// Natives sent coded and not yet acknowledged.
    pub retx: Retransmissions,
    /// Per neighbour (as coder), which of its coded natives this node decoded.
    pub acks: Vec<AckState>,
    /// Per neighbour, whether an ACK block is owed.
    pub ack_owed: Vec<bool>,
    /// Since when natives wait to be reported ([`NEVER`]: none).
    pub report_since: Time,
    /// Since when an ACK is owed ([`NEVER`]: none).
    pub ack_since: Time,
    /// A control packet is due at the next transmit opportunity.
    pub control_due: bool,
    /// When the node's timer is armed for ([`NEVER`]: not armed).
    pub timer_at: Time,
    /// Natives held: queued, waiting for a COPE ACK, or in the MAC alone.
    pub held: u64,
    /// Its counters.
    pub row: CodingRow,
    /// Data natives queued per flow (flows with none left out), for `two_flows_s`.
    pub data_queued: Vec<(u32, u32)>,
    /// Since when the queue holds data of two flows or more ([`NEVER`]: it does not).
    pub two_flows_since: Time,
    /// Time it did so, closed intervals, ns.
    pub two_flows_ns: Time,
}

impl CopeNode {
    /// A node with `radio`, its `neighbours` (sorted) and the delivery to each.
    pub fn new(
        radio: RadioId,
        neighbours: Vec<NodeId>,
        delivery: Vec<f64>,
        p: &CopeParams,
    ) -> Self {
        let n = neighbours.len();
        let mut knowledge = Knowledge::new(&neighbours, p.pool_lifetime);
        if !p.knowledge.reports() {
            knowledge = knowledge.without_reports();
        }
        CopeNode {
            radio,
            knowledge,
            accepted: Pool::new(p.pool_lifetime.saturating_mul(ACCEPTED_LIFETIME_FACTOR)),
            pairs: Pool::new(p.pool_lifetime.saturating_mul(ACCEPTED_LIFETIME_FACTOR)),
            retx: Retransmissions::new(&neighbours, p.ack_timeout, p.retry_limit),
            acks: vec![AckState::default(); n],
            ack_owed: vec![false; n],
            neighbours,
            delivery,
            report_since: NEVER,
            ack_since: NEVER,
            control_due: false,
            timer_at: NEVER,
            held: 0,
            row: CodingRow::default(),
            data_queued: Vec::new(),
            two_flows_since: NEVER,
            two_flows_ns: 0,
        }
    }

    /// A data native of `flow` joined (`joined`) or left the output queue at `now`.
    pub fn data_queued(&mut self, flow: u32, joined: bool, now: Time) {
        match self.data_queued.iter().position(|&(f, _)| f == flow) {
            Some(i) if joined => self.data_queued[i].1 += 1,
            Some(i) => {
                self.data_queued[i].1 -= 1;
                if self.data_queued[i].1 == 0 {
                    self.data_queued.swap_remove(i);
                }
            }
            None if joined => self.data_queued.push((flow, 1)),
            None => {}
        }
        let two = self.data_queued.len() >= 2;
        if two && self.two_flows_since == NEVER {
            self.two_flows_since = now;
        } else if !two && self.two_flows_since != NEVER {
            self.two_flows_ns += now - self.two_flows_since;
            self.two_flows_since = NEVER;
        }
    }

    /// Seconds the queue held data of two flows or more, up to `end`.
    pub fn two_flows_s(&self, end: Time) -> f64 {
        let open = if self.two_flows_since == NEVER {
            0
        } else {
            end.saturating_sub(self.two_flows_since)
        };
        (self.two_flows_ns + open) as f64 * 1e-9
    }

    /// The index of neighbour `n`.
    #[inline]
    pub fn neighbour_index(&self, n: NodeId) -> Option<usize> {
        self.neighbours.binary_search(&n).ok()
    }

    /// The delivery probability from this node to `n` (0 if not a neighbour).
    #[inline]
    pub fn delivery_to(&self, n: NodeId) -> f64 {
        self.neighbour_index(n).map_or(0.0, |i| self.delivery[i])
    }

    /// When a control packet becomes due if nothing carries what is owed before (NEVER: nothing
    /// owed, or already due).
    pub fn control_deadline(&self, p: &CopeParams) -> Time {
        if self.control_due {
            return NEVER;
        }
        let report = if p.knowledge.reports() {
            self.report_since.saturating_add(p.report_idle)
        } else {
            NEVER
        };
        report.min(self.ack_since.saturating_add(p.ack_delay))
    }

    /// When the node's timer should next fire: the earliest retransmission deadline or
    /// control deadline.
    pub fn next_wake(&self, p: &CopeParams) -> Time {
        self.retx
            .next_deadline()
            .unwrap_or(NEVER)
            .min(self.control_deadline(p))
    }

    /// The ACK blocks owed, into `out` (cleared): one per neighbour owed one, then none is owed.
    pub fn take_acks(&mut self, out: &mut Vec<(NodeId, AckBlock)>) {
        out.clear();
        for i in 0..self.neighbours.len() {
            if std::mem::take(&mut self.ack_owed[i]) {
                if let Some(block) = self.acks[i].block() {
                    out.push((self.neighbours[i], block));
                }
            }
        }
        self.ack_since = NEVER;
    }

    /// Native `seq` of coder `coder` was decoded here (or again): an ACK is owed from `now`.
    pub fn owe_ack(&mut self, coder: NodeId, seq: u32, now: Time) {
        if let Some(i) = self.neighbour_index(coder) {
            self.acks[i].received(seq);
            self.ack_owed[i] = true;
            if self.ack_since == NEVER {
                self.ack_since = now;
            }
        }
    }
}
