//! The future event list.
//!
//! Events are ordered by the key `(time, class, seq)`:
//! - `time`: when the event happens (ns);
//! - `class`: among events at the same nanosecond, lower classes run first (see [`EventClass`]);
//! - `seq`: insertion order, so that events of one class at one time run first-in first-out.
//!
//! The key is unique (seq never repeats), so the order is total and runs are deterministic.
//! The heap stores small `Copy` payloads; once it has grown to its working size, scheduling
//! allocates nothing.
//!
//! **Lanes.** Most pending events of a wired run are packets propagating along links, and a
//! link delivers them in the order it sent them. Such events go into the link's *lane*
//! ([`EventQueue::schedule_in_lane`]): a FIFO of which only the head sits in the heap; popping
//! the head moves the next one in. The heap then holds about one event per busy link instead of
//! one per packet in flight (thousands on long fat links), and its pops, which were 40 % of a
//! 30-flow run, touch a few cache lines. Keys are given out when an event is scheduled, in a lane
//! or not, so the order of events is exactly the one without lanes. An event whose key is below
//! its lane's last one (never for a link) goes into the heap by itself.

use std::cmp::Ordering;
use std::collections::binary_heap::PeekMut;
use std::collections::{BinaryHeap, VecDeque};

use super::time::Time;

/// Tie-break classes, in the order they run at one instant.
///
/// 1. `Arrival` — packets reaching the far end of a link: what arrives at `t` is seen by
///    everything else that happens at `t` (an ACK arriving when the RTO fires cancels it).
/// 2. `Transmit` — a transmitter finishing a packet and taking the next one.
/// 3. `Timer` — protocol timers (RTO, delayed ACK).
/// 4. `App` — application starts, stops and constant-rate ticks.
/// 5. `Sample` — periodic observers, which see the state after everything else at `t`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum EventClass {
    /// Packet arrivals.
    Arrival = 0,
    /// Transmitter completions.
    Transmit = 1,
    /// Protocol timers.
    Timer = 2,
    /// Application events.
    App = 3,
    /// Observers.
    Sample = 4,
}

/// The lane of an event that is in none.
const NO_LANE: u32 = u32::MAX;

/// `seq` takes the low 61 bits of an entry's `order`, the class the top 3: comparing
/// `(time, order)` compares `(time, class, seq)` with two integer comparisons.
const CLASS_SHIFT: u32 = 61;

/// An event's place in the order: `(time, class << 61 | seq)`.
type Key = (Time, u64);

struct Entry<E> {
    time: Time,
    /// The class and the sequence number (`CLASS_SHIFT`).
    order: u64,
    /// The lane whose head this is (`NO_LANE`: none).
    lane: u32,
    payload: E,
}

/// A lane: its events after the head, in key order.
struct Lane<E> {
    waiting: VecDeque<Entry<E>>,
    /// Whether the lane's head is in the heap.
    head_in_heap: bool,
    /// The key of the lane's last event.
    last: Key,
}

impl<E> Entry<E> {
    fn key(&self) -> Key {
        (self.time, self.order)
    }
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    // Reversed: BinaryHeap is a max-heap and we want the smallest key first.
    fn cmp(&self, other: &Self) -> Ordering {
        other.key().cmp(&self.key())
    }
}

/// A priority queue of events keyed by `(time, class, seq)`.
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    lanes: Vec<Lane<E>>,
    /// Events waiting in lanes behind their heads.
    waiting: usize,
    next_seq: u64,
    now: Time,
    popped: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    /// An empty queue at time 0.
    pub fn new() -> Self {
        EventQueue {
            heap: BinaryHeap::with_capacity(1024),
            lanes: Vec::new(),
            waiting: 0,
            next_seq: 0,
            now: 0,
            popped: 0,
        }
    }

    /// Current simulated time: the time of the last event popped.
    pub fn now(&self) -> Time {
        self.now
    }

    /// Events popped so far.
    pub fn events_processed(&self) -> u64 {
        self.popped
    }

    /// Events still pending.
    pub fn len(&self) -> usize {
        self.heap.len() + self.waiting
    }

    /// Events the list has room for without reallocating.
    pub fn capacity(&self) -> usize {
        let lanes: usize = self.lanes.iter().map(|l| l.waiting.capacity()).sum();
        self.heap.capacity() + lanes
    }

    /// Bytes one pending event takes.
    pub fn entry_bytes(&self) -> u64 {
        std::mem::size_of::<Entry<E>>() as u64
    }

    /// Whether nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// The key of the next event scheduled at `time` in `class` (never in the past).
    fn key(&mut self, time: Time, class: EventClass) -> Key {
        assert!(
            time >= self.now,
            "event scheduled in the past ({time} < {})",
            self.now
        );
        let seq = self.next_seq;
        self.next_seq += 1;
        (time, (class as u64) << CLASS_SHIFT | seq)
    }

    /// Schedules `payload` at absolute time `time` (never in the past).
    pub fn schedule(&mut self, time: Time, class: EventClass, payload: E) {
        let key = self.key(time, class);
        self.push_alone(key, payload);
    }

    /// Schedules `payload` like [`EventQueue::schedule`], behind the earlier events of `lane`
    /// (lanes are numbered from 0 by the caller, e.g. a link's id): the order of events is the
    /// same; only the heap is smaller.
    pub fn schedule_in_lane(&mut self, lane: u32, time: Time, class: EventClass, payload: E) {
        let key = self.key(time, class);
        let l = lane as usize;
        if lane == NO_LANE {
            return self.push_alone(key, payload);
        }
        if l >= self.lanes.len() {
            self.lanes.resize_with(l + 1, || Lane {
                waiting: VecDeque::new(),
                head_in_heap: false,
                last: (0, 0),
            });
        }
        let entry = Entry {
            time,
            order: key.1,
            lane,
            payload,
        };
        let slot = &mut self.lanes[l];
        if !slot.head_in_heap {
            slot.head_in_heap = true;
            slot.last = key;
            self.heap.push(entry);
        } else if key > slot.last {
            slot.last = key;
            slot.waiting.push_back(entry);
            self.waiting += 1;
        } else {
            self.push_alone(key, entry.payload);
        }
    }

    fn push_alone(&mut self, (time, order): Key, payload: E) {
        self.heap.push(Entry {
            time,
            order,
            lane: NO_LANE,
            payload,
        });
    }

    /// Time of the next event, if any.
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(|e| e.time)
    }

    /// Pending events in no particular order (for end-of-run accounting only).
    pub fn iter_pending(&self) -> impl Iterator<Item = &E> {
        let waiting = self.lanes.iter().flat_map(|l| l.waiting.iter());
        self.heap.iter().chain(waiting).map(|e| &e.payload)
    }

    /// Removes the next event and advances the clock to its time.
    pub fn pop(&mut self) -> Option<(Time, E)> {
        let mut top = self.heap.peek_mut()?;
        let next = match self.lanes.get_mut(top.lane as usize) {
            Some(lane) => {
                let next = lane.waiting.pop_front();
                lane.head_in_heap = next.is_some();
                next
            }
            None => None,
        };
        let e = match next {
            // The lane's next event takes the head's place: one sift instead of two.
            Some(next) => {
                self.waiting -= 1;
                std::mem::replace(&mut *top, next)
            }
            None => PeekMut::pop(top),
        };
        debug_assert!(e.time >= self.now, "time moved backwards");
        self.now = e.time;
        self.popped += 1;
        Some((e.time, e.payload))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_by_time_then_class_then_insertion() {
        let mut q = EventQueue::new();
        q.schedule(10, EventClass::Timer, "timer@10");
        q.schedule(10, EventClass::Arrival, "arrival@10 first");
        q.schedule(5, EventClass::Sample, "sample@5");
        q.schedule(10, EventClass::Arrival, "arrival@10 second");
        q.schedule(10, EventClass::Transmit, "tx@10");
        let order: Vec<_> = std::iter::from_fn(|| q.pop().map(|(_, p)| p)).collect();
        assert_eq!(
            order,
            [
                "sample@5",
                "arrival@10 first",
                "arrival@10 second",
                "tx@10",
                "timer@10"
            ]
        );
        assert_eq!(q.now(), 10);
        assert_eq!(q.events_processed(), 5);
    }

    /// Pops everything, with the times.
    fn drain<E>(q: &mut EventQueue<E>) -> Vec<(Time, E)> {
        std::iter::from_fn(|| q.pop()).collect()
    }

    #[test]
    fn a_lane_keeps_the_order_of_the_heap_and_counts_its_waiting_events() {
        let mut q = EventQueue::new();
        q.schedule_in_lane(0, 10, EventClass::Arrival, "lane 0 @10");
        q.schedule_in_lane(0, 10, EventClass::Arrival, "lane 0 @10 again");
        q.schedule_in_lane(0, 30, EventClass::Arrival, "lane 0 @30");
        q.schedule(10, EventClass::Arrival, "alone @10");
        q.schedule_in_lane(3, 20, EventClass::Arrival, "lane 3 @20");
        // Below its lane's last key: goes into the heap by itself.
        q.schedule_in_lane(0, 15, EventClass::Arrival, "lane 0 @15");
        assert_eq!(q.len(), 6);
        assert_eq!(q.iter_pending().count(), 6);
        let order: Vec<_> = drain(&mut q).into_iter().map(|(_, p)| p).collect();
        assert_eq!(
            order,
            [
                "lane 0 @10",
                "lane 0 @10 again",
                "alone @10",
                "lane 0 @15",
                "lane 3 @20",
                "lane 0 @30"
            ]
        );
        assert_eq!(
            (q.is_empty(), q.len(), q.iter_pending().count()),
            (true, 0, 0)
        );
        // An emptied lane takes events again.
        q.schedule_in_lane(0, 40, EventClass::Arrival, "lane 0 @40");
        assert_eq!(q.pop(), Some((40, "lane 0 @40")));
    }

    proptest::proptest! {
        /// Any mix of lane and heap events, scheduled while popping, comes out in exactly the
        /// order of the same events all in the heap.
        #[test]
        fn lanes_never_change_the_order_of_events(
            ops in proptest::collection::vec((0u32..4, 0u64..50, 0u8..3, proptest::bool::ANY), 1..200)
        ) {
            let mut plain = EventQueue::new();
            let mut laned = EventQueue::new();
            let mut out = (Vec::new(), Vec::new());
            for (i, &(lane, dt, class, pop)) in ops.iter().enumerate() {
                let class = [EventClass::Arrival, EventClass::Transmit, EventClass::Timer][class as usize];
                let time = plain.now() + dt;
                plain.schedule(time, class, i);
                if lane == 3 {
                    laned.schedule(time, class, i);
                } else {
                    laned.schedule_in_lane(lane, time, class, i);
                }
                proptest::prop_assert_eq!(plain.len(), laned.len());
                if pop {
                    out.0.push(plain.pop());
                    out.1.push(laned.pop());
                }
            }
            out.0.extend(drain(&mut plain).into_iter().map(Some));
            out.1.extend(drain(&mut laned).into_iter().map(Some));
            proptest::prop_assert_eq!(out.0, out.1);
        }
    }

    #[test]
    #[should_panic(expected = "in the past")]
    fn refuses_the_past() {
        let mut q = EventQueue::new();
        q.schedule(10, EventClass::App, ());
        q.pop();
        q.schedule(9, EventClass::App, ());
    }
}
