//! M-LWDF, modified largest weighted delay first (M. Andrews, K. Kumaran, K. Ramanan,
//! A. Stolyar, P. Whiting & R. Vijayakumar, "Providing quality of service over a shared
//! wireless link", IEEE Commun. Mag. 39(2), 2001): serve the user maximising
//! gamma_j W_j(t) r_j(t), W_j the head-of-line packet's waiting time and r_j the instantaneous
//! rate, with their suggested gamma_j = a_j / rbar_j (rbar_j the average throughput) and equal
//! a_j for all users.
//!
//! Paper 002 calls its eq. (10) "a modified largest-weighted-delay-first (M-LWDF) strategy";
//! eq. (10) itself uses queue length / average rate as the delay (see
//! [`super::delay_max_weight`]), this is the head-of-line form for comparison.
//! The average throughput is floored at [`super::MIN_AVERAGE_BITS`] as there. A packet that
//! arrived at the very slot boundary has zero wait; the slot still goes to the best candidate,
//! so the scheduler is work conserving.

use super::{best_user, Grant, Scheduler, UserView, MIN_AVERAGE_BITS};

/// Largest head-of-line delay x rate / average throughput first.
#[derive(Debug, Clone, Copy, Default)]
pub struct Mlwdf;

impl Scheduler for Mlwdf {
    fn name(&self) -> &'static str {
        "mlwdf"
    }

    fn schedule(&mut self, slot: u64, users: &[UserView], grants: &mut Vec<Grant>) {
        let weight = |v: &UserView| {
            v.hol_wait as f64 * v.rate_bits as f64 / v.avg_throughput.max(MIN_AVERAGE_BITS)
        };
        if let Some(u) = best_user(slot, users, weight) {
            grants.push(Grant::whole_slot(u));
        }
    }
}
