//! Queueing-delay MaxWeight, paper 002 eq. (10):
//!
//! ```text
//! r*[n] = argmax_{r in R(h[n])} sum_l (QueLEN_l[n] / AveR_l[n]) r_l,
//! ```
//!
//! which for a time-division downlink "is just to select the link with the highest
//! QueLEN_l\[n\] / AveR_l\[n\] x R_l\[n\]" (§III). QueLEN / AveR is a Little's-law estimate of the
//! queueing delay, so this is MaxWeight with delays in place of queue lengths (§III-A).
//!
//! Interpretation (the paper does not spell these out):
//! - AveR_l is the user's average *throughput*, bits actually sent per slot with unserved slots
//!   counting 0, averaged "using a similar low-pass filter as with (8)" (weight 1/256 on the
//!   newest slot; the window is configurable). Little's law needs the departure rate, hence
//!   throughput rather than the average achievable rate.
//! - QueLEN_l is counted in bytes not yet sent (proportional to packets for the paper's fixed
//!   200-byte packets).
//! - AveR below 1 bit per slot counts as 1 bit ([`super::MIN_AVERAGE_BITS`]), so a user not yet
//!   served has a large finite weight instead of a division by zero.

use super::{best_user, Grant, Scheduler, UserView, MIN_AVERAGE_BITS};

/// Largest (queue / average throughput) x rate first.
#[derive(Debug, Clone, Copy, Default)]
pub struct DelayMaxWeight;

impl Scheduler for DelayMaxWeight {
    fn name(&self) -> &'static str {
        "delay_max_weight"
    }

    fn schedule(&mut self, slot: u64, users: &[UserView], grants: &mut Vec<Grant>) {
        let weight = |v: &UserView| {
            v.queued_bytes as f64 / v.avg_throughput.max(MIN_AVERAGE_BITS) * v.rate_bits as f64
        };
        if let Some(u) = best_user(slot, users, weight) {
            grants.push(Grant::whole_slot(u));
        }
    }
}
