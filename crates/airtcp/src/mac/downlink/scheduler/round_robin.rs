//! Round-robin: backlogged users take the slots in turn, whatever their channel (the "classic
//! round-robin scheduler" of paper 002 §V-B, Fig. 6). A user with an empty queue is skipped; a
//! user in outage still gets its turn and the slot carries nothing, which is the price of being
//! channel-blind. With every queue backlogged each user gets 1/n of the slots, so its
//! throughput is 1/n of its mean rate.

use super::{Grant, Scheduler, UserView};

/// Round-robin over backlogged users.
#[derive(Debug, Clone, Default)]
pub struct RoundRobin {
    /// The user whose turn comes next.
    next: usize,
}

impl Scheduler for RoundRobin {
    fn name(&self) -> &'static str {
        "round_robin"
    }

    fn schedule(&mut self, _slot: u64, users: &[UserView], grants: &mut Vec<Grant>) {
        let n = users.len();
        let start = if n == 0 { 0 } else { self.next % n };
        if let Some(u) = (start..n)
            .chain(0..start)
            .find(|&i| users[i].is_backlogged())
        {
            grants.push(Grant::whole_slot(u));
            self.next = u + 1;
        }
    }
}
