//! Minstrel (non-HT): rates chosen by measured throughput, with a multi-rate retry chain and a
//! share of frames spent sampling other rates, as ns-3's `MinstrelWifiManager` runs Linux's
//! `rc80211_minstrel` (Derek Smithies and Felix Fietkau; ns-3's port by Duy Nguyen and Matías
//! Richart).
//!
//! Per neighbour and rate the manager counts attempts and successes. Every `update_interval`
//! (100 ms, checked when a packet ends) it turns each rate's counts into a success probability
//! in 1/18000 units, smooths it (EWMA, weight `ewma` = 75 % on the old value) and ranks the rates
//! by throughput = probability x 10^6 / (the airtime of a `packet_bytes` = 1200-byte frame, us),
//! keeping the best (max_tp), the second best (max_tp2) and the most reliable (max_prob: the
//! highest probability, preferring the faster of those above 95 %).
//!
//! - **Retry chain.** A packet's attempts go at max_tp, then max_tp2, then max_prob, then the
//!   lowest rate, each for its "adjusted retry count": the most attempts (2-10) whose total
//!   airtime with backoff stays within 6 ms (with ns-3's fixed CW 31..1023), cut to 2 for a rate
//!   whose probability is below 10 % or above 95 %. The packet is given up when its failures reach
//!   the sum of the four counts, not at the MAC's retry limit (ns-3 ignores `FrameRetryLimit`
//!   under Minstrel; up to 14 attempts with 802.11a's counts 4, 4, 4, 2).
//! - **Sampling ("look-around").** When fewer than `lookaround` = 10 % of the packets so far were
//!   samples, the next packet samples a rate from a random table (`sample_columns` = 10 columns,
//!   each a random arrangement of the rates). A sample rate slower than max_tp is "deferred": the
//!   packet starts at max_tp and tries the sample rate second; a faster one goes first. A rate
//!   whose probability is below 10 % or above 95 % is sampled at most 4 times per interval.
//!
//! The starting rate is the lowest. Randomness (the sample tables) comes from the radio's own
//! rate-control stream.
//!
//! Kept from ns-3's source as it runs, though they look unintended: the sample table is filled
//! with "0 means empty", so rate 0 may be overwritten in a column; its last row is never read
//! (the index wraps at n - 1). The first statistics update of a neighbour comes 100 ms after its
//! first packet ends (ns-3: after the station is first seen, about the same). Deviation: RTS failures count against the MAC's short retry limit as
//! without Minstrel (ns-3 counts them apart, in a counter its give-up rule does not read), and a
//! packet given up at that limit ends like one given up after its data chain (ns-3 only resets
//! the retry counters then, without counting the packet or updating the statistics).

use super::RateManager;
use crate::mac::timing::Timing;
use crate::sim::time::MILLIS;
use crate::sim::{Rng, Time};

/// Minstrel's constants (ns-3's defaults in [`MinstrelParams::NS3`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MinstrelParams {
    /// Interval between statistics updates.
    pub update_interval: Time,
    /// Percentage of packets spent sampling.
    pub lookaround: u32,
    /// Weight of the old probability in the EWMA, percent.
    pub ewma: u32,
    /// Columns of the sample table.
    pub sample_columns: usize,
    /// Frame size the throughput ranking assumes, bytes.
    pub packet_bytes: u32,
}

impl MinstrelParams {
    /// ns-3 3.44's `MinstrelWifiManager` attributes.
    pub const NS3: MinstrelParams = MinstrelParams {
        update_interval: 100 * MILLIS,
        lookaround: 10,
        ewma: 75,
        sample_columns: 10,
        packet_bytes: 1200,
    };
}

/// Probability scale: 18000 is certainty.
const PROB_ONE: u32 = 18000;
/// The airtime budget of one rate's place in the retry chain.
const RETRY_BUDGET: Time = 6 * MILLIS;

/// One rate's statistics for one neighbour.
#[derive(Debug, Clone, Copy, Default)]
struct RateStats {
    attempts: u32,
    successes: u32,
    success_hist: u64,
    samples_skipped: u32,
    ewma_prob: u32,
    throughput: u64,
    retry_count: u32,
    adjusted_retry_count: u32,
    /// Samples left this interval (-1: unlimited).
    sample_limit: i32,
}

/// One neighbour's state.
#[derive(Debug, Clone)]
struct Station {
    rates: Vec<RateStats>,
    /// The sample table, column-major: `sample_table[column * rates + row]` is a ladder index
    /// (ns-3 keeps it row-major; the same table). One byte a cell: a mesh has many neighbours.
    sample_table: Vec<u8>,
    row: usize,
    column: usize,
    max_tp: usize,
    max_tp2: usize,
    max_prob: usize,
    total_packets: u32,
    sample_packets: u32,
    samples_deferred: u32,
    sampling: bool,
    sample_rate: usize,
    sample_deferred: bool,
    /// Failed data attempts of the current packet.
    long_retry: u32,
    txrate: usize,
    next_update: Option<Time>,
}

/// Bytes Minstrel keeps per neighbour over `rates` rates with `columns` sample columns.
pub fn bytes_per_neighbour(rates: usize, columns: usize) -> u64 {
    (size_of::<Station>() + rates * size_of::<RateStats>() + rates * columns) as u64
}

/// Minstrel for all of a radio's neighbours.
#[derive(Debug, Clone)]
pub struct Minstrel {
    p: MinstrelParams,
    /// Per ladder index: airtime of a `packet_bytes` frame, us (at least 1).
    perfect_us: Vec<u64>,
    /// Per ladder index: the retry count the 6-ms budget allows.
    retry_counts: Vec<u32>,
    stations: Vec<Station>,
    rng: Rng,
}

impl Minstrel {
    /// The manager over `ladder` (bit/s, lowest first) with the radio's `timing`, for
    /// `neighbours` neighbours, drawing its sample tables from `rng`.
    pub fn new(
        p: MinstrelParams,
        ladder: &[u64],
        timing: &Timing,
        neighbours: usize,
        rng: Rng,
    ) -> Self {
        let perfect: Vec<Time> = ladder
            .iter()
            .map(|&r| timing.airtime(p.packet_bytes, r))
            .collect();
        let retry_counts = ladder
            .iter()
            .zip(&perfect)
            .map(|(&rate, &air)| {
                let one = air + timing.sifs + timing.ack_time_for(rate);
                (2..=10)
                    .take_while(|&retries| unicast_time(one, timing.slot, retries) <= RETRY_BUDGET)
                    .last()
                    .unwrap_or(1)
            })
            .collect();
        let mut m = Minstrel {
            p,
            perfect_us: perfect.iter().map(|t| (t / 1000).max(1)).collect(),
            retry_counts,
            stations: Vec::with_capacity(neighbours),
            rng,
        };
        for _ in 0..neighbours {
            let s = m.station();
            m.stations.push(s);
        }
        m
    }

    /// A fresh neighbour: statistics empty, a random sample table.
    fn station(&mut self) -> Station {
        let n = self.perfect_us.len();
        let rates = self
            .retry_counts
            .iter()
            .map(|&c| RateStats {
                retry_count: c,
                adjusted_retry_count: c,
                sample_limit: -1,
                ..RateStats::default()
            })
            .collect();
        let mut table = vec![0u8; n * self.p.sample_columns];
        for column in table.chunks_exact_mut(n) {
            for i in 0..n as u8 {
                // A draw in [0, n], inclusive as ns-3's `GetInteger(0, n)`.
                let uv = (self.rng.next_u64() % (n as u64 + 1)) as usize;
                let mut at = (i as usize + uv) % n;
                while column[at] != 0 {
                    at = (at + 1) % n;
                }
                column[at] = i;
            }
        }
        Station {
            rates,
            sample_table: table,
            row: 0,
            column: 0,
            max_tp: 0,
            max_tp2: 0,
            max_prob: 0,
            total_packets: 0,
            sample_packets: 0,
            samples_deferred: 0,
            sampling: false,
            sample_rate: 0,
            sample_deferred: false,
            long_retry: 0,
            txrate: 0,
            next_update: None,
        }
    }

    /// The attempts a packet to `nb` gets before it is given up: the four places of its chain.
    pub fn chain_attempts(&self, nb: usize) -> u32 {
        let s = &self.stations[nb];
        let count = |i: usize| s.rates[i].adjusted_retry_count;
        let second = if s.sampling { s.sample_rate } else { s.max_tp2 };
        count(s.max_tp) + count(second) + count(s.max_prob) + count(0)
    }

    /// A data attempt failed: the next place of the retry chain.
    fn failed(&mut self, nb: usize) {
        let s = &mut self.stations[nb];
        s.long_retry = s.long_retry.saturating_add(1);
        let tx = s.txrate;
        s.rates[tx].attempts = s.rates[tx].attempts.saturating_add(1);
        let c = |i: usize| s.rates[i].adjusted_retry_count;
        // The chain's order: normally max_tp, max_tp2, max_prob, lowest; sampling a slower rate
        // max_tp, sample, max_prob, lowest; sampling a faster one sample, max_tp, ....
        let (a, b) = match (s.sampling, s.sample_deferred) {
            (false, _) => (s.max_tp, s.max_tp2),
            (true, true) => (s.max_tp, s.sample_rate),
            (true, false) => (s.sample_rate, s.max_tp),
        };
        let r = s.long_retry;
        s.txrate = if r < c(a) {
            a
        } else if r <= c(a) + c(b) {
            b
        } else if r <= c(a) + c(b) + c(s.max_prob) {
            s.max_prob
        } else {
            0
        };
    }

    /// A packet ended (acknowledged or given up): counters, statistics, the next packet's rate.
    fn packet_done(&mut self, nb: usize, now: Time) {
        let p = self.p;
        let n = self.perfect_us.len();
        let s = &mut self.stations[nb];
        // ns-3's UpdatePacketCounters.
        s.total_packets = s.total_packets.wrapping_add(1);
        let lead_count = s.rates[s.max_tp].adjusted_retry_count;
        if s.sampling && (!s.sample_deferred || s.long_retry >= lead_count) {
            s.sample_packets = s.sample_packets.saturating_add(1);
        }
        s.samples_deferred = s.samples_deferred.saturating_sub(1);
        if s.total_packets == u32::MAX {
            (s.samples_deferred, s.sample_packets, s.total_packets) = (0, 0, 0);
        }
        s.sampling = false;
        s.sample_deferred = false;
        s.long_retry = 0;
        self.update_stats(nb, now);
        let s = &mut self.stations[nb];
        s.txrate = find_rate(s, &p, &self.perfect_us, n);
    }

    /// ns-3's UpdateStats: at most once per interval.
    fn update_stats(&mut self, nb: usize, now: Time) {
        let p = self.p;
        let s = &mut self.stations[nb];
        let due = *s.next_update.get_or_insert(now + p.update_interval);
        if now < due {
            return;
        }
        s.next_update = Some(now + p.update_interval);
        for (i, r) in s.rates.iter_mut().enumerate() {
            // In 64 bits: a long `update_interval` may gather many successes.
            let prob =
                (u64::from(r.successes) * u64::from(PROB_ONE)).checked_div(r.attempts.into());
            match prob.map(|p| p as u32) {
                Some(prob) => {
                    r.samples_skipped = 0;
                    r.ewma_prob = if r.success_hist == 0 {
                        prob
                    } else {
                        (prob * (100 - p.ewma) + r.ewma_prob * p.ewma) / 100
                    };
                    r.throughput = u64::from(r.ewma_prob) * (1_000_000 / self.perfect_us[i]);
                }
                None => r.samples_skipped += 1,
            }
            r.success_hist += u64::from(r.successes);
            r.attempts = 0;
            r.successes = 0;
            if r.ewma_prob > 17100 || r.ewma_prob < 1800 {
                // Rates that nearly always or nearly never work: fewer retries and samples.
                if r.retry_count > 2 {
                    r.adjusted_retry_count = 2;
                }
                r.sample_limit = 4;
            } else {
                r.sample_limit = -1;
                r.adjusted_retry_count = r.retry_count;
            }
            if r.adjusted_retry_count == 0 {
                r.adjusted_retry_count = 2;
            }
        }
        let tp = |i: usize| s.rates[i].throughput;
        let n = s.rates.len();
        let mut best = 0;
        for i in 0..n {
            if tp(best) < tp(i) {
                best = i;
            }
        }
        // The first maximum strictly above 0 wins, as ns-3 scans (index 0 if none is).
        let (mut second, mut second_tp) = (0, 0);
        for i in 0..n {
            if i != best && second_tp < tp(i) {
                (second, second_tp) = (i, tp(i));
            }
        }
        let (mut reliable, mut reliable_prob) = (0, 0);
        for i in 0..n {
            let prob = s.rates[i].ewma_prob;
            if (prob >= 95 * 180 && tp(i) >= tp(reliable)) || prob >= reliable_prob {
                (reliable, reliable_prob) = (i, prob);
            }
        }
        s.max_tp = best;
        s.max_tp2 = second;
        s.max_prob = reliable;
        if best > s.txrate {
            s.txrate = best;
        }
    }
}

/// Time of a unicast frame and `retries` retransmissions, each `one` long (frame, SIFS, ACK),
/// with the mean backoff of a window doubling from 31 to 1023 slots (ns-3's
/// `CalculateTimeUnicastPacket`, after minstrel.c).
fn unicast_time(one: Time, slot: Time, retries: u32) -> Time {
    let (mut total, mut cw) = (one as f64, 31u32);
    for _ in 0..retries {
        total += one as f64 + f64::from(cw) / 2.0 * slot as f64;
        cw = ((cw + 1) * 2).min(1023);
    }
    total as Time
}

/// ns-3's FindRate: max_tp, or a sample rate when the look-around share is behind.
fn find_rate(s: &mut Station, p: &MinstrelParams, perfect_us: &[u64], n: usize) -> usize {
    if s.total_packets == 0 {
        return 0;
    }
    let want = i64::from(s.total_packets) * i64::from(p.lookaround) / 100;
    let delta = want - (i64::from(s.sample_packets) + i64::from(s.samples_deferred / 2));
    if delta < 0 {
        return s.max_tp;
    }
    if delta > 2 * n as i64 {
        s.sample_packets = s
            .sample_packets
            .saturating_add((delta - 2 * n as i64) as u32);
    }
    let mut idx = usize::from(s.sample_table[s.column * n + s.row]);
    s.row += 1;
    if s.row > n.saturating_sub(2) {
        s.row = 0;
        s.column = (s.column + 1) % p.sample_columns;
    }
    s.sample_rate = idx;
    if perfect_us[idx] > perfect_us[s.max_tp] && s.rates[idx].samples_skipped < 20 {
        // Slower than the best: try it second.
        s.sample_deferred = true;
        s.samples_deferred = s.samples_deferred.saturating_add(1);
        s.sampling = true;
    } else if s.rates[idx].sample_limit == 0 {
        idx = s.max_tp;
        s.sampling = false;
    } else {
        s.sampling = true;
        if s.rates[idx].sample_limit > 0 {
            s.rates[idx].sample_limit -= 1;
        }
    }
    if s.sample_deferred {
        idx = s.max_tp;
    }
    idx
}

impl RateManager for Minstrel {
    fn pick(&mut self, nb: usize) -> usize {
        self.stations[nb].txrate
    }

    fn add_neighbour(&mut self) {
        let s = self.station();
        self.stations.push(s);
    }

    fn on_data(&mut self, nb: usize, _rate: usize, acked: Option<f64>, now: Time) {
        if acked.is_none() {
            self.failed(nb);
            return;
        }
        let s = &mut self.stations[nb];
        let tx = s.txrate;
        s.rates[tx].successes = s.rates[tx].successes.saturating_add(1);
        s.rates[tx].attempts = s.rates[tx].attempts.saturating_add(1);
        self.packet_done(nb, now);
    }

    fn on_given_up(&mut self, nb: usize, now: Time) {
        self.packet_done(nb, now);
    }

    fn attempts_allowed(&self, nb: usize) -> Option<u32> {
        Some(self.chain_attempts(nb))
    }
}

#[cfg(test)]
mod tests;
