//! Backpressure forwarding over 802.11, classical and TCP-aware: paper 000 (Seferoglu & Modiano,
//! "TCP-Aware Backpressure Routing and Scheduling", IEEE TMC 15(7), 2016), §3 eqs. (2)-(4) and
//! its implementation on top of the 802.11 MAC, §4.1.1, §4.1.2 and §4.1.4.
//!
//! Every node keeps **per-flow queues** `U_i^s` at the network layer, sharing one buffer of `B_i`
//! packets (the radio's queue size; 100 in the paper). A "flow" here is one direction of a
//! transport flow: a TCP flow's data and its ACKs are two commodities with their own queues,
//! destinations and reports. When the MAC offers a transmit opportunity (it pulls a packet, the
//! DCF's pull model), the node picks flow, packet and next hop:
//!
//! - for each neighbour `j` the node can decode (the routing links) and each flow `s` with
//!   packets queued here, the differential of eq. (2), `D_ij^s = max{K, U_i^s} - U_j^s`
//!   (TCP-aware) or `U_i^s - U_j^s` (classical backpressure), with `U_j^s = 0` when `j` is the
//!   flow's destination;
//! - eqs. (3)-(4): `D*_ij = max_s D_ij^s` and the flow `s*_ij` attaining it;
//! - §4.1.1: the next hop `j* = argmax_j D*_ij R~_ij (1 - p~_ij)`, among links with
//!   `D*_ij > 0`; the head-of-line packet of `U_i^{s*_ij*}` goes to `j*`. Nothing qualifies: the
//!   node holds its packets (the MAC is told nothing is pending).
//!
//! The paper's text allows two orders of these steps ([`Selection`]). Read per link (§4.1.1
//! literally), the link weight `R~ (1 - p~)` also decides between flows whose differentials tie,
//! and below `K` every flow's differential is `K`: a single collision on one flow's link then
//! hands every transmit opportunity to the other flows. Read flow first (the default; §4.1.2:
//! "routing and intra-node scheduling" selects the flow, then §4.1.1 its next hop), the flow is
//! the one with the largest differential over its allowed next hops, ties round-robin, and the
//! weight only routes it. Flow first keeps Example 2's "equal chance" on links of unequal
//! quality; docs/backpressure.md has the measurements.
//!
//! `U_j^s` is the latest report of `j` heard (§4.1.2): a node's per-flow queue sizes ride on
//! every data frame it sends and every neighbour that decodes the frame (addressed or overheard)
//! records them; a node that has sent no data frame for `report_idle` while its queues changed
//! broadcasts a small control packet with its report, and repeats it every `report_repeat` while
//! idle (broadcasts are not acknowledged, and a neighbour left with a stale high backlog of this
//! node would otherwise hold its packets for good). The report is the sender's queue vector
//! at the moment it took the frame's packet from its queues (or made the control packet).
//! `p~_ij` is one minus the fraction of MAC attempts to `j` answered during the last complete
//! interval `T` (`estimate_interval`, footnote 2: "successfully transmitted packets over all
//! transmitted packets", a retransmission being a transmission; counting packets delivered
//! within the MAC's retries instead is an option), rolled every `T` whether or not the node
//! sends (a node whose only link was judged dead must get to try it again). `R~_ij` is the link
//! rate, which is the configured 802.11 data rate on every link (airtcp's DCF has no rate
//! adaptation, so the average of recent rates is that rate).
//!
//! **K** (§4.1.4): `B_i / |S_i|` by default, where `S_i` is the set of flows passing through
//! node `i`, counted as the flows with packets queued at `i` or seen at `i` within the last
//! interval `T`; or a fixed value. On **overflow** of the shared buffer, a packet of the largest
//! per-flow queue is dropped (the newest one, from its tail; ties: the arriving packet's flow,
//! then the lowest flow index) (§4.1.4).
//!
//! Choices the paper leaves open (documented in docs/backpressure.md):
//! - Only flows with a packet queued at `i` are candidates in eq. (3): with `K > 0` an empty
//!   queue would have a positive differential and win a transmit opportunity it cannot use.
//! - Ties between flows (eq. (4), and links whose best flows differ) go round-robin, starting
//!   after the flow served last: Example 2's "both flows get equal chance". Ties between links
//!   for the same flow go to the neighbour nearer (in hops) to the flow's destination, then the
//!   lower node id: at the start every report is 0 and all links tie, and the paper's ns-2 code
//!   is not published; a hop that leads away would make the first round trip a random walk.
//! - Reports add no bytes to data frames (the paper gives no format); a control packet is a
//!   20-byte IP header plus 4 bytes per flow.
//! - A node's unheard neighbour counts as reporting empty queues.
//!
//! **Nodes with several radios** (channels; docs/multi_radio.md), which the paper does not have:
//! the node keeps one set of per-flow queues and one shared buffer across its radios, and its links
//! are the routing links of all of them, each on one radio ([`BpLink::port`]). A radio's transmit
//! opportunity chooses only among the links on its own channel; each radio carries the report it
//! last sent on its channel (a neighbour there holds that one), and its control packets go out on
//! its channel; a report heard from a neighbour holds for every link to that neighbour (it reports
//! the same queues on every channel). On a single-radio node this is the paper's node.

use std::collections::VecDeque;

use crate::sim::{NodeId, PacketId, Time};

pub mod config;
mod layer;
pub mod setup;

pub use layer::{BackpressureLayer, BackpressureRow, TABLE};

/// How the queue differential is formed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Differential {
    /// Classical backpressure: `U_i^s - U_j^s` (Tassiulas & Ephremides 1992).
    Classical,
    /// TCP-aware backpressure, eq. (2): `max{K, U_i^s} - U_j^s`.
    TcpAware(KRule),
}

/// The constant `K` of eq. (2).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum KRule {
    /// `B_i / |S_i|` (§4.1.4).
    BufferShare,
    /// A fixed non-negative value.
    Fixed(f64),
}

/// Parameters shared by every node.
#[derive(Debug, Clone)]
pub struct BpParams {
    /// Differential rule.
    pub differential: Differential,
    /// Shared buffer per node, packets (`B_i`).
    pub buffer: usize,
    /// Interval of the loss estimate and of "flows passing through" (`T`).
    pub estimate_interval: Time,
    /// Idle time after which a node sends its report in a control packet.
    pub report_idle: Time,
    /// How often an idle node repeats an unchanged report.
    pub report_repeat: Time,
    /// Link rate `R~`, bit/s (the data rate).
    pub rate_bps: f64,
    /// Which neighbours a flow's packets may go to.
    pub next_hops: NextHops,
    /// What `p~` counts.
    pub loss_estimate: LossEstimate,
    /// How flow and next hop are chosen together.
    pub selection: Selection,
}

/// How a transmit opportunity picks its flow and its next hop (§4.1.1-§4.1.2 read two ways).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Selection {
    /// Eqs. (3)-(4) per link, then §4.1.1 across links: the (flow, link) pair with the largest
    /// `D*_ij R~ (1 - p~)`. Link quality then decides between flows whose differentials tie.
    PerLink,
    /// The flow first, by its largest differential over its next hops (eqs. (3)-(4) with the
    /// links merged; ties round-robin), then that flow's next hop by `D_ij^s R~ (1 - p~)`.
    /// Link quality routes a flow but never chooses between flows.
    FlowFirst,
}

/// What the loss estimate `p~` of a link counts (footnote 2: "one minus the ratio of successfully
/// transmitted packets over all transmitted packets").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LossEstimate {
    /// Packets handed to the MAC, delivered within its retries or not.
    PerPacket,
    /// MAC transmissions (attempts), answered by an ACK or not: a lossy link shows its raw loss
    /// rate, which the next-hop choice then steers around ("loss-aware routing", §5.2).
    PerAttempt,
}

/// The neighbours backpressure may send a flow's packets to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NextHops {
    /// Any neighbour (backpressure routing as in §3: the differential alone decides).
    Any,
    /// Neighbours nearer (in hops) to the flow's destination than this node: backpressure
    /// chooses among the shortest-path directions only.
    Closer,
    /// Neighbours nearer to the destination in ETX (expected transmissions, De Couto et al.,
    /// MobiCom 2003, from the links' configured delivery ratios; [`Commodities::etx`]): still
    /// loop-free, and a detour of clean links may beat a lossy direct link.
    CloserEtx,
}

/// The flows (commodities) backpressure serves: one per direction of each transport flow.
#[derive(Debug, Clone)]
pub struct Commodities {
    /// Destination node of each commodity.
    pub dst: Vec<NodeId>,
    /// Hop distance from every node to each commodity's destination (`u32::MAX`: unreachable),
    /// `[commodity][node]`, over the routing links; used to break ties.
    pub hops: Vec<Vec<u32>>,
    /// ETX distance from every node to each commodity's destination, `[commodity][node]`
    /// (infinite: unreachable); only for [`NextHops::CloserEtx`], empty otherwise.
    pub etx: Vec<Vec<f64>>,
}

impl Commodities {
    /// Number of commodities.
    pub fn len(&self) -> usize {
        self.dst.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.dst.is_empty()
    }

    /// The commodity of a packet of transport flow `flow` addressed to `dst`: `2 flow` in the
    /// flow's direction, `2 flow + 1` back (ACKs).
    pub fn of(&self, flow: u32, dst: NodeId) -> usize {
        let forward = 2 * flow as usize;
        if self.dst[forward] == dst {
            forward
        } else {
            forward + 1
        }
    }
}

/// What every node's backpressure shares: the parameters and the flows.
#[derive(Debug, Clone)]
pub struct BpShared {
    /// Parameters.
    pub params: BpParams,
    /// The flows.
    pub commodities: Commodities,
}

impl BpShared {
    /// Bytes of a control packet carrying a report: an IP header and 4 bytes per flow.
    pub fn control_bytes(&self) -> u32 {
        20 + 4 * self.commodities.len() as u32
    }
}

/// A neighbour the node can send to.
#[derive(Debug, Clone, Copy)]
pub struct BpLink {
    /// The neighbour's radio.
    pub radio: u32,
    /// The neighbour's node.
    pub node: NodeId,
    /// Which of this node's radios the link is on (its index among the node's radios, in radio
    /// order; 0 on a single-radio node): only that radio's transmit opportunities use it.
    pub port: u8,
    /// Loss estimate `p~` of the last complete interval.
    pub loss: f64,
    /// Packets (or attempts) sent on this link in the current interval.
    sent: u64,
    /// Of those, the ones that got through.
    delivered: u64,
}

impl BpLink {
    /// A link to the neighbour with radio `radio` on node `node`, no loss estimated yet.
    pub fn new(radio: u32, node: NodeId) -> Self {
        BpLink {
            radio,
            node,
            port: 0,
            loss: 0.0,
            sent: 0,
            delivered: 0,
        }
    }

    /// The same link on this node's radio `port`.
    pub fn on_port(self, port: u8) -> Self {
        BpLink { port, ..self }
    }
}

/// What one of a node's radios last told its channel: the report its latest frame carried.
#[derive(Debug, Clone)]
struct Port {
    /// The queue vector last sent out on this radio's channel (what neighbours there hold of
    /// this node).
    advertised: Vec<u32>,
    /// When a report last went out on it (a data frame or a control packet).
    last_report: Time,
}

/// What a transmit opportunity carries: a flow's head-of-line packet to a neighbour.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Choice {
    /// Commodity.
    pub commodity: usize,
    /// Index into the node's links.
    pub link: usize,
    /// `D*` of that link.
    pub differential: f64,
}

/// Which of a node's links a decision weighs: those on radio `port`'s channel (`None`: every
/// radio's), and only those to node `to` (`None`: every neighbour's).
#[derive(Debug, Clone, Copy)]
struct Links {
    port: Option<u8>,
    to: Option<NodeId>,
}

impl Links {
    #[inline]
    fn admit(self, link: &BpLink) -> bool {
        self.port.is_none_or(|q| q == link.port) && self.to.is_none_or(|n| n == link.node)
    }
}

/// A (flow, link) pair competing for a transmit opportunity.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    choice: Choice,
    metric: f64,
    hops: u32,
    node: NodeId,
    /// Distance of the flow from the round-robin pointer.
    turn: usize,
}

impl Candidate {
    fn beats(&self, other: &Candidate) -> bool {
        if self.metric != other.metric {
            return self.metric > other.metric;
        }
        if self.choice.commodity != other.choice.commodity {
            return self.turn < other.turn;
        }
        (self.hops, self.node) < (other.hops, other.node)
    }
}

/// One node's backpressure state: its per-flow queues, shared by all its radios, and what each of
/// its radios last reported on its channel.
#[derive(Debug, Clone)]
pub struct BpNode {
    node: NodeId,
    queues: Vec<VecDeque<PacketId>>,
    total: usize,
    last_seen: Vec<Option<Time>>,
    /// Per radio of the node (`BpLink::port`): the report it last sent, and when.
    ports: Vec<Port>,
    /// Latest report of each link's neighbour, `[link * commodities + commodity]`.
    reports: Vec<u32>,
    /// Routing links.
    pub links: Vec<BpLink>,
    window_start: Time,
    /// The flow first in round-robin order for ties (the one after the last served).
    next_turn: usize,
    /// Packets dropped on overflow of the shared buffer.
    pub overflow_drops: u64,
    /// Control packets sent.
    pub control_sent: u64,
}

impl BpNode {
    /// The state of single-radio node `node` with its routing `links`, for `commodities` flows.
    pub fn new(node: NodeId, links: Vec<BpLink>, commodities: usize) -> Self {
        BpNode::with_ports(node, links, 1, commodities)
    }

    /// The state of `node`, which has `ports` radios, with its routing `links` (on those radios),
    /// for `commodities` flows.
    pub fn with_ports(node: NodeId, links: Vec<BpLink>, ports: usize, commodities: usize) -> Self {
        debug_assert!(links.iter().all(|l| (l.port as usize) < ports));
        let port = Port {
            advertised: vec![0; commodities],
            last_report: 0,
        };
        BpNode {
            node,
            queues: vec![VecDeque::new(); commodities],
            total: 0,
            last_seen: vec![None; commodities],
            ports: vec![port; ports.max(1)],
            reports: vec![0; links.len() * commodities],
            links,
            window_start: 0,
            next_turn: 0,
            overflow_drops: 0,
            control_sent: 0,
        }
    }

    /// Packets queued, all flows.
    pub fn len(&self) -> usize {
        self.total
    }

    /// Whether nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// `U_i^s`.
    pub fn backlog(&self, commodity: usize) -> usize {
        self.queues[commodity].len()
    }

    /// The report this node's radio `port` last sent.
    pub fn advertised(&self, port: u8) -> &[u32] {
        &self.ports[port as usize].advertised
    }

    /// The latest report of link `link`'s neighbour for `commodity`.
    pub fn reported(&self, link: usize, commodity: usize) -> u32 {
        self.reports[link * self.queues.len() + commodity]
    }

    /// Queues `id` of `commodity`. On overflow of the shared buffer returns the packet dropped:
    /// the newest of the largest per-flow queue (possibly `id` itself).
    pub fn enqueue(
        &mut self,
        commodity: usize,
        id: PacketId,
        now: Time,
        p: &BpParams,
    ) -> Option<PacketId> {
        self.last_seen[commodity] = Some(now);
        self.queues[commodity].push_back(id);
        self.total += 1;
        if self.total <= p.buffer {
            return None;
        }
        // The arriving packet's flow wins ties: it is where the pressure comes from.
        let mut victim = commodity;
        for (c, q) in self.queues.iter().enumerate() {
            if q.len() > self.queues[victim].len() {
                victim = c;
            }
        }
        self.total -= 1;
        self.overflow_drops += 1;
        self.queues[victim].pop_back()
    }

    /// Removes every queued packet (a failed node) into `out`.
    pub fn drain(&mut self, out: &mut Vec<PacketId>) {
        for q in &mut self.queues {
            out.extend(q.drain(..));
        }
        self.total = 0;
    }

    /// Visits every queued packet.
    pub fn for_each(&self, f: &mut dyn FnMut(PacketId)) {
        for q in &self.queues {
            q.iter().for_each(|&id| f(id));
        }
    }

    /// `K` at this node now (for the TCP-aware differential).
    pub fn k(&self, now: Time, p: &BpParams) -> f64 {
        match p.differential {
            Differential::Classical => 0.0,
            Differential::TcpAware(KRule::Fixed(k)) => k,
            Differential::TcpAware(KRule::BufferShare) => {
                let passing = self
                    .queues
                    .iter()
                    .zip(&self.last_seen)
                    .filter(|(q, seen)| {
                        !q.is_empty()
                            || seen.is_some_and(|t| now.saturating_sub(t) <= p.estimate_interval)
                    })
                    .count()
                    .max(1);
                p.buffer as f64 / passing as f64
            }
        }
    }

    /// The transmit decision of eqs. (2)-(4) and §4.1.1, or `None` if no link has a positive
    /// differential (the node holds its packets). Does not change any state.
    ///
    /// Ties: between flows (in eq. (4), and between links whose best flows differ) the flow
    /// next in round-robin order after the last one served wins, which gives tied flows the
    /// "equal chance" of the paper's Example 2; between links for the same flow, the neighbour
    /// nearer the flow's destination, then the lower node id.
    ///
    /// `port`: a transmit opportunity of that radio of the node, which chooses among the links on
    /// its channel only; `None`: every link.
    pub fn select(
        &self,
        now: Time,
        p: &BpParams,
        c: &Commodities,
        port: Option<u8>,
    ) -> Option<Choice> {
        self.select_among(now, p, c, port, None)
    }

    /// The same decision among the links to neighbour `to` only: the next packet of an 802.11n
    /// A-MPDU whose first packet went to `to` (each packet of the aggregate is a decision of
    /// its own on the link the first chose; the aggregate ends when no flow has a positive
    /// differential there).
    pub fn select_to(
        &self,
        now: Time,
        p: &BpParams,
        c: &Commodities,
        port: Option<u8>,
        to: NodeId,
    ) -> Option<Choice> {
        self.select_among(now, p, c, port, Some(to))
    }

    fn select_among(
        &self,
        now: Time,
        p: &BpParams,
        c: &Commodities,
        port: Option<u8>,
        to: Option<NodeId>,
    ) -> Option<Choice> {
        if self.total == 0 {
            return None;
        }
        let k = self.k(now, p);
        let links = Links { port, to };
        match p.selection {
            Selection::PerLink => self.best(k, p, c, links, None, |d, weight| d * weight),
            Selection::FlowFirst => {
                let flow = self.best(k, p, c, links, None, |d, _| d)?.commodity;
                self.best(k, p, c, links, Some(flow), |d, weight| d * weight)
            }
        }
    }

    /// The head-of-line packet of `choice`, left in its queue.
    pub fn head(&self, choice: Choice) -> Option<PacketId> {
        self.queues[choice.commodity].front().copied()
    }

    /// The (flow, link) pair with the largest `metric(D, R~ (1 - p~))` among links with a
    /// positive differential (those `links` admits), over every flow or only `only`.
    fn best(
        &self,
        k: f64,
        p: &BpParams,
        c: &Commodities,
        links: Links,
        only: Option<usize>,
        metric: impl Fn(f64, f64) -> f64,
    ) -> Option<Choice> {
        let n = self.queues.len();
        let mut best: Option<Candidate> = None;
        for (li, link) in self.links.iter().enumerate() {
            let weight = p.rate_bps * (1.0 - link.loss);
            if weight <= 0.0 || !links.admit(link) {
                continue;
            }
            for (s, q) in self.queues.iter().enumerate() {
                if q.is_empty() || only.is_some_and(|f| f != s) {
                    continue;
                }
                let hops = c.hops[s][link.node as usize];
                let allowed = match p.next_hops {
                    NextHops::Any => true,
                    NextHops::Closer => hops < c.hops[s][self.node as usize],
                    NextHops::CloserEtx => {
                        c.etx[s][link.node as usize] < c.etx[s][self.node as usize]
                    }
                };
                if !allowed {
                    continue;
                }
                let u_i = q.len() as f64;
                let u_j = if c.dst[s] == link.node {
                    0.0
                } else {
                    self.reports[li * n + s] as f64
                };
                let d = match p.differential {
                    Differential::Classical => u_i - u_j,
                    Differential::TcpAware(_) => u_i.max(k) - u_j,
                };
                if d <= 0.0 {
                    continue;
                }
                let candidate = Candidate {
                    choice: Choice {
                        commodity: s,
                        link: li,
                        differential: d,
                    },
                    metric: metric(d, weight),
                    hops,
                    node: link.node,
                    turn: (s + n - self.next_turn) % n,
                };
                if best.as_ref().is_none_or(|b| candidate.beats(b)) {
                    best = Some(candidate);
                }
            }
        }
        best.map(|b| b.choice)
    }

    /// Takes the head-of-line packet of `choice` for transmission and records the report the
    /// frame will carry (on the chosen link's radio). Returns the packet and the next hop's node.
    pub fn take(&mut self, choice: Choice) -> (PacketId, NodeId) {
        let id = self.queues[choice.commodity]
            .pop_front()
            .expect("a chosen flow has a packet");
        self.total -= 1;
        self.next_turn = (choice.commodity + 1) % self.queues.len();
        let link = self.links[choice.link];
        self.snapshot(link.port);
        (id, link.node)
    }

    /// Records the current queue vector as the report radio `port` is sending.
    pub fn snapshot(&mut self, port: u8) {
        let advertised = &mut self.ports[port as usize].advertised;
        for (a, q) in advertised.iter_mut().zip(&self.queues) {
            *a = q.len() as u32;
        }
    }

    /// Whether the queues differ from radio `port`'s last report.
    pub fn report_stale(&self, port: u8) -> bool {
        self.ports[port as usize]
            .advertised
            .iter()
            .zip(&self.queues)
            .any(|(&a, q)| a as usize != q.len())
    }

    /// A report of neighbour node `from` was heard: it holds for every link to `from` (a
    /// neighbour reachable on several channels reports the same queues on each). Returns whether
    /// it changed anything.
    pub fn hear(&mut self, from: NodeId, report: &[u32]) -> bool {
        let n = self.queues.len();
        // A single-radio node has one link to a neighbour at most.
        let single = self.ports.len() == 1;
        let mut changed = false;
        // Not a link this node sends on: heard, and ignored.
        for (li, link) in self.links.iter().enumerate() {
            if link.node != from {
                continue;
            }
            let slot = &mut self.reports[li * n..(li + 1) * n];
            if slot != report {
                slot.copy_from_slice(report);
                changed = true;
            }
            if single {
                break;
            }
        }
        changed
    }

    /// One packet (or attempt, per `LossEstimate`) sent to the neighbour with radio `to` got
    /// through or not.
    pub fn outcome(&mut self, to: u32, delivered: bool) {
        if let Some(link) = self.links.iter_mut().find(|l| l.radio == to) {
            link.sent += 1;
            link.delivered += delivered as u64;
        }
    }

    /// Rolls the loss estimates if an interval `T` has passed: `p~` = 1 - delivered / sent over
    /// the packets of the interval just ended (footnote 2's "successfully transmitted packets
    /// over all transmitted packets"). A link that carried nothing during the interval has its
    /// estimate halved, so that a link once judged dead is tried again. Returns whether the
    /// interval rolled.
    pub fn refresh_estimates(&mut self, now: Time, p: &BpParams) -> bool {
        if now < self.window_start.saturating_add(p.estimate_interval) {
            return false;
        }
        for link in &mut self.links {
            if link.sent > 0 {
                link.loss = 1.0 - link.delivered as f64 / link.sent as f64;
            } else {
                link.loss /= 2.0;
            }
            link.sent = 0;
            link.delivered = 0;
        }
        self.window_start = now;
        true
    }

    /// Whether a control packet with the report is due: no report sent for `report_idle` and
    /// the queues changed since the last one, or none for `report_repeat` (broadcasts are not
    /// acknowledged: a report lost to a collision would stand at the neighbours for good, and a
    /// neighbour holding a stale high backlog never sends here again).
    /// Per radio: each channel hears only its own radio's reports.
    pub fn control_due(&self, now: Time, p: &BpParams, port: u8) -> bool {
        let last = self.ports[port as usize].last_report;
        now >= last + p.report_idle && (self.report_stale(port) || now >= last + p.report_repeat)
    }

    /// A report left radio `port` in a data frame or a control packet at `now`.
    pub fn reported_at(&mut self, port: u8, now: Time) {
        self.ports[port as usize].last_report = now;
    }

    /// How many radios the node has.
    pub fn ports(&self) -> usize {
        self.ports.len()
    }

    /// What [`select`](Self::select) needs to choose for radio `port`: `None` (every link) on a
    /// single-radio node, whose links are all on that radio.
    #[inline]
    pub fn port_filter(&self, port: u8) -> Option<u8> {
        (self.ports.len() > 1).then_some(port)
    }

    /// This node.
    pub fn node(&self) -> NodeId {
        self.node
    }
}

/// Hop distances from every node to `dst` over directed `edges` (`from`, `to`), by breadth-first
/// search backwards from `dst`.
pub fn hops_to(nodes: usize, edges: &[(NodeId, NodeId)], dst: NodeId) -> Vec<u32> {
    let mut into: Vec<Vec<NodeId>> = vec![Vec::new(); nodes];
    for &(from, to) in edges {
        into[to as usize].push(from);
    }
    let mut dist = vec![u32::MAX; nodes];
    dist[dst as usize] = 0;
    let mut frontier = VecDeque::from([dst]);
    while let Some(v) = frontier.pop_front() {
        for &u in &into[v as usize] {
            if dist[u as usize] == u32::MAX {
                dist[u as usize] = dist[v as usize] + 1;
                frontier.push_back(u);
            }
        }
    }
    dist
}

#[cfg(test)]
mod tests;
