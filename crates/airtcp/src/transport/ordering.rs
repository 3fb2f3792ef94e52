//! COPE's ordering agent (Katti, Rahul, Hu, Katabi, Médard & Crowcroft, "XORs in the air:
//! practical wireless network coding", SIGCOMM 2006 §5 and IEEE/ACM ToN 16(3), 2008, "preventing
//! packet reordering"): at a TCP flow's destination node, below TCP, it holds the flow's data
//! segments that arrive out of order and hands them up in order, so that the reordering COPE's
//! coding and its hop-by-hop retransmissions cause is not read by TCP as loss.
//!
//! As we read COPE's description, its agent looks only at TCP packets addressed to its own node
//! (others pass through it), keeps the last sequence number handed up and buffers later ones
//! until the gap fills or a timer gives up on it. [I]: that reading is not checked against the
//! paper's text here, and spec 001 (§2.2 item 9) says "at next hops"; the agent sits where the
//! packets are addressed. Here it is a shim on the seam (`transport::shim`, docs/shim.md) at the
//! destination end, which sees exactly those packets: TCP's data segments of one flow before
//! TCP's receiver does.
//!
//! - A segment at the next expected number goes up at once, followed by the buffered segments it
//!   makes consecutive.
//! - A segment above it is held. A segment below it (a duplicate, or one given up on and handed
//!   up late) goes up at once: TCP's receiver deals with it as without the agent.
//! - A held segment waits at most `hold` after its arrival; when the oldest one's time is up the
//!   agent gives up on the gap below it and hands up everything held up to it, then whatever
//!   follows consecutively.
//! - At most [`MAX_HELD`] segments are held; one more gives up on the lowest gap.
//!
//! The papers give no hold time; `hold` [I] defaults to 200 ms, twice COPE's ACK timeout Ta
//! (100 ms [I], docs/cope.md): a native lost to a coded frame is re-sent after Ta and then waits
//! its turn in the coder's queue, so a gap it causes closes within about 2 Ta. Segments only, not
//! ACKs: COPE's agent orders the packets addressed to it, and the ACKs of a TCP flow are addressed
//! to its source, where reordered ACKs cost TCP nothing but a late window update.

use std::collections::{BTreeMap, VecDeque};

use crate::metrics::results::ShimReport;
use crate::sim::header::tcp::DataHeader;
use crate::sim::Time;
use crate::transport::shim::{Arrival, Shim, ShimIo, ShimTimer, Verdict};

/// The agent's one timer: the oldest held segment's hold expires.
pub const HOLD_TIMER: ShimTimer = 0;

/// The most segments held at once (far above the windows of paper 001's flows).
pub const MAX_HELD: usize = 1024;

/// The agent's counters, in the flow's results under `"ordering"`.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct OrderingStats {
    /// Segments that arrived above the next expected one and were held.
    pub held: u64,
    /// Held segments handed up once the gap below them filled.
    pub released_in_order: u64,
    /// Held segments handed up when the agent gave up on a gap (their hold expired, or the
    /// buffer was full).
    pub released_on_timeout: u64,
    /// Segments that arrived below the next expected one (duplicates, or late after a give-up),
    /// handed up at once.
    pub late: u64,
    /// The most segments held at once.
    pub max_held: u64,
}

/// One TCP flow's ordering agent.
#[derive(Debug, Clone)]
pub struct OrderingAgent {
    hold: Time,
    /// The next sequence number (segment) TCP's receiver is to get.
    next: u64,
    /// Held segments by sequence number.
    held: BTreeMap<u64, DataHeader>,
    /// The held segments' numbers in arrival order, with their deadlines (arrival + hold):
    /// arrivals come in time order, so the front is the next to expire. Entries of segments
    /// already handed up are dropped when they reach the front.
    deadlines: VecDeque<(Time, u64)>,
    /// The deadline the seam's timer is armed for.
    armed: Option<Time>,
    stats: OrderingStats,
}

impl OrderingAgent {
    /// An agent holding an out-of-order segment at most `hold`.
    pub fn new(hold: Time) -> Self {
        OrderingAgent {
            hold,
            next: 0,
            held: BTreeMap::new(),
            deadlines: VecDeque::new(),
            armed: None,
            stats: OrderingStats::default(),
        }
    }

    /// The counters.
    pub fn stats(&self) -> &OrderingStats {
        &self.stats
    }

    /// Segments held now.
    pub fn held(&self) -> usize {
        self.held.len()
    }

    /// Hands up the held segments from `next` on while they are consecutive.
    fn release_consecutive(&mut self, io: &mut dyn ShimIo) {
        while let Some(seg) = self.held.remove(&self.next) {
            self.stats.released_in_order += 1;
            self.next = seg.seq + 1;
            io.deliver(seg);
        }
    }

    /// Gives up on the gap below held segment `upto`: hands up every held segment up to it, in
    /// order, then what follows consecutively.
    fn give_up_to(&mut self, upto: u64, io: &mut dyn ShimIo) {
        while let Some(entry) = self.held.first_entry() {
            if *entry.key() > upto {
                break;
            }
            let seg = entry.remove();
            self.stats.released_on_timeout += 1;
            self.next = seg.seq + 1;
            io.deliver(seg);
        }
        self.release_consecutive(io);
    }

    /// The deadline of the held segment that arrived first, and its number.
    fn oldest(&mut self) -> Option<(Time, u64)> {
        while let Some(&(deadline, seq)) = self.deadlines.front() {
            if self.held.contains_key(&seq) {
                return Some((deadline, seq));
            }
            self.deadlines.pop_front();
        }
        None
    }

    fn arm(&mut self, io: &mut dyn ShimIo) {
        let deadline = self.oldest().map(|(at, _)| at);
        if deadline != self.armed {
            self.armed = deadline;
            io.set_timer(HOLD_TIMER, deadline);
        }
    }
}

impl Shim for OrderingAgent {
    fn name(&self) -> &'static str {
        "ordering"
    }

    fn timers(&self) -> usize {
        1
    }

    fn sees_arrivals(&self) -> bool {
        true
    }

    fn on_arriving_segment(
        &mut self,
        segment: &DataHeader,
        _arrival: Arrival,
        io: &mut dyn ShimIo,
    ) -> Verdict {
        let seq = segment.seq;
        if seq < self.next {
            self.stats.late += 1;
            return Verdict::Pass;
        }
        if seq > self.next {
            // A duplicate keeps the first copy's arrival: its hold runs from then.
            if let std::collections::btree_map::Entry::Vacant(e) = self.held.entry(seq) {
                e.insert(*segment);
                self.deadlines
                    .push_back((io.now().saturating_add(self.hold), seq));
                self.stats.held += 1;
            }
            self.stats.max_held = self.stats.max_held.max(self.held.len() as u64);
            if self.held.len() > MAX_HELD {
                let lowest = *self.held.keys().next().expect("held is not empty");
                self.give_up_to(lowest, io);
            }
            self.arm(io);
            return Verdict::Consumed;
        }
        self.next = seq + 1;
        if !self.held.contains_key(&self.next) {
            // The common case: in order, nothing held behind it; it goes up on TCP's own path.
            return Verdict::Pass;
        }
        io.deliver(*segment);
        self.release_consecutive(io);
        self.arm(io);
        Verdict::Consumed
    }

    fn on_timer(&mut self, _timer: ShimTimer, io: &mut dyn ShimIo) {
        // The seam's lazy timer may fire for a deadline since moved: only what is due goes.
        self.armed = None;
        let now = io.now();
        while let Some((deadline, seq)) = self.oldest() {
            if deadline > now {
                break;
            }
            self.give_up_to(seq, io);
        }
        self.arm(io);
    }

    fn report(&self) -> Option<ShimReport> {
        Some(ShimReport::new("ordering", &self.stats))
    }
}

#[cfg(test)]
mod tests {
    //! The agent against a recording io, as a trace: what arrives, what goes up, when.

    use super::*;
    use crate::sim::header::tcp::AckHeader;
    use crate::sim::time::MILLIS;
    use crate::transport::shim::{End, SenderTiming, ShimHeader};

    #[derive(Default)]
    struct Rec {
        now: Time,
        up: Vec<u64>,
        timer: Option<Time>,
    }

    impl ShimIo for Rec {
        fn now(&self) -> Time {
            self.now
        }
        fn send(&mut self, _from: End, _size: u32, _header: ShimHeader) {
            unreachable!("the agent sends nothing");
        }
        fn set_timer(&mut self, _timer: ShimTimer, deadline: Option<Time>) {
            self.timer = deadline;
        }
        fn deliver(&mut self, segment: DataHeader) {
            self.up.push(segment.seq);
        }
        fn replay_ack(&mut self, _ack: AckHeader) {
            unreachable!("the agent replays nothing");
        }
        fn sender_timing(&self) -> Option<SenderTiming> {
            None
        }
    }

    fn seg(seq: u64) -> DataHeader {
        DataHeader {
            seq,
            len: 1000,
            last: false,
            retransmission: false,
        }
    }

    const ARRIVAL: Arrival = Arrival {
        size: 1040,
        path: crate::net::flow_paths::NO_PATH,
        created: 0,
        layer_seq: 0,
    };

    /// Segment `seq` arrives at `at` ms: what TCP's receiver gets, in order (a `Pass` is the
    /// segment itself, after anything delivered during the call).
    fn arrive(agent: &mut OrderingAgent, io: &mut Rec, at: u64, seq: u64) {
        io.now = at * MILLIS;
        if agent.on_arriving_segment(&seg(seq), ARRIVAL, io) == Verdict::Pass {
            io.up.push(seq);
        }
    }

    /// The seam's timer fires at `at` ms (it is disarmed by firing).
    fn fire(agent: &mut OrderingAgent, io: &mut Rec, at: u64) {
        io.now = at * MILLIS;
        io.timer = None;
        agent.on_timer(HOLD_TIMER, io);
    }

    #[test]
    fn a_segment_overtaken_by_a_coded_frame_is_put_back_in_order() {
        // 0 and 1 arrive; 2 is re-sent by its coder and overtaken by 3 and 4: the agent holds 3
        // and 4 until 2 arrives, then hands up 2, 3, 4.
        let mut agent = OrderingAgent::new(200 * MILLIS);
        let mut io = Rec::default();
        arrive(&mut agent, &mut io, 0, 0);
        arrive(&mut agent, &mut io, 10, 1);
        arrive(&mut agent, &mut io, 20, 3);
        arrive(&mut agent, &mut io, 30, 4);
        assert_eq!(io.up, [0, 1]);
        assert_eq!(io.timer, Some(220 * MILLIS), "3's hold");
        arrive(&mut agent, &mut io, 120, 2);
        assert_eq!(io.up, [0, 1, 2, 3, 4]);
        assert_eq!(io.timer, None);
        let s = agent.stats();
        assert_eq!(
            (s.held, s.released_in_order, s.released_on_timeout),
            (2, 2, 0)
        );
        assert_eq!(s.max_held, 2);
    }

    #[test]
    fn a_gap_that_does_not_fill_within_the_hold_is_given_up() {
        // 1 is lost for good: 2 and 3 wait 200 ms from 2's arrival, then go up; 1's late copy
        // (TCP's retransmission) passes straight up, and so does 4.
        let mut agent = OrderingAgent::new(200 * MILLIS);
        let mut io = Rec::default();
        arrive(&mut agent, &mut io, 0, 0);
        arrive(&mut agent, &mut io, 10, 2);
        arrive(&mut agent, &mut io, 50, 3);
        assert_eq!(io.up, [0]);
        fire(&mut agent, &mut io, 210);
        assert_eq!(io.up, [0, 2, 3]);
        assert_eq!(io.timer, None);
        arrive(&mut agent, &mut io, 400, 1);
        arrive(&mut agent, &mut io, 410, 4);
        assert_eq!(io.up, [0, 2, 3, 1, 4]);
        // 2 was given up on; 3 then followed it in order.
        let s = agent.stats();
        assert_eq!(
            (s.released_on_timeout, s.released_in_order, s.late),
            (1, 1, 1)
        );
    }

    #[test]
    fn an_early_timer_releases_nothing_before_its_time() {
        let mut agent = OrderingAgent::new(200 * MILLIS);
        let mut io = Rec::default();
        arrive(&mut agent, &mut io, 0, 1);
        fire(&mut agent, &mut io, 150);
        assert!(io.up.is_empty());
        assert_eq!(io.timer, Some(200 * MILLIS));
    }

    #[test]
    fn a_full_buffer_gives_up_on_the_lowest_gap() {
        let mut agent = OrderingAgent::new(200 * MILLIS);
        let mut io = Rec::default();
        for seq in 1..=MAX_HELD as u64 + 1 {
            arrive(&mut agent, &mut io, 0, seq);
        }
        // Segment 0 never came; the 1025th held segment makes the agent give up on it.
        assert_eq!(io.up, (1..=MAX_HELD as u64 + 1).collect::<Vec<_>>());
        assert_eq!(agent.held(), 0);
    }

    #[test]
    fn duplicates_are_held_once() {
        let mut agent = OrderingAgent::new(200 * MILLIS);
        let mut io = Rec::default();
        arrive(&mut agent, &mut io, 0, 2);
        arrive(&mut agent, &mut io, 5, 2);
        arrive(&mut agent, &mut io, 10, 0);
        arrive(&mut agent, &mut io, 20, 1);
        assert_eq!(io.up, [0, 1, 2]);
        assert_eq!(agent.stats().held, 1);
    }
}
