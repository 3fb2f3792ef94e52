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

use std::cmp::Ordering;
use std::collections::BinaryHeap;

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

struct Entry<E> {
    time: Time,
    class: EventClass,
    seq: u64,
    payload: E,
}

impl<E> Entry<E> {
    fn key(&self) -> (Time, EventClass, u64) {
        (self.time, self.class, self.seq)
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
        self.heap.len()
    }

    /// Events the list has room for without reallocating.
    pub fn capacity(&self) -> usize {
        self.heap.capacity()
    }

    /// Bytes one pending event takes.
    pub fn entry_bytes(&self) -> u64 {
        std::mem::size_of::<Entry<E>>() as u64
    }

    /// Whether nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Schedules `payload` at absolute time `time` (never in the past).
    pub fn schedule(&mut self, time: Time, class: EventClass, payload: E) {
        assert!(
            time >= self.now,
            "event scheduled in the past ({time} < {})",
            self.now
        );
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Entry {
            time,
            class,
            seq,
            payload,
        });
    }

    /// Time of the next event, if any.
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(|e| e.time)
    }

    /// Pending events in no particular order (for end-of-run accounting only).
    pub fn iter_pending(&self) -> impl Iterator<Item = &E> {
        self.heap.iter().map(|e| &e.payload)
    }

    /// Removes the next event and advances the clock to its time.
    pub fn pop(&mut self) -> Option<(Time, E)> {
        let e = self.heap.pop()?;
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

    #[test]
    #[should_panic(expected = "in the past")]
    fn refuses_the_past() {
        let mut q = EventQueue::new();
        q.schedule(10, EventClass::App, ());
        q.pop();
        q.schedule(9, EventClass::App, ());
    }
}
