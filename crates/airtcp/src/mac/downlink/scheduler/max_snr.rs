//! Max-SNR: the backlogged user with the highest instantaneous SNR gets the slot ("a max-SNR
//! scheduler which simply selects the wireless link with highest SNR per slot", paper 002
//! §V-B). Since the AMC rate never falls as the SNR rises, this is also the highest
//! instantaneous rate; it maximises the cell's throughput and starves users with poor mean
//! SNR. Users in outage are skipped.

use super::{best_user, Grant, Scheduler, UserView};

/// Highest instantaneous SNR first.
#[derive(Debug, Clone, Copy, Default)]
pub struct MaxSnr;

impl Scheduler for MaxSnr {
    fn name(&self) -> &'static str {
        "max_snr"
    }

    fn schedule(&mut self, slot: u64, users: &[UserView], grants: &mut Vec<Grant>) {
        if let Some(u) = best_user(slot, users, |v| v.snr) {
            grants.push(Grant::whole_slot(u));
        }
    }
}
