//! Slot schedulers: at the start of every slot the base station shows the scheduler what it
//! knows of each user ([`UserView`]) and the scheduler returns grants ([`Grant`]): which users
//! are served and what share of the slot's resources each gets. A user granted share s can
//! receive floor(s x rate_bits) bits in the slot, rate_bits being what the whole slot would
//! carry at its current AMC mode.
//!
//! The papers' downlinks serve one user per slot (TDMA); their schedulers return a single
//! `Grant::whole_slot(user)`. The list form leaves room for schedulers that split a slot
//! between users (OFDMA-like); shares must be positive and sum to at most 1.
//!
//! Conventions shared by the schedulers here:
//! - only backlogged users (a packet queued) are candidates;
//! - channel-aware schedulers skip users in outage (rate 0), since a slot granted to them
//!   carries nothing; round-robin is channel-blind and does grant them their turn;
//! - ties go to the first candidate counting from user `slot mod n`, so no user is favoured by
//!   its index.

pub mod delay_max_weight;
pub mod max_snr;
pub mod max_weight;
pub mod mlwdf;
pub mod round_robin;

pub use delay_max_weight::DelayMaxWeight;
pub use max_snr::MaxSnr;
pub use max_weight::MaxWeight;
pub use mlwdf::Mlwdf;
pub use round_robin::RoundRobin;

use super::config::SchedulerConfig;
use crate::sim::Time;

/// What the scheduler knows of one user at the start of a slot.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct UserView {
    /// Instantaneous SNR, linear (mean SNR x fading power gain).
    pub snr: f64,
    /// Bits the user could receive if given the whole slot at its current AMC mode (0 in
    /// outage).
    pub rate_bits: u64,
    /// Packets queued for the user.
    pub queued_packets: usize,
    /// Bytes queued for the user and not yet sent.
    pub queued_bytes: u64,
    /// How long the user's head-of-line packet has waited, ns (0 when the queue is empty).
    pub hol_wait: Time,
    /// Exponentially weighted average of the bits sent to the user per slot, counting slots it
    /// was not served as 0 (window set by the configuration).
    pub avg_throughput: f64,
}

impl UserView {
    /// Whether the user has something queued.
    pub fn is_backlogged(&self) -> bool {
        self.queued_packets > 0
    }
}

/// A share of one slot given to one user.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Grant {
    /// The user (index into the views).
    pub user: usize,
    /// Fraction of the slot's resources, in (0, 1].
    pub share: f64,
}

impl Grant {
    /// The whole slot to `user` (TDMA).
    pub fn whole_slot(user: usize) -> Grant {
        Grant { user, share: 1.0 }
    }
}

/// A slot scheduler. Object safe: the downlink holds a `Box<dyn Scheduler>`.
pub trait Scheduler: std::fmt::Debug {
    /// Short stable name (the configuration's `kind`).
    fn name(&self) -> &'static str;
    /// Decides slot number `slot` (0, 1, 2, ... in order): pushes its grants onto `grants`,
    /// which the caller has emptied. No grant leaves the slot idle.
    fn schedule(&mut self, slot: u64, users: &[UserView], grants: &mut Vec<Grant>);
}

/// The scheduler a configuration selects.
pub fn from_config(cfg: SchedulerConfig) -> Box<dyn Scheduler> {
    match cfg {
        SchedulerConfig::RoundRobin => Box::new(RoundRobin::default()),
        SchedulerConfig::MaxSnr => Box::new(MaxSnr),
        SchedulerConfig::MaxWeight => Box::new(MaxWeight),
        SchedulerConfig::DelayMaxWeight => Box::new(DelayMaxWeight),
        SchedulerConfig::Mlwdf => Box::new(Mlwdf),
    }
}

/// Average throughputs below this many bits per slot count as this much in the weights that
/// divide by them, so a user never served yet gets a large but finite weight.
pub const MIN_AVERAGE_BITS: f64 = 1.0;

/// The backlogged user with positive rate and the largest `weight`, ties going to the first
/// in the order slot mod n, slot mod n + 1, ...; `None` when no user qualifies.
pub fn best_user(
    slot: u64,
    users: &[UserView],
    weight: impl Fn(&UserView) -> f64,
) -> Option<usize> {
    let n = users.len();
    if n == 0 {
        return None;
    }
    let start = (slot % n as u64) as usize;
    let mut best: Option<(usize, f64)> = None;
    for i in (start..n).chain(0..start) {
        let u = &users[i];
        if !u.is_backlogged() || u.rate_bits == 0 {
            continue;
        }
        let w = weight(u);
        let better = match best {
            None => true,
            Some((_, bw)) => w > bw,
        };
        if better {
            best = Some((i, w));
        }
    }
    best.map(|(i, _)| i)
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A backlogged user with the given rate and queue.
    pub(in crate::mac::downlink) fn view(rate_bits: u64, queued_bytes: u64) -> UserView {
        UserView {
            snr: rate_bits as f64,
            rate_bits,
            queued_packets: queued_bytes.div_ceil(200) as usize,
            queued_bytes,
            hol_wait: 0,
            avg_throughput: 0.0,
        }
    }

    fn pick(s: &mut dyn Scheduler, slot: u64, users: &[UserView]) -> Option<usize> {
        let mut g = Vec::new();
        s.schedule(slot, users, &mut g);
        assert!(g.len() <= 1);
        g.first().map(|g| {
            assert_eq!(g.share, 1.0);
            g.user
        })
    }

    #[test]
    fn max_snr_picks_the_best_channel_among_backlogged_users() {
        let mut s = MaxSnr;
        let mut users = [view(300, 1000), view(500, 1000), view(100, 1000)];
        users[0].snr = 30.0;
        users[1].snr = 50.0;
        users[2].snr = 60.0;
        users[2].rate_bits = 0; // contrived: a user in outage is skipped whatever its SNR
        assert_eq!(pick(&mut s, 0, &users), Some(1));
        users[1].queued_packets = 0; // empty queue: not a candidate
        assert_eq!(pick(&mut s, 0, &users), Some(0));
        users[0].rate_bits = 0;
        assert_eq!(pick(&mut s, 0, &users), None);
    }

    #[test]
    fn max_weight_picks_the_largest_queue_times_rate() {
        let mut s = MaxWeight;
        // Weights 300 x 1000, 500 x 500, 100 x 4000: the third.
        let users = [view(300, 1000), view(500, 500), view(100, 4000)];
        assert_eq!(pick(&mut s, 0, &users), Some(2));
        let users = [view(300, 1000), view(500, 700), view(100, 1000)];
        assert_eq!(pick(&mut s, 0, &users), Some(1));
    }

    #[test]
    fn delay_max_weight_is_paper_002_eq_10() {
        let mut s = DelayMaxWeight;
        // Queue / average throughput x rate: 1000/10 x 300 = 30 000, 4000/100 x 500 = 20 000,
        // 1000/50 x 1000 = 20 000.
        let mut users = [view(300, 1000), view(500, 4000), view(1000, 1000)];
        users[0].avg_throughput = 10.0;
        users[1].avg_throughput = 100.0;
        users[2].avg_throughput = 50.0;
        assert_eq!(pick(&mut s, 0, &users), Some(0));
        // A user never served has its average floored at 1 bit and goes first.
        users[2].avg_throughput = 0.0;
        assert_eq!(pick(&mut s, 0, &users), Some(2));
    }

    #[test]
    fn delay_max_weight_with_equal_queues_is_proportional_fair() {
        // Equal queues: the largest R / AveR, 1000/20 = 50 against 300/10 = 30 and 500/25 = 20.
        let mut users = [view(300, 1000), view(1000, 1000), view(500, 1000)];
        users[0].avg_throughput = 10.0;
        users[1].avg_throughput = 20.0;
        users[2].avg_throughput = 25.0;
        assert_eq!(pick(&mut DelayMaxWeight, 0, &users), Some(1));
        users[1].avg_throughput = 40.0; // 25 < 30
        assert_eq!(pick(&mut DelayMaxWeight, 0, &users), Some(0));
    }

    #[test]
    fn mlwdf_weighs_head_of_line_delay() {
        let mut s = Mlwdf;
        let mut users = [view(300, 1000), view(300, 1000)];
        users[0].hol_wait = 5;
        users[1].hol_wait = 7;
        users[0].avg_throughput = 10.0;
        users[1].avg_throughput = 10.0;
        assert_eq!(pick(&mut s, 0, &users), Some(1));
        users[1].avg_throughput = 20.0; // 7/20 < 5/10
        assert_eq!(pick(&mut s, 0, &users), Some(0));
        // Work conserving: a packet that just arrived (zero wait) is still served.
        let fresh = [view(300, 200)];
        assert_eq!(pick(&mut s, 0, &fresh), Some(0));
    }

    #[test]
    fn ties_rotate_with_the_slot() {
        let users = [view(100, 1000); 3];
        for (slot, expect) in [(0, 0), (1, 1), (2, 2), (3, 0)] {
            assert_eq!(pick(&mut MaxWeight, slot, &users), Some(expect));
            assert_eq!(pick(&mut MaxSnr, slot, &users), Some(expect));
        }
    }

    #[test]
    fn round_robin_takes_turns_and_skips_empty_queues() {
        let mut s = RoundRobin::default();
        let mut users = [view(100, 1000), view(0, 1000), view(100, 1000)];
        // Channel-blind: user 1 gets its turn even in outage.
        let order: Vec<_> = (0..6).map(|k| pick(&mut s, k, &users).unwrap()).collect();
        assert_eq!(order, [0, 1, 2, 0, 1, 2]);
        users[1].queued_packets = 0;
        let order: Vec<_> = (0..4).map(|k| pick(&mut s, k, &users).unwrap()).collect();
        assert_eq!(order, [0, 2, 0, 2]);
        let idle = [UserView::default(); 2];
        assert_eq!(pick(&mut s, 0, &idle), None);
    }

    #[test]
    fn names_match_the_configuration() {
        for (cfg, name) in [
            (SchedulerConfig::RoundRobin, "\"round_robin\""),
            (SchedulerConfig::MaxSnr, "\"max_snr\""),
            (SchedulerConfig::MaxWeight, "\"max_weight\""),
            (SchedulerConfig::DelayMaxWeight, "\"delay_max_weight\""),
            (SchedulerConfig::Mlwdf, "\"mlwdf\""),
        ] {
            let json = serde_json::to_string(&cfg).unwrap();
            assert_eq!(json, format!("{{\"kind\":{name}}}"));
            assert_eq!(format!("\"{}\"", from_config(cfg).name()), name);
        }
    }
}
