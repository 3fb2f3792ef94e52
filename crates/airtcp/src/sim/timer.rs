//! Cancellable timers with lazy cancellation.
//!
//! A protocol keeps one logical deadline per timer and moves it often (TCP restarts its RTO on
//! every ACK). Pushing a heap event for every move would fill the event list with dead entries,
//! so the timer keeps at most one *live* event:
//! - moving the deadline later leaves the live event alone; when it fires early it re-arms itself
//!   at the current deadline;
//! - moving it earlier schedules a new live event (the old one becomes stale: its generation no
//!   longer matches and it is ignored when popped);
//! - cancelling only clears the deadline.

use super::time::Time;

/// What the owner must do when the timer's event fires.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimerFire {
    /// Stale or cancelled: nothing to do.
    Ignore,
    /// The deadline moved later: schedule a new event at `.0` carrying generation `.1`.
    Reschedule(Time, u32),
    /// The deadline is reached: run the timeout handler.
    Expired,
}

/// One logical timer.
#[derive(Debug, Clone, Default)]
pub struct LazyTimer {
    deadline: Option<Time>,
    live: Option<(Time, u32)>,
    generation: u32,
}

impl LazyTimer {
    /// The current deadline, if armed.
    pub fn deadline(&self) -> Option<Time> {
        self.deadline
    }

    /// Sets (`Some`) or cancels (`None`) the deadline. Returns `Some((time, generation))` when the
    /// caller must schedule an engine event.
    #[must_use]
    pub fn set(&mut self, deadline: Option<Time>) -> Option<(Time, u32)> {
        self.deadline = deadline;
        let t = deadline?;
        match self.live {
            Some((live_t, _)) if live_t <= t => None,
            _ => {
                self.generation = self.generation.wrapping_add(1);
                self.live = Some((t, self.generation));
                self.live
            }
        }
    }

    /// Called when an event of this timer with generation `generation` pops at `now`.
    #[must_use]
    pub fn on_event(&mut self, now: Time, generation: u32) -> TimerFire {
        match self.live {
            Some((_, g)) if g == generation => {}
            _ => return TimerFire::Ignore,
        }
        self.live = None;
        match self.deadline {
            None => TimerFire::Ignore,
            Some(t) if t > now => {
                self.generation = self.generation.wrapping_add(1);
                self.live = Some((t, self.generation));
                TimerFire::Reschedule(t, self.generation)
            }
            Some(_) => {
                self.deadline = None;
                TimerFire::Expired
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn later_deadline_reuses_live_event() {
        let mut t = LazyTimer::default();
        let (at, g) = t.set(Some(100)).unwrap();
        assert_eq!(at, 100);
        assert_eq!(t.set(Some(150)), None);
        assert_eq!(t.on_event(100, g), TimerFire::Reschedule(150, g + 1));
        assert_eq!(t.on_event(150, g + 1), TimerFire::Expired);
        assert_eq!(t.deadline(), None);
    }

    #[test]
    fn earlier_deadline_makes_old_event_stale() {
        let mut t = LazyTimer::default();
        let (_, g1) = t.set(Some(100)).unwrap();
        let (at, g2) = t.set(Some(50)).unwrap();
        assert_eq!(at, 50);
        assert_eq!(t.on_event(50, g2), TimerFire::Expired);
        assert_eq!(t.on_event(100, g1), TimerFire::Ignore);
    }

    #[test]
    fn cancel_then_fire_is_ignored() {
        let mut t = LazyTimer::default();
        let (_, g) = t.set(Some(100)).unwrap();
        assert_eq!(t.set(None), None);
        assert_eq!(t.on_event(100, g), TimerFire::Ignore);
        // Re-arming after the stale event was consumed schedules again.
        assert!(t.set(Some(200)).is_some());
    }
}
