//! Horizon's delayed reordering at a flow's destination (paper 003, Radunović et al., MobiCom
//! 2008: §4.2 with eq. (16), §5.1's PktID/TimeStamp/PathID fields, §5.3.1's loss detection and
//! small-packet rule; spec 003 §2.5-§2.6, A12-A14). A pure state machine: arrivals and timer
//! expiries go in, deliveries come out in a caller's buffer; it knows no io and no TCP.
//!
//! - **Delay estimator, eq. (16).** Every reception gives a skewed one-way delay sample
//!   `t_r(p) - t_s(p)`. `D <- (1-β)D + β|A - sample|` first (with the A before this sample), then
//!   `A <- (1-α)A + α·sample`. The first sample sets `A = sample`, `D = d0`.
//! - **Deadline.** A packet that has to wait gets `deadline(p) = t_s(p) + A + 4D` with the A and
//!   D after its own sample (§4.2: "t_s(p2) + A_sd(p2) + 4D_sd(p2)").
//! - **Release.** `next` is the lowest PktID neither delivered nor declared lost. A packet below
//!   `next` (late: its gap was skipped or declared lost, or it is a duplicate) goes up at once.
//!   Otherwise it is buffered and the buffer is flushed: `next` and every consecutive buffered id
//!   go up; at a gap, if the smallest buffered id's deadline has passed, that packet goes up out
//!   of order (the ids below it are skipped) and the flush repeats. Only the smallest buffered
//!   id's deadline matters (release is in PktID order: the paper takes p2, then p3), so there is
//!   one timer, at that deadline ([`Reorder::deadline`]).
//! - **Loss detection (§5.3.1, optional).** Paths are learned from the PathID of what arrives.
//!   A gap at `next` is declared lost once every learned path has delivered a PktID above
//!   `next` (per-path FIFO makes that proof of loss), then the flush goes on.
//! - **Small packets (§5.3.1).** A packet under 60 B of IP size (the Horizon header excluded,
//!   A14) goes up at once: TCP ACKs and window probes cause no duplicate ACKs.
//!
//! Choices the paper leaves open (spec §5), all parameters ([`ReorderParams`]):
//! - α = 1/8, β = 1/4 (RFC 6298's gains for "the same algorithm as (16)"), `d0` = 10 ms, first
//!   sample `A = sample` (A12; the RFC's `D = A/2` means nothing when A carries a clock skew).
//! - **The `n_paths` guard (A13).** No loss verdict while fewer than `n_paths` distinct PathIDs
//!   are remembered: per-path FIFO proves a loss only once *every* path of the flow is known.
//!   Without it the first packets of a slow path are declared lost at start-up, when only the
//!   fast path has been seen, and then arrive late. The count is of the paths remembered *now*:
//!   a path forgotten after 1 s of silence disables verdicts until it is heard again, because
//!   its revival is the start-up hazard over again. `n_paths = 0` turns the guard off.
//! - **Path expiry.** A PathID not seen for `path_expiry` (1 s) is forgotten (soft state, A13).
//! - **Bypassed packets** also feed the estimator and the path table (they are receptions, and
//!   their PktID is as good a witness of per-path order as any), and their PktID counts as
//!   delivered: the flush passes over it instead of waiting for it.
//! - **PktIDs** are u16 on the packet (the paper's byte, widened by the seam). They are unwrapped
//!   against `next` by serial-number arithmetic (RFC 1982): an id up to 32767 ahead is ahead,
//!   anything else is behind, i.e. late. `next` starts at `first_id` (the forwarding layer's
//!   first PktID of the flow).
//! - **Duplicates** of a PktID already buffered go up at once (counted): the layer does not
//!   filter them and TCP's receiver ignores them, as it would without Horizon.
//! - **Clock skew.** A is kept as the first sample (an integer) plus an f64 EWMA of the samples'
//!   differences from it. A constant offset Δ on every `t_s` changes only the integer part, by
//!   -Δ, and `t_s + A` not at all: deadlines, measured on the destination's clock, come out
//!   bit-identical, not merely within rounding (the offset cancels, spec §2.6).
//!
//! No allocation per packet after warm-up: the buffer is a ring ([`VecDeque`]) indexed by
//! `PktID - next`, which keeps its capacity, and the path table only grows when a new PathID
//! appears.

use std::collections::VecDeque;

use crate::sim::time::{MILLIS, SECS};
use crate::sim::Time;

/// The reorder buffer's parameters (spec 003 §2.6, §2.9).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReorderParams {
    /// Gain of the mean in eq. (16).
    pub alpha: f64,
    /// Gain of the deviation in eq. (16).
    pub beta: f64,
    /// The deviation D after the first sample, ns.
    pub d0: Time,
    /// Declare a gap lost once every learned path has passed it (§5.3.1).
    pub loss_detection: bool,
    /// No loss verdict while fewer distinct PathIDs are remembered (0: no guard).
    pub n_paths: usize,
    /// A PathID not seen for this long is forgotten, ns.
    pub path_expiry: Time,
    /// Packets whose IP size is below this many bytes bypass the buffer.
    pub small_bytes: u32,
    /// The first PktID of the flow: `next` before anything arrived.
    pub first_id: u16,
}

impl Default for ReorderParams {
    /// Spec 003 §2.9: α = 1/8, β = 1/4, d0 = 10 ms, loss detection on with two paths, 1 s path
    /// expiry, 60 B, PktIDs from 0.
    fn default() -> Self {
        ReorderParams {
            alpha: 0.125,
            beta: 0.25,
            d0: 10 * MILLIS,
            loss_detection: true,
            n_paths: 2,
            path_expiry: SECS,
            small_bytes: 60,
            first_id: 0,
        }
    }
}

/// Eq. (16)'s mean and deviation of a (skewed) one-way delay, ns. The mean is kept as its first
/// sample plus an EWMA of the later samples' differences from it, so that a constant offset on
/// the samples moves only the integer part (see the module header, "Clock skew").
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DelayEstimator {
    alpha: f64,
    beta: f64,
    d0: f64,
    /// The first sample, ns (`None` before it).
    base: Option<i64>,
    /// The mean minus `base`, ns.
    mean_rel: f64,
    /// The deviation D, ns.
    dev: f64,
}

impl DelayEstimator {
    /// An estimator with gains `alpha` (mean) and `beta` (deviation) whose deviation starts at
    /// `d0` ns.
    pub fn new(alpha: f64, beta: f64, d0: Time) -> Self {
        DelayEstimator {
            alpha,
            beta,
            d0: d0 as f64,
            base: None,
            mean_rel: 0.0,
            dev: 0.0,
        }
    }

    /// Takes a one-way delay sample `arrived - sent`, ns (negative under a clock skew).
    pub fn sample(&mut self, sent: i64, arrived: i64) {
        let s = arrived.saturating_sub(sent);
        let Some(base) = self.base else {
            self.base = Some(s);
            self.mean_rel = 0.0;
            self.dev = self.d0;
            return;
        };
        // Relative to the first sample: exact integers whatever the skew.
        let x = s.saturating_sub(base) as f64;
        // Eq. (16): the deviation from the mean *before* this sample, then the mean.
        self.dev = (1.0 - self.beta) * self.dev + self.beta * (self.mean_rel - x).abs();
        self.mean_rel = (1.0 - self.alpha) * self.mean_rel + self.alpha * x;
    }

    /// The mean A, ns; `None` before the first sample.
    pub fn mean(&self) -> Option<f64> {
        self.base.map(|b| b as f64 + self.mean_rel)
    }

    /// The deviation D, ns; `None` before the first sample.
    pub fn deviation(&self) -> Option<f64> {
        self.base.map(|_| self.dev)
    }

    /// `sent + A + 4D` on the receiver's clock, ns, rounded to the nanosecond (`sent` itself
    /// before the first sample). `sent + first sample` is summed in integers first: that is
    /// where a clock offset cancels exactly.
    pub fn deadline(&self, sent: i64) -> Time {
        let base = self.base.unwrap_or(0);
        let anchor = i128::from(sent) + i128::from(base);
        // `as` saturates (NaN to 0): odd gains give odd deadlines, never a panic.
        let wait = (self.mean_rel + 4.0 * self.dev).round() as i128;
        anchor.saturating_add(wait).clamp(0, i128::from(Time::MAX)) as Time
    }
}

/// A packet of the flow as it arrives at the destination's Horizon layer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Incoming<T> {
    /// Its PktID.
    pub id: u16,
    /// Its TimeStamp, `t_s` on the source's clock, ns (i64: a skewed clock may run behind).
    pub sent: i64,
    /// Its IP size (the Horizon header excluded), bytes.
    pub ip_bytes: u32,
    /// Its PathID, if known.
    pub path: Option<u8>,
    /// What goes up.
    pub payload: T,
}

/// How a packet went up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeliveryKind {
    /// At `next`: in sequence.
    InOrder,
    /// The smallest buffered id, past a gap whose deadline passed: out of order.
    OutOfOrder,
    /// Below `next` on arrival: its id was skipped or declared lost.
    Late,
    /// Under the small-packet size: at once.
    Bypassed,
    /// Its id was already waiting in the buffer: at once.
    Duplicate,
}

/// A packet going up.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Delivery<T> {
    /// What arrived.
    pub payload: T,
    /// Its PktID, unwrapped (ids above 65535 continue past the wrap; a late packet's is below
    /// `next`, floored at 0).
    pub id: u64,
    /// How it went up.
    pub kind: DeliveryKind,
    /// The serial number of its arrival (0 for the first packet to arrive,
    /// [`Reorder::on_arrival`] returns it): tells a caller which delivery is the packet that
    /// has just arrived.
    pub arrival: u64,
}

/// The buffer's counters.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ReorderStats {
    /// Packets arrived.
    pub arrivals: u64,
    /// Delivered in sequence (at once or after waiting).
    pub in_order: u64,
    /// Delivered out of order at a deadline (each one jumps a gap).
    pub out_of_order: u64,
    /// PktIDs jumped over by those out-of-order deliveries.
    pub skipped: u64,
    /// PktIDs declared lost by loss detection.
    pub declared_lost: u64,
    /// Packets that arrived below `next` (after their id was skipped or declared lost).
    pub late: u64,
    /// Packets under the small-packet size.
    pub bypassed: u64,
    /// Packets whose id was already buffered.
    pub duplicates: u64,
    /// The most packets left waiting after an arrival.
    pub max_buffered: u64,
    /// Sum of the time packets delivered in or out of order spent buffered, ns (reported as a
    /// mean in seconds, `super::ReorderReport`).
    #[serde(skip)]
    pub hold_sum_ns: u64,
    /// The longest such time, ns (reported in seconds).
    #[serde(skip)]
    pub max_hold_ns: u64,
}

impl ReorderStats {
    /// Mean time a packet delivered in or out of order spent in the buffer (0 for one that went
    /// straight through), ns; 0 before any.
    pub fn mean_hold_ns(&self) -> f64 {
        let n = self.in_order + self.out_of_order;
        if n == 0 {
            0.0
        } else {
            self.hold_sum_ns as f64 / n as f64
        }
    }
}

/// One PktID's place in the buffer (position `id - next`).
#[derive(Debug, Clone, Copy)]
enum Slot<T> {
    /// Not arrived.
    Empty,
    /// Arrived, waiting.
    Held {
        payload: T,
        deadline: Time,
        arrived: Time,
        arrival: u64,
    },
    /// Went up already (bypassed): the flush passes over it.
    Passed,
}

/// A PathID the destination has heard.
#[derive(Debug, Clone, Copy)]
struct LearnedPath {
    id: u8,
    last_seen: Time,
    /// Highest unwrapped PktID seen on it.
    highest: u64,
}

/// One flow's delayed-reordering buffer at its destination (see the module header).
#[derive(Debug, Clone)]
pub struct Reorder<T> {
    params: ReorderParams,
    delay: DelayEstimator,
    /// Lowest PktID (unwrapped) neither delivered nor declared lost.
    next: u64,
    /// Slot `i` is PktID `next + i`; the front is never a delivered slot after a flush.
    slots: VecDeque<Slot<T>>,
    /// How many slots are `Held`.
    held: u64,
    paths: Vec<LearnedPath>,
    arrivals: u64,
    stats: ReorderStats,
}

impl<T: Copy> Reorder<T> {
    /// An empty buffer waiting for PktID `params.first_id`.
    pub fn new(params: ReorderParams) -> Self {
        Reorder {
            params,
            delay: DelayEstimator::new(params.alpha, params.beta, params.d0),
            next: u64::from(params.first_id),
            slots: VecDeque::new(),
            held: 0,
            paths: Vec::new(),
            arrivals: 0,
            stats: ReorderStats::default(),
        }
    }

    /// A packet arrived at `now` (the destination's clock). What goes up, now, is appended to
    /// `out` in the order TCP must see it. Returns the arrival's serial number
    /// ([`Delivery::arrival`]).
    pub fn on_arrival(&mut self, now: Time, pkt: Incoming<T>, out: &mut Vec<Delivery<T>>) -> u64 {
        let serial = self.arrivals;
        self.arrivals += 1;
        self.stats.arrivals += 1;
        self.delay.sample(pkt.sent, clamp_i64(now));
        let offset = self.offset_of(pkt.id);
        let id = (self.next as i64).saturating_add(offset).max(0) as u64;
        self.expire_paths(now);
        self.learn_path(now, pkt.path, id);
        let small = pkt.ip_bytes < self.params.small_bytes;
        let kind = if small {
            Some(DeliveryKind::Bypassed)
        } else if offset < 0 {
            Some(DeliveryKind::Late)
        } else {
            None
        };
        match kind {
            Some(kind) => self.emit_now(pkt.payload, id, kind, serial, out),
            None => self.buffer(now, pkt, offset as usize, id, serial, out),
        }
        if small && offset >= 0 {
            // Its id counts as delivered: the flush must not wait for it.
            self.mark_passed(offset as usize);
        }
        self.flush(now, out);
        // After the flush: a packet that went straight through never waited.
        self.stats.max_buffered = self.stats.max_buffered.max(self.held);
        serial
    }

    /// The reorder timer expired at `now`: what goes up is appended to `out`.
    pub fn on_timer(&mut self, now: Time, out: &mut Vec<Delivery<T>>) {
        self.expire_paths(now);
        self.flush(now, out);
    }

    /// When the timer must fire: the smallest buffered id's deadline (`None`: nothing waits).
    pub fn deadline(&self) -> Option<Time> {
        self.first_held().map(|(_, deadline)| deadline)
    }

    /// The one-way delay mean A (skewed), ns; `None` before the first packet. The source's RTT
    /// estimate reads it (spec §2.7: `A_sd`).
    pub fn mean_delay(&self) -> Option<f64> {
        self.delay.mean()
    }

    /// The delay estimator.
    pub fn estimator(&self) -> &DelayEstimator {
        &self.delay
    }

    /// The lowest PktID (unwrapped) neither delivered nor declared lost.
    pub fn next(&self) -> u64 {
        self.next
    }

    /// Packets waiting.
    pub fn buffered(&self) -> u64 {
        self.held
    }

    /// PathIDs remembered now.
    pub fn learned_paths(&self) -> usize {
        self.paths.len()
    }

    /// The counters.
    pub fn stats(&self) -> &ReorderStats {
        &self.stats
    }

    /// Position of `id` relative to `next` by serial-number arithmetic: up to 32767 ahead is
    /// ahead, the rest behind.
    fn offset_of(&self, id: u16) -> i64 {
        i64::from(id.wrapping_sub(self.next as u16) as i16)
    }

    /// Puts a packet at or above `next` in its slot, or sends a duplicate up at once.
    fn buffer(
        &mut self,
        now: Time,
        pkt: Incoming<T>,
        offset: usize,
        id: u64,
        serial: u64,
        out: &mut Vec<Delivery<T>>,
    ) {
        if self.slots.len() <= offset {
            self.slots.resize(offset + 1, Slot::Empty);
        }
        if !matches!(self.slots[offset], Slot::Empty) {
            self.emit_now(pkt.payload, id, DeliveryKind::Duplicate, serial, out);
            return;
        }
        self.slots[offset] = Slot::Held {
            payload: pkt.payload,
            deadline: self.delay.deadline(pkt.sent),
            arrived: now,
            arrival: serial,
        };
        self.held += 1;
    }

    /// Marks a bypassed packet's id as delivered (unless that id is already buffered: then the
    /// buffered copy goes up in its turn and this one was a duplicate in all but name).
    fn mark_passed(&mut self, offset: usize) {
        if self.slots.len() <= offset {
            self.slots.resize(offset + 1, Slot::Empty);
        }
        if matches!(self.slots[offset], Slot::Empty) {
            self.slots[offset] = Slot::Passed;
        }
    }

    /// Sends a packet up that never entered the buffer, and counts it.
    fn emit_now(
        &mut self,
        payload: T,
        id: u64,
        kind: DeliveryKind,
        arrival: u64,
        out: &mut Vec<Delivery<T>>,
    ) {
        match kind {
            DeliveryKind::Late => self.stats.late += 1,
            DeliveryKind::Bypassed => self.stats.bypassed += 1,
            DeliveryKind::Duplicate => self.stats.duplicates += 1,
            DeliveryKind::InOrder | DeliveryKind::OutOfOrder => {}
        }
        out.push(Delivery {
            payload,
            id,
            kind,
            arrival,
        });
    }

    /// Releases what can go: runs at `next`, gaps declared lost, and the smallest buffered id
    /// past a gap once its deadline has passed; until a gap must be waited for.
    fn flush(&mut self, now: Time, out: &mut Vec<Delivery<T>>) {
        loop {
            self.release_run(now, out);
            if self.slots.is_empty() {
                return;
            }
            // The front is a gap.
            if self.gap_is_lost() {
                self.slots.pop_front();
                self.next += 1;
                self.stats.declared_lost += 1;
                continue;
            }
            match self.first_held() {
                Some((at, deadline)) if deadline <= now => self.skip_to(at, now, out),
                _ => return,
            }
        }
    }

    /// Delivers `next` and every consecutive id that is buffered or passed.
    fn release_run(&mut self, now: Time, out: &mut Vec<Delivery<T>>) {
        while let Some(&front) = self.slots.front() {
            match front {
                Slot::Empty => return,
                Slot::Passed => {}
                Slot::Held { .. } => self.release(front, DeliveryKind::InOrder, now, out),
            }
            self.slots.pop_front();
            self.next += 1;
        }
    }

    /// Skips the ids before slot `at` (a held packet whose deadline passed) and delivers it out
    /// of order.
    fn skip_to(&mut self, at: usize, now: Time, out: &mut Vec<Delivery<T>>) {
        for slot in self.slots.drain(..at) {
            if matches!(slot, Slot::Empty) {
                self.stats.skipped += 1;
            }
        }
        self.next += at as u64;
        if let Some(front) = self.slots.pop_front() {
            self.release(front, DeliveryKind::OutOfOrder, now, out);
            self.next += 1;
        }
    }

    /// Sends a buffered packet up and counts its wait.
    fn release(
        &mut self,
        slot: Slot<T>,
        kind: DeliveryKind,
        now: Time,
        out: &mut Vec<Delivery<T>>,
    ) {
        let Slot::Held {
            payload,
            arrived,
            arrival,
            ..
        } = slot
        else {
            return;
        };
        self.held = self.held.saturating_sub(1);
        match kind {
            DeliveryKind::OutOfOrder => self.stats.out_of_order += 1,
            _ => self.stats.in_order += 1,
        }
        let hold = now.saturating_sub(arrived);
        self.stats.hold_sum_ns = self.stats.hold_sum_ns.saturating_add(hold);
        self.stats.max_hold_ns = self.stats.max_hold_ns.max(hold);
        out.push(Delivery {
            payload,
            id: self.next,
            kind,
            arrival,
        });
    }

    /// The first held slot and its deadline.
    fn first_held(&self) -> Option<(usize, Time)> {
        self.slots.iter().enumerate().find_map(|(i, s)| match s {
            Slot::Held { deadline, .. } => Some((i, *deadline)),
            _ => None,
        })
    }

    /// §5.3.1: the gap at `next` is a loss once every remembered path has delivered a higher
    /// PktID, and (the guard, A13) once all the flow's paths are remembered.
    fn gap_is_lost(&self) -> bool {
        self.params.loss_detection
            && !self.paths.is_empty()
            && self.paths.len() >= self.params.n_paths
            && self.paths.iter().all(|p| p.highest > self.next)
    }

    /// Notes that PathID `path` delivered PktID `id` at `now`.
    fn learn_path(&mut self, now: Time, path: Option<u8>, id: u64) {
        let Some(path) = path else { return };
        match self.paths.iter_mut().find(|p| p.id == path) {
            Some(p) => {
                p.last_seen = now;
                p.highest = p.highest.max(id);
            }
            None => self.paths.push(LearnedPath {
                id: path,
                last_seen: now,
                highest: id,
            }),
        }
    }

    /// Forgets the paths not heard for `path_expiry`.
    fn expire_paths(&mut self, now: Time) {
        let expiry = self.params.path_expiry;
        self.paths
            .retain(|p| now.saturating_sub(p.last_seen) < expiry);
    }
}

/// `t` as a signed time (saturating: the simulator's clock never gets there).
fn clamp_i64(t: Time) -> i64 {
    i64::try_from(t).unwrap_or(i64::MAX)
}
