//! One node's Horizon state (paper 003 §3.3, §5.2): per-flow queues, custody, prices, and what
//! the node knows of its neighbours on each flow's paths. No network here: the layer
//! (`super::layer`) calls these methods from its hooks, and the unit tests drive them directly.
//!
//! - **Custody** (§5.2.1): `P_i^f = Q_i^f + Σ_{j∈D_i(f)} (S_ij^f − R_ji^f)`, kept as the queue
//!   length plus, per downstream neighbour, the set of per-link ids (PLIDs) handed to the MAC and
//!   not yet released. A PLID is released by the neighbour's Horizon-level acknowledgement `R`
//!   (every PLID ≤ R, from a refreshment or a piggyback) or by the MAC giving the packet up
//!   (retry limit); a MAC ACK releases nothing. Without drops the set's size is `S − R`.
//! - **Prices** (eqs. 11-13): `j(g) = argmin_{j∈D_i(g)} C_j^g`; `S_i = max_g P_i^g R_{i,j(g)}`;
//!   per rate (the default, spec A4) `C_i^f = min_{j∈D_i(f)} (C_j^f + S_i / R_ij)`; literal
//!   (`PriceRule::Queue`, R ≡ 1) `C_i^f = S_i + min_j C_j^f`. The two agree when all rates are
//!   equal; with one flow at a node the per-rate price is `C_j + P_i` whatever the rates.
//! - **Flow and next hop** (eqs. 14-15): the flow with the largest custody among those with a
//!   packet queued (ties round-robin after the flow served last), then the cheapest downstream
//!   neighbour (ties: fewer hops to the destination, then the lower node id). A packet goes to
//!   `j` only while fewer than `T` of the flow's PLIDs to `j` are outstanding (the custody gate,
//!   per flow and neighbour, spec A20). Strict (15) (spec A6): a flow whose cheapest neighbour's
//!   window is full waits, and the next flow in (14) order is tried; `cheapest_open` takes the
//!   cheapest neighbour with an open window instead.
//! - **Update events** (§5.2.2, spec A7): per upstream neighbour `i` of a flow, a node counts
//!   every packet of the flow received from `i` and every change of its own price; at
//!   `refresh_every` events it owes `i` a refreshment `(C, R)`. Counting price changes alone
//!   would leave the last hop (whose downstream price, the destination's 0, never changes)
//!   blocked at `S − R = T` for good.
//!
//! - **Timed refreshments** (spec A8, the simulator's, not the paper's): [`UpLink::timed_due`]
//!   says whether a liveness refreshment is due under either rule ([`RefreshRule`]), and
//!   [`AirtimeBudget`] caps what the default rule may spend on the air.
//!
//! PLIDs are one byte, as on the paper's wire, compared in serial-number arithmetic: at most
//! `T ≤ 100` are outstanding per flow and neighbour, well inside the 128 the comparison allows.

use std::collections::VecDeque;

use crate::sim::{NodeId, PacketId, Time};

/// How a node prices its custody (spec A4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PriceRule {
    /// `C_i^f = min_j (C_j^f + S_i / R_ij)`, `S_i = max_g P_i^g R_{i,j(g)}`: the dimensionally
    /// consistent reading of eqs. (12)-(13) that reproduces §3.5; prices in packets.
    PerRate,
    /// Eqs. (12)-(13) with every rate 1: `S_i = max_g P_i^g`, `C_i^f = S_i + min_j C_j^f`.
    Queue,
}

/// What happens when the cheapest neighbour's window is full (spec A6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NextHopRule {
    /// Eq. (15) as written: the flow waits for its cheapest neighbour.
    Strict,
    /// The cheapest neighbour whose window is open.
    CheapestOpen,
}

/// When refreshments go besides every `refresh_every` receptions (spec A7, A8; docs/horizon.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefreshRule {
    /// For price changes and by the timers only within the node's air-time budget; the timers
    /// only once the upstream link has gone quiet.
    Paced,
    /// After every `refresh_every` update events; by the timers whenever the advertised state
    /// changed and nothing went upstream for `refresh_idle`, packets flowing or not, and the
    /// repeat while they flow; no budget (the earlier rule).
    Eager,
}

/// Why a refreshment owed for counted update events is due.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CountedCause {
    /// `refresh_every` packets came from the neighbour: it needs their acknowledgement `R`
    /// before its custody gate closes.
    Received,
    /// `refresh_every` update events, fewer of them receptions: changes of the node's price.
    Price,
}

/// Why a timed refreshment is due.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimedCause {
    /// Packets came from the neighbour since it was last told `R`: it needs their
    /// acknowledgement before its custody gate closes.
    Acknowledge,
    /// Only the node's price changed since the neighbour was last told.
    Price,
    /// Nothing changed, but the last one said may have been lost.
    Repeat,
}

/// The liveness timers' parameters.
#[derive(Debug, Clone, Copy)]
pub struct TimerRule {
    /// Which rule.
    pub rule: RefreshRule,
    /// `refresh_idle`: the least quiet before a changed state goes up.
    pub idle: Time,
    /// `refresh_repeat`: how often the last refreshment is repeated.
    pub repeat: Time,
    /// `refresh_every`: update events per refreshment.
    pub every: u32,
}

/// How long after the last packet of a flow from a neighbour the repeat keeps going (spec A8).
pub const ACTIVE_WINDOW: Time = 1_000_000_000;

/// Gain of the mean gap between packets from an upstream neighbour (TCP's srtt gain, RFC 6298).
const GAP_GAIN: f64 = 0.125;

/// A node's budget of air time for timed refreshments: a token bucket, in nanoseconds of air
/// time, filled at `share` of the elapsed time up to a second's worth. A refreshment may go
/// while the bucket is not empty and takes its air time out of it (the bucket may go below
/// zero by one refreshment), so some refreshment always goes eventually, and over any interval
/// the air time spent is at most `share` of it plus a second's worth plus one refreshment.
#[derive(Debug, Clone)]
pub struct AirtimeBudget {
    share: f64,
    tokens: f64,
    filled_at: Time,
}

impl AirtimeBudget {
    /// A full bucket for `share` of the time (0 < share ≤ 1).
    pub fn new(share: f64) -> Self {
        AirtimeBudget {
            share,
            tokens: Self::depth(share),
            filled_at: 0,
        }
    }

    fn depth(share: f64) -> f64 {
        share * ACTIVE_WINDOW as f64
    }

    /// Whether a refreshment taking `airtime` may go at `now`; if so it is paid for.
    pub fn spend(&mut self, now: Time, airtime: Time) -> bool {
        let elapsed = now.saturating_sub(self.filled_at) as f64;
        self.tokens = (self.tokens + self.share * elapsed).min(Self::depth(self.share));
        self.filled_at = now;
        if self.tokens <= 0.0 {
            return false;
        }
        self.tokens -= airtime as f64;
        true
    }
}

/// `a ≤ b` for one-byte sequence numbers less than 128 apart.
#[inline]
pub fn seq_le(a: u8, b: u8) -> bool {
    (b.wrapping_sub(a) as i8) >= 0
}

/// A downstream neighbour `j ∈ D_i(f)` of one flow at one node.
#[derive(Debug, Clone)]
pub struct DownLink {
    /// The neighbour.
    pub node: NodeId,
    /// The radio of this node that reaches it.
    pub radio: u32,
    /// The rate of this node's frames to it, Mbit/s (`R_ij`).
    pub rate: f64,
    /// Hops from the neighbour to the flow's destination (the tie-break of eq. 15).
    pub hops: u32,
    /// `S_ij^f`: the PLID of the last packet sent to it.
    pub last_plid: u8,
    /// PLIDs handed to the MAC and not yet released.
    pub outstanding: Vec<u8>,
    /// `C_j^f`, the neighbour's price last heard (0 until heard: soft state).
    pub price: f64,
}

impl DownLink {
    /// Whether the custody gate lets one more packet go (`S − R < T`).
    #[inline]
    pub fn open(&self, threshold: usize) -> bool {
        self.outstanding.len() < threshold
    }

    /// Releases every outstanding PLID ≤ `r`; how many.
    pub fn release_upto(&mut self, r: u8) -> usize {
        let before = self.outstanding.len();
        self.outstanding.retain(|&p| !seq_le(p, r));
        before - self.outstanding.len()
    }

    /// Releases PLID `plid` (the MAC gave its packet up); whether it was outstanding.
    pub fn release_one(&mut self, plid: u8) -> bool {
        match self.outstanding.iter().position(|&p| p == plid) {
            Some(i) => {
                self.outstanding.swap_remove(i);
                true
            }
            None => false,
        }
    }
}

/// An upstream neighbour `i ∈ U_j(f)` of one flow at one node: what this node owes it.
#[derive(Debug, Clone)]
pub struct UpLink {
    /// The neighbour.
    pub node: NodeId,
    /// The radio of this node that reaches it.
    pub radio: u32,
    /// `R_ji^f`: the highest PLID received from it (`None` before the first).
    pub highest: Option<u8>,
    /// Update events since the last refreshment or piggyback sent to it.
    pub events: u32,
    /// Of those, packets received from it.
    pub receptions: u32,
    /// Whether the refreshment it is owed was held back by the air-time budget (counted once).
    pub held: bool,
    /// The `(C, R)` last sent to it.
    pub sent: Option<(f64, Option<u8>)>,
    /// When a refreshment or piggyback last went to it.
    pub last_up: Time,
    /// When a packet of the flow last came from it.
    pub last_rx: Option<Time>,
    /// The mean gap between its packets (0 before the second).
    pub gap: Time,
    /// The air time of one refreshment to it: the frame at the link's rate, SIFS and the MAC
    /// ACK (DIFS and backoff, idle air, not counted).
    pub airtime: Time,
}

impl UpLink {
    /// Records a packet with PLID `plid` from this neighbour: one update event.
    pub fn received(&mut self, plid: u8, now: Time) {
        self.highest = Some(match self.highest {
            Some(h) if seq_le(plid, h) => h,
            _ => plid,
        });
        if let Some(last) = self.last_rx {
            let sample = now.saturating_sub(last);
            self.gap = if self.gap == 0 {
                sample
            } else {
                (self.gap as f64 + GAP_GAIN * (sample as f64 - self.gap as f64)) as Time
            };
        }
        self.last_rx = Some(now);
        self.events += 1;
        self.receptions += 1;
    }

    /// Whether it is owed a refreshment for counted update events (§5.2.2), and why.
    pub fn counted_due(&self, every: u32) -> Option<CountedCause> {
        if self.receptions >= every {
            Some(CountedCause::Received)
        } else if self.events >= every {
            Some(CountedCause::Price)
        } else {
            None
        }
    }

    /// A refreshment or piggyback carrying `(price, highest)` went to it at `now`.
    pub fn sent_now(&mut self, price: f64, now: Time) {
        self.events = 0;
        self.receptions = 0;
        self.held = false;
        self.sent = Some((price, self.highest));
        self.last_up = now;
    }

    /// Whether what it would be told differs from what it was told last.
    pub fn stale(&self, price: f64) -> bool {
        self.sent != Some((price, self.highest))
    }

    /// What changed since it was last told, given that something did: its packets'
    /// acknowledgement, or only the price.
    fn change(&self) -> TimedCause {
        match self.sent {
            Some((_, said)) if said == self.highest => TimedCause::Price,
            _ => TimedCause::Acknowledge,
        }
    }

    /// Whether a timed refreshment is due at `now` under `timers`, the node's price being
    /// `price`, and why.
    pub fn timed_due(&self, price: f64, now: Time, timers: &TimerRule) -> Option<TimedCause> {
        match timers.rule {
            RefreshRule::Eager => self.due_on_any_change(price, now, timers),
            RefreshRule::Paced => self.due_on_idle_link(price, now, timers),
        }
    }

    /// The earlier rule: a changed state after `idle` without anything sent up, a repeat every
    /// `repeat` while packets came within the last second.
    fn due_on_any_change(&self, price: f64, now: Time, t: &TimerRule) -> Option<TimedCause> {
        let last_rx = self.last_rx?;
        let quiet = now.saturating_sub(self.last_up);
        if self.stale(price) && quiet >= t.idle {
            return Some(self.change());
        }
        let active = now.saturating_sub(last_rx) <= ACTIVE_WINDOW;
        (active && quiet >= t.repeat).then_some(TimedCause::Repeat)
    }

    /// How long the link must have been silent to count as idle: as long as `every` of its
    /// usual gaps (the next counted refreshment would have been due by then had packets kept
    /// coming), at least `idle`, at most a second.
    pub fn idle_after(&self, t: &TimerRule) -> Time {
        self.gap
            .saturating_mul(u64::from(t.every))
            .clamp(t.idle, ACTIVE_WINDOW.max(t.idle))
    }

    /// The default rule: nothing while packets keep coming (their count sends the refreshments,
    /// §5.2.2); once the link is idle, a changed state after `idle` without anything sent up,
    /// and a repeat every `repeat` within a second of the link going idle.
    fn due_on_idle_link(&self, price: f64, now: Time, t: &TimerRule) -> Option<TimedCause> {
        let silent = now.saturating_sub(self.last_rx?);
        let idle_after = self.idle_after(t);
        if silent < idle_after {
            return None;
        }
        let quiet = now.saturating_sub(self.last_up);
        if self.stale(price) && quiet >= t.idle {
            return Some(self.change());
        }
        let recent = silent <= idle_after.saturating_add(ACTIVE_WINDOW);
        (recent && quiet >= t.repeat).then_some(TimedCause::Repeat)
    }
}

/// One flow (commodity) at one node.
#[derive(Debug, Clone)]
pub struct FlowAt {
    /// The commodity's index.
    pub commodity: u16,
    /// Whether this node is the flow's destination (price 0, nothing held).
    pub is_destination: bool,
    /// `Q_i^f`: packets waiting at Horizon, oldest first, with the time each joined.
    pub queue: VecDeque<(PacketId, Time)>,
    /// `D_i(f)`.
    pub down: Vec<DownLink>,
    /// `U_i(f)`.
    pub up: Vec<UpLink>,
    /// `C_i^f`.
    pub price: f64,
}

impl FlowAt {
    /// A flow at a node with these neighbours.
    pub fn new(commodity: u16, is_destination: bool, down: Vec<DownLink>, up: Vec<UpLink>) -> Self {
        FlowAt {
            commodity,
            is_destination,
            queue: VecDeque::new(),
            down,
            up,
            price: 0.0,
        }
    }

    /// `P_i^f`.
    #[inline]
    pub fn custody(&self) -> usize {
        self.queue.len() + self.down.iter().map(|d| d.outstanding.len()).sum::<usize>()
    }

    /// The index in `down` of `j(f)`, the cheapest neighbour (eq. 11, ties as eq. 15).
    pub fn cheapest(&self) -> Option<usize> {
        self.cheapest_where(|_| true)
    }

    /// The cheapest neighbour among those `keep` accepts.
    fn cheapest_where(&self, keep: impl Fn(&DownLink) -> bool) -> Option<usize> {
        let mut best: Option<usize> = None;
        for (k, d) in self.down.iter().enumerate() {
            if !keep(d) {
                continue;
            }
            best = match best {
                Some(b) if !cheaper(d, &self.down[b]) => Some(b),
                _ => Some(k),
            };
        }
        best
    }
}

/// Whether `a` is preferred to `b` by eq. (15): lower price, then fewer hops, then lower id.
fn cheaper(a: &DownLink, b: &DownLink) -> bool {
    (a.price, a.hops, a.node) < (b.price, b.hops, b.node)
}

/// What the node decided to send: flow (index in the node's flows), neighbour (index in its
/// `down`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Choice {
    /// The flow.
    pub flow: usize,
    /// The neighbour.
    pub link: usize,
}

/// One node's Horizon state.
#[derive(Debug, Clone)]
pub struct HorizonNode {
    /// The node.
    pub node: NodeId,
    /// The flows whose paths cross it.
    pub flows: Vec<FlowAt>,
    /// The flow served last (the round-robin start of eq. 14's ties).
    rr: usize,
    /// `S_i`, as last computed.
    pub node_price: f64,
    /// Packets held in all queues.
    pub held: usize,
}

impl HorizonNode {
    /// A node with these flows.
    pub fn new(node: NodeId, flows: Vec<FlowAt>) -> Self {
        HorizonNode {
            node,
            flows,
            rr: 0,
            node_price: 0.0,
            held: 0,
        }
    }

    /// The index of commodity `c` among the node's flows.
    pub fn flow_index(&self, c: u16) -> Option<usize> {
        self.flows.iter().position(|f| f.commodity == c)
    }

    /// Recomputes `S_i` and every `C_i^f` (eqs. 11-13) under `rule`. For each flow whose price
    /// changed, every upstream neighbour gets an update event. Returns whether any price
    /// changed.
    pub fn reprice(&mut self, rule: PriceRule) -> bool {
        let mut s = 0.0f64;
        for f in &self.flows {
            let p = f.custody();
            if p == 0 {
                continue;
            }
            if let Some(j) = f.cheapest() {
                let r = match rule {
                    PriceRule::PerRate => f.down[j].rate,
                    PriceRule::Queue => 1.0,
                };
                s = s.max(p as f64 * r);
            }
        }
        self.node_price = s;
        let mut any = false;
        for f in &mut self.flows {
            if f.is_destination {
                continue;
            }
            let c = f
                .down
                .iter()
                .map(|d| match rule {
                    PriceRule::PerRate if d.rate > 0.0 => d.price + s / d.rate,
                    PriceRule::PerRate => f64::INFINITY,
                    PriceRule::Queue => d.price + s,
                })
                .fold(f64::INFINITY, f64::min);
            let c = if c.is_finite() { c } else { 0.0 };
            if c != f.price {
                f.price = c;
                any = true;
                for u in &mut f.up {
                    u.events += 1;
                }
            }
        }
        any
    }

    /// Eqs. (14)-(15) with the custody gate: the flow to serve and its neighbour, or `None` if
    /// every flow with a packet queued is blocked. `usable(radio)` says whether a radio can
    /// take a packet now (its interface queue has room, or it is the radio asking).
    pub fn select(
        &self,
        threshold: usize,
        rule: NextHopRule,
        usable: impl Fn(u32) -> bool,
    ) -> Option<Choice> {
        self.select_to(threshold, rule, usable, None)
    }

    /// [`select`](Self::select) among the flows whose choice is neighbour `to` (`None`: any):
    /// the next packet of an 802.11n A-MPDU to `to`. Each flow's link is chosen by the rule as
    /// for any packet; a flow whose choice is another neighbour waits for another opportunity.
    pub fn select_to(
        &self,
        threshold: usize,
        rule: NextHopRule,
        usable: impl Fn(u32) -> bool,
        to: Option<NodeId>,
    ) -> Option<Choice> {
        let n = self.flows.len();
        let mut best: Option<(usize, Choice)> = None;
        for step in 0..n {
            // Round robin: start after the flow served last, so ties go to the next in turn.
            let k = (self.rr + 1 + step) % n;
            let f = &self.flows[k];
            if f.queue.is_empty() {
                continue;
            }
            let link = match rule {
                NextHopRule::Strict => f
                    .cheapest()
                    .filter(|&j| f.down[j].open(threshold) && usable(f.down[j].radio)),
                NextHopRule::CheapestOpen => {
                    f.cheapest_where(|d| d.open(threshold) && usable(d.radio))
                }
            };
            let Some(link) = link else { continue };
            if to.is_some_and(|n| n != f.down[link].node) {
                continue;
            }
            let p = f.custody();
            if best.is_none_or(|(most, _)| p > most) {
                best = Some((p, Choice { flow: k, link }));
            }
        }
        best.map(|(_, c)| c)
    }

    /// Takes the head packet of the chosen flow for its neighbour: the PLID it carries, now
    /// outstanding. Custody is unchanged (the packet moves from the queue to in transit).
    pub fn take(&mut self, c: Choice) -> (PacketId, Time, u8) {
        self.rr = c.flow;
        let f = &mut self.flows[c.flow];
        let (id, since) = f
            .queue
            .pop_front()
            .expect("select chose a flow with a packet");
        self.held -= 1;
        let d = &mut f.down[c.link];
        d.last_plid = d.last_plid.wrapping_add(1);
        d.outstanding.push(d.last_plid);
        (id, since, d.last_plid)
    }

    /// Queues a packet of flow `k` (index); on overflow of the node's buffer of `buffer`
    /// packets, the newest packet of the largest queue (ties: this flow, then the lowest index)
    /// is returned to be dropped.
    pub fn enqueue(
        &mut self,
        k: usize,
        id: PacketId,
        now: Time,
        buffer: usize,
    ) -> Option<PacketId> {
        self.flows[k].queue.push_back((id, now));
        self.held += 1;
        if self.held <= buffer {
            return None;
        }
        let mut victim = k;
        for (i, f) in self.flows.iter().enumerate() {
            if f.queue.len() > self.flows[victim].queue.len() {
                victim = i;
            }
        }
        self.held -= 1;
        self.flows[victim].queue.pop_back().map(|(id, _)| id)
    }

    /// Every packet held, out of the queues (the node failed).
    pub fn drain(&mut self, out: &mut Vec<PacketId>) {
        for f in &mut self.flows {
            out.extend(f.queue.drain(..).map(|(id, _)| id));
        }
        self.held = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn down(node: NodeId, rate: f64, price: f64) -> DownLink {
        DownLink {
            node,
            radio: 0,
            rate,
            hops: 1,
            last_plid: 0,
            outstanding: Vec::new(),
            price,
        }
    }

    fn up(node: NodeId) -> UpLink {
        UpLink {
            node,
            radio: 0,
            highest: None,
            events: 0,
            receptions: 0,
            held: false,
            sent: None,
            last_up: 0,
            last_rx: None,
            gap: 0,
            airtime: 0,
        }
    }

    /// A flow at a node holding `queued` packets, with these downstream links.
    fn flow(c: u16, queued: u32, down: Vec<DownLink>) -> FlowAt {
        let mut f = FlowAt::new(c, false, down, vec![up(99)]);
        for i in 0..queued {
            f.queue.push_back((PacketId(i), 0));
        }
        f
    }

    #[test]
    fn serial_comparison_wraps() {
        assert!(seq_le(3, 3));
        assert!(seq_le(3, 4));
        assert!(!seq_le(4, 3));
        assert!(seq_le(250, 5), "5 follows 250 across the wrap");
        assert!(!seq_le(5, 250));
    }

    /// §3.5, one flow, prices on the snapshot of the fluid steady state: node 2 holds 4 packets
    /// on a rate-2 link, node 3 holds 4 on a rate-4 link, node 1 holds none. Per rate:
    /// C2 = 0 + (4·2)/2 = 4, C3 = 0 + (4·4)/4 = 4, C1 = min(4 + 0, 4 + 0) = 4. Literal: C2 = 4,
    /// C3 = 4 as well (one flow per node: S = P).
    #[test]
    fn one_flow_prices_are_custody_along_the_path() {
        for rule in [PriceRule::PerRate, PriceRule::Queue] {
            let mut n2 = HorizonNode::new(2, vec![flow(0, 4, vec![down(4, 2.0, 0.0)])]);
            let mut n3 = HorizonNode::new(3, vec![flow(0, 4, vec![down(5, 4.0, 0.0)])]);
            n2.reprice(rule);
            n3.reprice(rule);
            assert_eq!(n2.flows[0].price, 4.0);
            assert_eq!(n3.flows[0].price, 4.0);
            let mut n1 = HorizonNode::new(
                1,
                vec![flow(0, 0, vec![down(2, 100.0, 4.0), down(3, 100.0, 4.0)])],
            );
            n1.reprice(rule);
            assert_eq!(n1.flows[0].price, 4.0);
        }
    }

    /// The "max over all flows" coupling of eq. (12), §3.5 with two flows: g (2→4) holds 36
    /// packets at node 2, f holds none there. S2 = 36·2 = 72, so C2^f = 0 + 72/2 = 36 = P2^g
    /// per rate; the literal rule gives S2 = 36 and the same 36. With f holding 1 packet and g
    /// none, f's price at node 2 is 1.
    #[test]
    fn a_heavy_flow_raises_every_flows_price_at_its_node() {
        for rule in [PriceRule::PerRate, PriceRule::Queue] {
            let mut n2 = HorizonNode::new(
                2,
                vec![
                    flow(0, 0, vec![down(4, 2.0, 0.0)]),
                    flow(1, 36, vec![down(4, 2.0, 0.0)]),
                ],
            );
            n2.reprice(rule);
            assert_eq!(n2.flows[0].price, 36.0, "{rule:?}");
            assert_eq!(n2.flows[1].price, 36.0, "{rule:?}");
        }
    }

    /// Per rate and literal differ when rates differ: node i holds P = 3 of f on a rate-6 link
    /// and P = 2 of g on a rate-1 link. Per rate: S = max(18, 2) = 18, C^f = 18/6 = 3,
    /// C^g = 18/1 = 18. Literal: S = 3, C^f = C^g = 3.
    #[test]
    fn per_rate_and_literal_prices_differ_with_unequal_rates() {
        let node = || {
            HorizonNode::new(
                7,
                vec![
                    flow(0, 3, vec![down(1, 6.0, 0.0)]),
                    flow(1, 2, vec![down(2, 1.0, 0.0)]),
                ],
            )
        };
        let mut a = node();
        a.reprice(PriceRule::PerRate);
        assert_eq!((a.flows[0].price, a.flows[1].price), (3.0, 18.0));
        let mut b = node();
        b.reprice(PriceRule::Queue);
        assert_eq!((b.flows[0].price, b.flows[1].price), (3.0, 3.0));
    }

    #[test]
    fn a_price_change_is_an_update_event_for_every_upstream_neighbour() {
        let mut n = HorizonNode::new(2, vec![flow(0, 1, vec![down(4, 2.0, 0.0)])]);
        assert!(n.reprice(PriceRule::PerRate));
        assert_eq!(n.flows[0].up[0].events, 1);
        assert!(!n.reprice(PriceRule::PerRate), "same custody, same price");
        assert_eq!(n.flows[0].up[0].events, 1);
    }

    /// Eq. (14): the flow with the most custody; (15): its cheapest neighbour; the gate: at T
    /// outstanding the strict rule blocks the flow and serves the next one, `cheapest_open`
    /// takes the other neighbour.
    #[test]
    fn flow_by_custody_hop_by_price_and_the_gate() {
        let mut n = HorizonNode::new(
            1,
            vec![
                flow(0, 2, vec![down(2, 54.0, 5.0), down(3, 54.0, 1.0)]),
                flow(1, 5, vec![down(4, 54.0, 0.0)]),
            ],
        );
        n.held = 7;
        let c = n.select(2, NextHopRule::Strict, |_| true).unwrap();
        assert_eq!(c, Choice { flow: 1, link: 0 }, "flow 1 holds more");
        n.flows[1].down[0].outstanding = vec![1, 2];
        let c = n.select(2, NextHopRule::Strict, |_| true).unwrap();
        assert_eq!(
            c,
            Choice { flow: 0, link: 1 },
            "flow 1 blocked; flow 0 to node 3"
        );
        n.flows[0].down[1].outstanding = vec![1, 2];
        assert_eq!(n.select(2, NextHopRule::Strict, |_| true), None);
        let c = n.select(2, NextHopRule::CheapestOpen, |_| true).unwrap();
        assert_eq!(c, Choice { flow: 0, link: 0 });
    }

    /// Receptions count update events and raise the highest PLID (across the wrap); a
    /// refreshment or a piggyback sent resets the count and records what was said.
    #[test]
    fn receptions_count_and_a_refresh_resets() {
        let mut u = up(1);
        for plid in [254u8, 255, 0, 1] {
            u.received(plid, 10);
        }
        assert_eq!((u.events, u.highest), (4, Some(1)));
        u.received(255, 11); // a late one below the highest
        assert_eq!(u.highest, Some(1));
        assert!(u.stale(3.0));
        u.sent_now(3.0, 12);
        assert_eq!((u.events, u.last_up), (0, 12));
        assert!(!u.stale(3.0));
        assert!(u.stale(4.0), "a new price is news");
    }

    #[test]
    fn taking_a_packet_keeps_custody_and_numbers_it() {
        let mut n = HorizonNode::new(1, vec![flow(0, 3, vec![down(2, 54.0, 0.0)])]);
        n.held = 3;
        let c = n.select(12, NextHopRule::Strict, |_| true).unwrap();
        let (_, _, plid) = n.take(c);
        assert_eq!(plid, 1);
        assert_eq!(n.flows[0].custody(), 3);
        let (_, _, plid) = n.take(c);
        assert_eq!(plid, 2);
        assert_eq!(n.flows[0].down[0].release_upto(1), 1);
        assert_eq!(n.flows[0].custody(), 2);
        assert!(n.flows[0].down[0].release_one(2));
        assert_eq!(n.flows[0].custody(), 1);
    }

    #[test]
    fn overflow_drops_the_newest_packet_of_the_largest_queue() {
        let mut n = HorizonNode::new(
            1,
            vec![
                flow(0, 0, vec![down(2, 1.0, 0.0)]),
                flow(1, 0, vec![down(3, 1.0, 0.0)]),
            ],
        );
        for i in 0..3 {
            assert_eq!(n.enqueue(1, PacketId(i), 0, 4), None);
        }
        assert_eq!(n.enqueue(0, PacketId(10), 0, 4), None);
        assert_eq!(n.enqueue(0, PacketId(11), 0, 4), Some(PacketId(2)));
        assert_eq!(n.held, 4);
    }

    /// Of `refresh_every` update events, a refreshment owed for receptions (the neighbour's
    /// gate waits for their `R`) is told from one owed for price changes (fewer receptions among
    /// the events); one sent resets both counts.
    #[test]
    fn counted_refreshments_tell_receptions_from_price_changes() {
        let mut u = up(1);
        for plid in 1..=4u8 {
            u.received(plid, 0);
        }
        assert_eq!(u.counted_due(5), None);
        u.events += 1; // the node's price changed
        assert_eq!(u.counted_due(5), Some(CountedCause::Price));
        u.received(5, 0);
        assert_eq!(u.counted_due(5), Some(CountedCause::Received));
        u.sent_now(1.0, 0);
        assert_eq!((u.events, u.receptions, u.counted_due(5)), (0, 0, None));
    }

    const MS: Time = 1_000_000;

    fn timers(rule: RefreshRule) -> TimerRule {
        TimerRule {
            rule,
            idle: 20 * MS,
            repeat: 200 * MS,
            every: 5,
        }
    }

    /// A neighbour sending a packet every 40 ms (0, 40, ..., 400 ms), each unacknowledged when
    /// the timers look. The earlier rule refreshes 20 ms after the last packet, as it would
    /// after every one of them; the paced rule waits until five gaps (200 ms) passed without a
    /// packet, where the counted refreshment would have been due, then repeats every 200 ms
    /// for a second and stops.
    #[test]
    fn the_paced_timer_waits_for_the_link_to_go_quiet() {
        let mut u = up(1);
        for k in 0..=10u8 {
            u.received(k, Time::from(k) * 40 * MS);
        }
        assert_eq!(u.gap, 40 * MS);
        let (eager, paced) = (timers(RefreshRule::Eager), timers(RefreshRule::Paced));
        assert_eq!(u.idle_after(&paced), 200 * MS);
        assert_eq!(
            u.timed_due(0.0, 420 * MS, &eager),
            Some(TimedCause::Acknowledge)
        );
        assert_eq!(u.timed_due(0.0, 420 * MS, &paced), None);
        assert_eq!(u.timed_due(0.0, 599 * MS, &paced), None);
        assert_eq!(
            u.timed_due(0.0, 600 * MS, &paced),
            Some(TimedCause::Acknowledge)
        );
        u.sent_now(0.0, 600 * MS);
        assert_eq!(u.timed_due(0.0, 700 * MS, &paced), None, "nothing new");
        assert_eq!(u.timed_due(0.0, 800 * MS, &paced), Some(TimedCause::Repeat));
        u.sent_now(0.0, 1_600 * MS);
        // 1.2 s after the last packet: the link went idle at 600 ms, the repeat runs a second.
        assert_eq!(u.timed_due(0.0, 1_600 * MS, &paced), None, "just sent");
        assert_eq!(
            u.timed_due(0.0, 1_800 * MS, &paced),
            None,
            "a second after going idle"
        );
        assert_eq!(
            u.timed_due(0.0, 1_800 * MS, &eager),
            None,
            "over a second since a packet"
        );
        assert_eq!(
            u.timed_due(3.0, 1_800 * MS, &paced),
            Some(TimedCause::Price),
            "a new price"
        );
    }

    /// A gap longer than a second (a flow that paused) makes the link idle after a second, not
    /// after five such gaps; a neighbour heard once counts as idle after `refresh_idle`.
    #[test]
    fn the_idle_wait_is_bounded() {
        let paced = timers(RefreshRule::Paced);
        let mut u = up(1);
        u.received(1, 0);
        assert_eq!(u.idle_after(&paced), 20 * MS);
        u.received(2, 3_000 * MS);
        assert_eq!(u.idle_after(&paced), ACTIVE_WINDOW);
    }

    /// The budget: a share of 1 % holds 10 ms of air time when full; each refreshment goes
    /// while the bucket is not empty and may take it below zero, and the bucket refills at 1 %
    /// of the time.
    #[test]
    fn the_budget_lets_a_share_of_the_time_through() {
        let mut b = AirtimeBudget::new(0.01);
        for _ in 0..5 {
            assert!(b.spend(0, 2 * MS));
        }
        assert!(!b.spend(0, 2 * MS), "10 ms spent");
        // 1 ms back after 100 ms; a 3-ms refreshment may go and leaves the bucket 2 ms short,
        // which takes 200 ms to refill.
        assert!(b.spend(100 * MS, 3 * MS));
        assert!(!b.spend(300 * MS, MS));
        assert!(b.spend(301 * MS, MS));
        // Over a long run, the air time spent is the share of the time, plus a bucket and one.
        let mut b = AirtimeBudget::new(0.01);
        let mut spent = 0;
        for t in 0..10_000 {
            if b.spend(t * MS, 700_000) {
                spent += 700_000;
            }
        }
        let share = 0.01 * (10_000 * MS) as f64;
        assert!(spent as f64 >= share, "{spent}");
        assert!(
            spent as f64 <= share + 10.0 * MS as f64 + 700_000.0,
            "{spent}"
        );
    }
}
