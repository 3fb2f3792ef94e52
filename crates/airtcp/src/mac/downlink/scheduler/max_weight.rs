//! Queue-length MaxWeight: serve the user maximising queue length x instantaneous rate, the
//! scheduling step r(t) = argmax sum_l Q_l(t) r_l of the NUM schemes paper 002 §II-A compares
//! against (its ref. \[32\], Lin & Shroff 2006; Tassiulas & Ephremides 1992). For one user per
//! slot this is the argmax over users of Q_l R_l.
//!
//! Queue length is counted in bytes not yet sent, which for the papers' fixed-size packets is
//! proportional to packets (the argmax is the same).

use super::{best_user, Grant, Scheduler, UserView};

/// Largest queue x rate first.
#[derive(Debug, Clone, Copy, Default)]
pub struct MaxWeight;

impl Scheduler for MaxWeight {
    fn name(&self) -> &'static str {
        "max_weight"
    }

    fn schedule(&mut self, slot: u64, users: &[UserView], grants: &mut Vec<Grant>) {
        if let Some(u) = best_user(slot, users, |v| v.queued_bytes as f64 * v.rate_bits as f64) {
            grants.push(Grant::whole_slot(u));
        }
    }
}
