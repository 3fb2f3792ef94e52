//! NCAQM's output queue (Seferoglu & Markopoulou, IEEE/ACM ToN 22(4), 2014, §V-A, Algorithms 1
//! and 2; spec 001 §2.3): a queue of *entries*, each a native or an XOR of natives of different
//! flows that every one of its next hops can decode, so a coded entry takes one buffer slot.
//!
//! - **Insertion** (Alg. 1 at insertion [P]): an arriving native joins the first entry, from the
//!   head, with which the union is eligible: (i) no flow in common and no next hop in common,
//!   (ii) decodable at the next hop of every native by COPE's threshold rule
//!   ([`crate::coding::cope_rule::decodable`]), and (iii) [I] no packet of the native's flow
//!   behind that entry (each flow stays first-in first-out). No such entry: appended.
//! - **Re-coding** (Alg. 1's pass [P], run "periodically" [I: when the knowledge changes, and over
//!   the head at every transmit opportunity]): for m = 1..l, n = m+1..l, e_n merges into e_m when
//!   the union is eligible and none of e_n's flows sits between them; the merged entry keeps
//!   position m.
//! - **Estimates** [P, window I]: per flow s, over the natives of s this node sent in the last
//!   `window` (T_alpha = 1 s), alpha_s,k = the share sent inside code k (a code is its set of
//!   flows; its hyperarc, the next hops, follows from the flows' routes); no history: alpha = 1
//!   for s alone. For each code k with alpha > 0, m_s,k = 1/|argmax| over the flows of k
//!   maximising alpha_s,k Q_s (Q_s: natives of s queued, coded ones included), else 0; the
//!   h-queue Q_k = max_s alpha_s,k Q_s; Phi_s = sum over codes k containing s of
//!   Q_k alpha_s,k m_s,k.
//! - **Overflow** (Alg. 2 [P]): an arrival that joins no entry when the queue holds L entries:
//!   the flows of maximal Phi (the arrival counted), one drawn uniformly from the caller's random
//!   stream, loses its last uncoded entry (nearest the tail; the arrival itself if it is that
//!   one); if that flow has only coded natives here, the arrival is dropped. All Phi = 0 (no
//!   history): drop-tail [I].
//!
//! - **Two-hop codes** (NCAQM over BFLY, paper 001 §VII [P/I]): where the caller's
//!   [`Decodability::two_hop`] says two single natives with the *same* next hop pair as a BFLY
//!   code, they form one entry; such an entry merges with nothing else (the relay forwards it
//!   undecoded: "a flow cannot be coded if already coded").
//!
//! Pure: no clock of its own (the caller passes times), knowledge asked through [`Decodability`]
//! (a closure `holds(r, id)` is one, without two-hop codes); fixed
//! storage per entry (at most [`MAX_NATIVES`] natives), so no allocation per packet once the
//! queue and the estimate's ring have grown.

use std::collections::{BTreeMap, VecDeque};

use crate::coding::cope_rule::{self, Native};
use crate::sim::{Rng, Time};

/// What the queue asks of its node's knowledge.
pub trait Decodability {
    /// The probability that node `r` holds native `id`.
    fn holds(&mut self, r: u32, id: u64) -> f64;

    /// Whether natives `a` and `b` (same next hop) travel as one BFLY two-hop code. None do
    /// unless the layer codes over two hops.
    fn two_hop(&mut self, _a: u64, _b: u64) -> bool {
        false
    }
}

impl<F: FnMut(u32, u64) -> f64> Decodability for F {
    fn holds(&mut self, r: u32, id: u64) -> f64 {
        self(r, id)
    }
}

/// The most natives one entry holds (the 8-flow wheel of the paper's Fig. 6).
pub const MAX_NATIVES: usize = 8;

/// One native in the queue: the packet (`native.id`), its next hop, and its flow (a stream:
/// a TCP flow's data and its ACKs are two, spec A11).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Queued {
    /// The native (id, next hop, size class).
    pub native: Native,
    /// Its flow.
    pub flow: u32,
    /// Never coded with anything (a TCP ACK when the layer does not code ACKs).
    pub solo: bool,
}

/// An entry: a native, or an XOR of natives of distinct flows and next hops.
#[derive(Debug, Clone, Copy)]
pub struct Entry {
    natives: [Queued; MAX_NATIVES],
    len: usize,
}

impl Entry {
    fn single(q: Queued) -> Self {
        Entry {
            natives: [q; MAX_NATIVES],
            len: 1,
        }
    }

    /// The natives.
    pub fn natives(&self) -> &[Queued] {
        &self.natives[..self.len]
    }

    /// Whether it is an XOR of several natives.
    pub fn is_coded(&self) -> bool {
        self.len > 1
    }

    /// Whether it is a BFLY two-hop code: two natives to the same next hop.
    pub fn is_two_hop(&self) -> bool {
        self.len == 2 && self.natives[0].native.next_hop == self.natives[1].native.next_hop
    }

    fn has_solo(&self) -> bool {
        self.natives().iter().any(|q| q.solo)
    }

    fn has_flow(&self, flow: u32) -> bool {
        self.natives().iter().any(|q| q.flow == flow)
    }
}

/// What became of an arrival.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Enqueued {
    /// It joined the entry at this position.
    Joined(usize),
    /// It was appended.
    Appended,
    /// The queue was full: this native was dropped (the arrival's id, or a queued one's).
    Dropped(u64),
}

/// The queue and its estimates.
#[derive(Debug, Clone)]
pub struct NcaqmQueue {
    capacity: usize,
    threshold: f64,
    window: Time,
    entries: VecDeque<Entry>,
    /// Natives sent in the window: (time, flow, code index), oldest first.
    sent: VecDeque<(Time, u32, u32)>,
    /// Codes seen, by their sorted flows (index into `code_flows`, `code_hops`).
    codes: BTreeMap<Vec<u32>, u32>,
    code_flows: Vec<Vec<u32>>,
    /// Each code's hyperarc: its natives' next hops, sorted.
    code_hops: Vec<Vec<u32>>,
    /// Per (flow, code), natives sent in the window; per flow, all of them.
    sent_in_code: BTreeMap<(u32, u32), u32>,
    sent_by_flow: BTreeMap<u32, u32>,
    scratch: Vec<Native>,
    scratch_flows: Vec<u32>,
    scratch_hops: Vec<u32>,
    scratch_phis: Vec<f64>,
    scratch_q: Vec<(u32, f64)>,
    scratch_code_q: Vec<f64>,
    scratch_hyper_q: Vec<f64>,
}

impl NcaqmQueue {
    /// A queue of `capacity` entries, COPE's `threshold` for decodability, estimates over
    /// `window`.
    pub fn new(capacity: usize, threshold: f64, window: Time) -> Self {
        NcaqmQueue {
            capacity: capacity.max(1),
            threshold,
            window,
            entries: VecDeque::with_capacity(capacity.max(1)),
            sent: VecDeque::new(),
            codes: BTreeMap::new(),
            code_flows: Vec::new(),
            code_hops: Vec::new(),
            sent_in_code: BTreeMap::new(),
            sent_by_flow: BTreeMap::new(),
            scratch: Vec::with_capacity(MAX_NATIVES),
            scratch_flows: Vec::new(),
            scratch_hops: Vec::with_capacity(MAX_NATIVES),
            scratch_phis: Vec::new(),
            scratch_q: Vec::new(),
            scratch_code_q: Vec::new(),
            scratch_hyper_q: Vec::new(),
        }
    }

    /// The entries, head first.
    pub fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.entries.iter()
    }

    /// Entries queued.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Natives of `flow` queued (inside coded entries too): Q_i^s.
    pub fn natives_of(&self, flow: u32) -> usize {
        self.entries.iter().filter(|e| e.has_flow(flow)).count()
    }

    /// Whether the union of `a` and `b` is eligible: no flow and no next hop in common, at most
    /// MAX_NATIVES natives, decodable by the threshold; or two single natives with one next hop
    /// that `c` pairs as a two-hop code.
    fn eligible(&mut self, a: &Entry, b: &Entry, c: &mut impl Decodability) -> bool {
        if a.len + b.len > MAX_NATIVES || a.has_solo() || b.has_solo() {
            return false;
        }
        if a.is_two_hop() || b.is_two_hop() {
            return false;
        }
        let (x, y) = (a.natives[0], b.natives[0]);
        if a.len == 1 && b.len == 1 && x.native.next_hop == y.native.next_hop {
            return x.flow != y.flow && c.two_hop(x.native.id, y.native.id);
        }
        let clash = a.natives().iter().any(|x| {
            b.natives()
                .iter()
                .any(|y| x.flow == y.flow || x.native.next_hop == y.native.next_hop)
        });
        if clash {
            return false;
        }
        self.scratch.clear();
        self.scratch
            .extend(a.natives().iter().chain(b.natives()).map(|q| q.native));
        cope_rule::decodable(&self.scratch, &mut |r, id| c.holds(r, id), self.threshold)
    }

    /// Whether an entry of `flow`s sits at positions (from, to) exclusive.
    fn flows_between(&self, flows: &Entry, from: usize, to: usize) -> bool {
        self.entries
            .range(from + 1..to)
            .any(|e| flows.natives().iter().any(|q| e.has_flow(q.flow)))
    }

    /// Alg. 1 at insertion, then Alg. 2 if the queue is full; `holds(r, id)` is the probability
    /// that node r holds native `id`, `now` the time (for the estimates), `rng` the node's stream
    /// (Alg. 2's ties).
    pub fn enqueue(
        &mut self,
        q: Queued,
        holds: &mut impl Decodability,
        now: Time,
        rng: &mut Rng,
    ) -> Enqueued {
        self.insert(q, holds, now, rng, false)
    }

    /// [`enqueue`](Self::enqueue), or with `front` a native back from a COPE retransmission:
    /// it joins the first eligible entry whatever follows it (it is late already), and
    /// otherwise goes to the head, as COPE puts a retransmitted native [I].
    pub fn insert(
        &mut self,
        q: Queued,
        holds: &mut impl Decodability,
        now: Time,
        rng: &mut Rng,
        front: bool,
    ) -> Enqueued {
        let arrival = Entry::single(q);
        for m in 0..self.entries.len() {
            let entry = self.entries[m];
            if !front && self.flows_between(&arrival, m, self.entries.len()) {
                // A packet of this flow sits behind e_m: joining it would overtake that packet.
                continue;
            }
            if self.eligible(&entry, &arrival, holds) {
                let e = &mut self.entries[m];
                e.natives[e.len] = q;
                e.len += 1;
                return Enqueued::Joined(m);
            }
        }
        if self.entries.len() < self.capacity {
            if front {
                self.entries.push_front(arrival);
            } else {
                self.entries.push_back(arrival);
            }
            return Enqueued::Appended;
        }
        self.overflow(q, now, rng, front)
    }

    /// Alg. 2 for an arrival `q` that found the queue full (`front`: a retransmission, kept at
    /// the head if another native goes).
    fn overflow(&mut self, q: Queued, now: Time, rng: &mut Rng, front: bool) -> Enqueued {
        self.expire(now);
        if self.sent.is_empty() {
            // No history at all: drop-tail [I].
            return Enqueued::Dropped(q.native.id);
        }
        let mut flows = std::mem::take(&mut self.scratch_flows);
        let mut phis = std::mem::take(&mut self.scratch_phis);
        flows.clear();
        flows.extend(
            self.entries
                .iter()
                .flat_map(|e| e.natives().iter().map(|n| n.flow)),
        );
        flows.push(q.flow);
        flows.sort_unstable();
        flows.dedup();
        self.prepare(&flows, q.flow);
        phis.clear();
        phis.extend(flows.iter().map(|&s| self.phi(s)));
        let best = phis.iter().cloned().fold(0.0, f64::max);
        let ties = phis.iter().filter(|&&p| p == best).count();
        let pick = (rng.next_u64() % ties as u64) as usize;
        let chosen = flows
            .iter()
            .zip(&phis)
            .filter(|(_, &p)| p == best)
            .nth(pick)
            .map(|(&s, _)| s);
        self.scratch_flows = flows;
        self.scratch_phis = phis;
        let Some(chosen) = chosen.filter(|_| best > 0.0) else {
            return Enqueued::Dropped(q.native.id);
        };
        if chosen == q.flow {
            // The arrival is its flow's last uncoded packet.
            return Enqueued::Dropped(q.native.id);
        }
        let last_uncoded = (0..self.entries.len())
            .rev()
            .find(|&i| !self.entries[i].is_coded() && self.entries[i].has_flow(chosen));
        match last_uncoded {
            Some(i) => {
                let victim = self.entries.remove(i).expect("in range").natives[0]
                    .native
                    .id;
                if front {
                    self.entries.push_front(Entry::single(q));
                } else {
                    self.entries.push_back(Entry::single(q));
                }
                Enqueued::Dropped(victim)
            }
            None => Enqueued::Dropped(q.native.id),
        }
    }

    /// alpha_f,k: the share of f's natives sent in the window that went in code k.
    fn alpha(&self, f: u32, k: u32) -> f64 {
        let all = self.sent_by_flow.get(&f).copied().unwrap_or(0);
        let sent = self.sent_in_code.get(&(f, k)).copied().unwrap_or(0);
        if all == 0 {
            0.0
        } else {
            sent as f64 / all as f64
        }
    }

    /// What Alg. 2 reads, computed once per overflow into the scratch vectors: each queued flow's
    /// Q (the arrival of flow `arriving` counted; `scratch_q`, sorted by flow), each code's queue
    /// max_f alpha_f,k Q_f (`scratch_code_q`), and for each code the sum Q_h of the code queues
    /// on its hyperarc (`scratch_hyper_q`); codes unused in the window count 0.
    fn prepare(&mut self, flows: &[u32], arriving: u32) {
        let mut q_of = std::mem::take(&mut self.scratch_q);
        q_of.clear();
        q_of.extend(flows.iter().map(|&f| (f, 0.0)));
        let natives = self
            .entries
            .iter()
            .flat_map(|e| e.natives().iter().map(|n| n.flow));
        for f in natives.chain(std::iter::once(arriving)) {
            if let Ok(i) = q_of.binary_search_by_key(&f, |x| x.0) {
                q_of[i].1 += 1.0;
            }
        }
        let queued = |f: u32| {
            q_of.binary_search_by_key(&f, |x| x.0)
                .map_or(0.0, |i| q_of[i].1)
        };
        let codes = self.code_flows.len();
        let mut code_q = std::mem::take(&mut self.scratch_code_q);
        code_q.clear();
        code_q.extend((0..codes as u32).map(|k| {
            self.code_flows[k as usize]
                .iter()
                .map(|&f| self.alpha(f, k) * queued(f))
                .fold(0.0, f64::max)
        }));
        let mut hyper_q = std::mem::take(&mut self.scratch_hyper_q);
        hyper_q.clear();
        hyper_q.extend((0..codes).map(|k| {
            if code_q[k] <= 0.0 {
                return 0.0;
            }
            (0..codes)
                .filter(|&j| self.code_hops[j] == self.code_hops[k])
                .map(|j| code_q[j])
                .sum()
        }));
        self.scratch_q = q_of;
        self.scratch_code_q = code_q;
        self.scratch_hyper_q = hyper_q;
    }

    /// Phi_s from `prepare`'s values: sum over the codes k containing s of Q_h(k) alpha_s,k
    /// m_s,k, m_s,k = 1/|argmax| if s maximises alpha Q in k, else 0.
    fn phi(&self, s: u32) -> f64 {
        let q_of = &self.scratch_q;
        let queued = |f: u32| {
            q_of.binary_search_by_key(&f, |x| x.0)
                .map_or(0.0, |i| q_of[i].1)
        };
        if !self.sent_by_flow.contains_key(&s) {
            // No history of s: alpha = 1 for s alone, so m = 1 and Phi = Q_h = Q_s.
            return queued(s);
        }
        let mut phi = 0.0;
        for (&(_, k), _) in self.sent_in_code.range((s, 0)..=(s, u32::MAX)) {
            let alpha = self.alpha(s, k);
            let top = self.scratch_code_q[k as usize];
            if alpha * queued(s) < top || top <= 0.0 {
                continue;
            }
            let ties = self.code_flows[k as usize]
                .iter()
                .filter(|&&f| self.alpha(f, k) * queued(f) == top)
                .count();
            phi += self.scratch_hyper_q[k as usize] * alpha / ties as f64;
        }
        phi
    }

    /// Alg. 1's pass: later entries merge into earlier ones where eligible and no packet of
    /// their flows sits between.
    pub fn recode(&mut self, holds: &mut impl Decodability) {
        let mut m = 0;
        while m < self.entries.len() {
            self.merge_into(m, holds);
            m += 1;
        }
    }

    /// Merges into entry `m` every later entry that is eligible with it and has none of its
    /// flows in between, in queue order.
    fn merge_into(&mut self, m: usize, holds: &mut impl Decodability) {
        let mut n = m + 1;
        while n < self.entries.len() {
            let (a, b) = (self.entries[m], self.entries[n]);
            if !self.flows_between(&b, m, n) && self.eligible(&a, &b, holds) {
                let e = &mut self.entries[m];
                for q in b.natives() {
                    e.natives[e.len] = *q;
                    e.len += 1;
                }
                self.entries.remove(n);
            } else {
                n += 1;
            }
        }
    }

    /// Removes every native, into `out` (appended; the node failed).
    pub fn drain(&mut self, out: &mut Vec<u64>) {
        for e in self.entries.drain(..) {
            out.extend(e.natives().iter().map(|q| q.native.id));
        }
    }

    /// The head entry for a transmit opportunity at `now`, after trying the later entries on it
    /// once more; its natives enter the estimates as sent in its code.
    pub fn dequeue(&mut self, holds: &mut impl Decodability, now: Time) -> Option<Entry> {
        if !self.entries.is_empty() {
            self.merge_into(0, holds);
        }
        let head = self.entries.pop_front()?;
        self.record(&head, now);
        Some(head)
    }

    /// Counts `entry`'s natives as sent in its code at `now`.
    fn record(&mut self, entry: &Entry, now: Time) {
        self.expire(now);
        let mut flows = std::mem::take(&mut self.scratch_flows);
        flows.clear();
        flows.extend(entry.natives().iter().map(|q| q.flow));
        flows.sort_unstable();
        let k = match self.codes.get(flows.as_slice()) {
            Some(&k) => k,
            None => {
                let k = self.code_flows.len() as u32;
                self.codes.insert(flows.clone(), k);
                self.code_flows.push(flows.clone());
                self.scratch_hops.clear();
                self.scratch_hops
                    .extend(entry.natives().iter().map(|q| q.native.next_hop));
                self.scratch_hops.sort_unstable();
                self.code_hops.push(self.scratch_hops.clone());
                k
            }
        };
        for &s in &flows {
            self.sent.push_back((now, s, k));
            *self.sent_in_code.entry((s, k)).or_insert(0) += 1;
            *self.sent_by_flow.entry(s).or_insert(0) += 1;
        }
        self.scratch_flows = flows;
    }

    /// Forgets what was sent before `now - window`.
    fn expire(&mut self, now: Time) {
        while let Some(&(t, s, k)) = self.sent.front() {
            if t.saturating_add(self.window) > now {
                break;
            }
            self.sent.pop_front();
            if let Some(c) = self.sent_in_code.get_mut(&(s, k)) {
                *c -= 1;
                if *c == 0 {
                    self.sent_in_code.remove(&(s, k));
                }
            }
            if let Some(c) = self.sent_by_flow.get_mut(&s) {
                *c -= 1;
                if *c == 0 {
                    self.sent_by_flow.remove(&s);
                }
            }
        }
    }
}
