//! What one COPE node keeps (spec 001 §2.2) besides its output queue (`queue.rs`): its knowledge
//! (pool, reports to send, neighbours' reports), the natives it took as next hop, its retransmission
//! buffer and acknowledgement state, and when it owes its neighbours a report or an ACK.

use serde::Serialize;

use super::params::{ControlTiming, CopeParams};
use crate::coding::cope_ack::{AckBlock, AckState, Retransmissions};
use crate::coding::cope_state::{Knowledge, Pool};
use crate::mac::frame::RadioId;
use crate::mac::timing::Timing;
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
    /// Seconds on the air of their data frames: first attempts, preamble included, at the rates
    /// the run starts with (broadcasts at the basic rate); RTS/CTS, MAC ACKs, retries and
    /// backoff not counted.
    pub control_airtime_s: f64,
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

/// What a node's frames take on the air: its radio's timing and the bytes its MAC adds, and the
/// rate of its unicast frames to each neighbour (indexed like its neighbours).
#[derive(Debug, Clone)]
pub struct Airtime {
    /// The radio's DCF timing.
    pub timing: Timing,
    /// Bytes the MAC adds to a packet.
    pub mac_bytes: u32,
    /// Data rate of unicast frames to each neighbour, bit/s.
    pub rates: Vec<u64>,
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
    /// What its frames take on the air (`None`: no radio).
    pub air: Option<Airtime>,
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
    /// Under periodic control, when the node last looked whether to send a control packet
    /// (what is owed waits a period from this or from when it became owed, the later).
    pub control_checked: Time,
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
    /// A node with `radio`, its `neighbours` (sorted), the delivery to each and what its frames
    /// take on the air.
    pub fn new(
        radio: RadioId,
        neighbours: Vec<NodeId>,
        delivery: Vec<f64>,
        air: Option<Airtime>,
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
            air,
            report_since: NEVER,
            ack_since: NEVER,
            control_due: false,
            control_checked: 0,
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

    /// Since when unreported natives wait ([`NEVER`]: none, or the node sends no reports).
    fn report_owed_since(&self, p: &CopeParams) -> Time {
        if p.knowledge.reports() {
            self.report_since
        } else {
            NEVER
        }
    }

    /// When the node next decides on a control packet if nothing carries what is owed before
    /// (NEVER: nothing owed, or one already due): under idle timers a control packet is then
    /// due; under periodic control, if the node has nothing to send ([`Self::control_check`]).
    pub fn control_deadline(&self, p: &CopeParams) -> Time {
        if self.control_due {
            return NEVER;
        }
        let report = self.report_owed_since(p);
        match p.control {
            ControlTiming::IdleTimer {
                report_idle,
                ack_delay,
            } => report
                .saturating_add(report_idle)
                .min(self.ack_since.saturating_add(ack_delay)),
            ControlTiming::Periodic { period } => {
                let owed = report.min(self.ack_since);
                if owed == NEVER {
                    return NEVER;
                }
                owed.max(self.control_checked).saturating_add(period)
            }
        }
    }

    /// The control deadline has come at `now`; `idle`: the node has nothing to send (its output
    /// queue is empty and the MAC holds no frame of it). Whether a control packet is now due.
    pub fn control_check(&mut self, p: &CopeParams, idle: bool, now: Time) -> bool {
        self.control_checked = now;
        let due = match p.control {
            ControlTiming::IdleTimer { .. } => true,
            // Not idle: its next frame carries what is owed.
            ControlTiming::Periodic { .. } => idle,
        };
        self.control_due = due;
        due
    }

    /// When the node's timer should next fire: the earliest retransmission deadline or
    /// control deadline.
    pub fn next_wake(&self, p: &CopeParams) -> Time {
        self.retx
            .next_deadline()
            .unwrap_or(NEVER)
            .min(self.control_deadline(p))
    }

    /// Seconds on the air of a frame of `bytes` (the MAC's bytes not included) to `to`
    /// (`NodeId::MAX`: a broadcast, at the basic rate); 0 without a radio.
    pub fn airtime_s(&self, bytes: u32, to: NodeId) -> f64 {
        let Some(air) = &self.air else {
            return 0.0;
        };
        let rate = match self.neighbour_index(to) {
            Some(i) => air.rates[i],
            None => air.timing.basic_rate,
        };
        air.timing.airtime(bytes + air.mac_bytes, rate) as f64 * 1e-9
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

    /// The node may have learned natives at `now`: if some are unreported, a report is owed from
    /// now (or since earlier).
    pub fn note_unreported(&mut self, now: Time) {
        if self.knowledge.unreported() > 0 && self.report_since == NEVER {
            self.report_since = now;
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::time::MILLIS;

    /// A node with neighbours 1 and 2 under `control`, sending reports.
    fn node(control: ControlTiming) -> (CopeNode, CopeParams) {
        let p = CopeParams {
            control,
            ..CopeParams::default()
        };
        (CopeNode::new(0, vec![1, 2], vec![1.0, 1.0], None, &p), p)
    }

    #[test]
    fn periodic_control_waits_a_period_and_goes_only_when_the_node_is_idle() {
        let (mut n, p) = node(ControlTiming::Periodic {
            period: 50 * MILLIS,
        });
        assert_eq!(n.control_deadline(&p), NEVER, "nothing owed");
        // t = 3 ms: it overhears native 40 of flow 1; a report is owed.
        n.knowledge.heard(40, 1, 3 * MILLIS);
        n.note_unreported(3 * MILLIS);
        assert_eq!(n.control_deadline(&p), 53 * MILLIS);
        // t = 20 ms: it decodes native 7 of coder 1; the ACK is owed too, the deadline stays.
        n.owe_ack(1, 7, 20 * MILLIS);
        assert_eq!(n.control_deadline(&p), 53 * MILLIS);
        // t = 53 ms: it has a packet queued, whose frame will carry both: no control packet;
        // it looks again a period later.
        assert!(!n.control_check(&p, false, 53 * MILLIS));
        assert!(!n.control_due);
        assert_eq!(n.control_deadline(&p), 103 * MILLIS);
        // t = 103 ms: nothing to send: a control packet is due, and nothing else is timed.
        assert!(n.control_check(&p, true, 103 * MILLIS));
        assert!(n.control_due);
        assert_eq!(n.control_deadline(&p), NEVER);
        // It goes (the header takes the report and the ACK): nothing owed.
        let mut acks = Vec::new();
        n.take_acks(&mut acks);
        let mut report = Vec::new();
        n.knowledge.take_report(32, &mut report);
        n.report_since = NEVER;
        n.control_due = false;
        assert_eq!((acks.len(), report.len()), (1, 1));
        assert_eq!(n.control_deadline(&p), NEVER);
        // t = 110 ms: a new native: its report waits a period from now, not from the last check.
        n.knowledge.heard(41, 1, 110 * MILLIS);
        n.note_unreported(110 * MILLIS);
        assert_eq!(n.control_deadline(&p), 160 * MILLIS);
    }

    #[test]
    fn idle_timers_make_a_control_packet_due_whatever_the_node_holds() {
        let (mut n, p) = node(ControlTiming::IdleTimer {
            report_idle: 10 * MILLIS,
            ack_delay: 4 * MILLIS,
        });
        n.knowledge.heard(40, 1, 3 * MILLIS);
        n.note_unreported(3 * MILLIS);
        assert_eq!(n.control_deadline(&p), 13 * MILLIS);
        n.owe_ack(2, 0, 5 * MILLIS);
        assert_eq!(
            n.control_deadline(&p),
            9 * MILLIS,
            "the ACK's timer is sooner"
        );
        // Busy or not, it is due (the MAC's next pull sends data if there is some).
        assert!(n.control_check(&p, false, 9 * MILLIS));
        assert_eq!(n.control_deadline(&p), NEVER);
    }

    #[test]
    fn a_node_that_sends_no_reports_owes_none() {
        let p = CopeParams {
            knowledge: crate::net::forwarding::cope::KnowledgeModel::Guessing,
            ..CopeParams::default()
        };
        let mut n = CopeNode::new(0, vec![1], vec![1.0], None, &p);
        n.knowledge.heard(40, 1, 0);
        n.note_unreported(0);
        assert_eq!(n.control_deadline(&p), NEVER);
        n.owe_ack(1, 0, MILLIS);
        assert_eq!(n.control_deadline(&p), 51 * MILLIS, "its ACKs still go");
    }

    #[test]
    fn a_control_frame_s_airtime_is_at_the_link_s_rate_or_the_basic_rate() {
        let p = CopeParams::default();
        let timing = Timing::dot11b(2_000_000, 1_000_000, crate::mac::config::Preamble::Long);
        let air = Airtime {
            timing,
            mac_bytes: 36,
            rates: vec![2_000_000],
        };
        let n = CopeNode::new(0, vec![1], vec![1.0], Some(air), &p);
        // 64 + 36 bytes: 400 us at 2 Mbps, 800 us at 1 Mbps, after the 192-us long preamble.
        assert!((n.airtime_s(64, 1) - 592e-6).abs() < 1e-12);
        assert!((n.airtime_s(64, NodeId::MAX) - 992e-6).abs() < 1e-12);
    }
}
