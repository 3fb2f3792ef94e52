//! Minstrel-HT: 802.11n MCSs chosen by measured throughput, with a retry chain and occasional
//! samples of faster MCSs, as ns-3 3.44's `MinstrelHtWifiManager` (Duy Nguyen, Ghada Badawy,
//! Matías Richart; `src/wifi/model/rate-control/minstrel-ht-wifi-manager.cc`) ports Linux's
//! `rc80211_minstrel_ht.c` (Felix Fietkau; <http://lwn.net/Articles/376765/>).
//!
//! **One MCS group.** Minstrel-HT keeps statistics per MCS group (streams, channel width, guard
//! interval) and samples the groups in turn. An airtcp 802.11n radio sends one stream at its own
//! width and guard interval (`radio.ht`), so there is one group: MCS 0-7 of that width and GI, up
//! to `radio.data_rate` (the ladder). ns-3 would also keep the 20-MHz group of a 40-MHz radio and
//! the long-GI group of a short-GI one; those rates are not on airtcp's ladder.
//!
//! Per neighbour and MCS the manager counts attempts and successes **by MPDU**: a lone MPDU is
//! one, an A-MPDU adds its MPDUs sent and those its Block Ack acknowledged (ns-3's
//! `DoReportAmpduTxStatus`). Every `update_interval` (ns-3's `UpdateStatistics`, 50 ms; checked
//! when a packet or A-MPDU ends) each MCS attempted since the last update gets the success
//! percentage (integer, 0-100), smoothed by an EWMA (weight `ewma` = 75 % on the old value), and
//! a throughput of min(EWMA, 90) / T, where T is the airtime of a `packet_bytes` = 1200-byte MPDU
//! at the head of an A-MPDU (HT-mixed preamble and the data field's fractional symbols, no
//! signal extension: ns-3's `CalculateMpduTxDuration(FIRST_MPDU_IN_AGGREGATE)`); an MCS below 10 %
//! counts as throughput 0. The ranking keeps max_tp and max_tp2 (ties to the higher
//! probability) and max_prob (of the MCSs above 75 %, the highest throughput; else the highest
//! probability). The average A-MPDU length (MPDUs per A-MPDU, an integer EWMA with the same
//! weight) enters the retry counts and the sampling wait, not the throughput: ns-3 3.44 ranks by
//! the first MPDU's airtime, where Linux divides the per-A-MPDU overhead by the average length.
//!
//! - **Retry chain** (ns-3's `UpdateRate`). Failures walk max_tp, max_tp2, max_prob, each for its
//!   retry count; a sample is tried once, then max_tp2 and max_prob (the lowest rate is not in the
//!   chain, as in Linux). A retry count is 1 for an MCS with an EWMA below 1 %, else the tries
//!   (2-7) whose airtime stays within 6 ms: an A-MPDU of the average length (first MPDU plus
//!   middle ones), SIFS and a 68-us Block Ack (ns-3's `GetBlockAckTxTime` for 802.11n) and the
//!   mean backoff of a window growing from 15 slots (ns-3's `CalculateRetransmits`); it is
//!   recomputed for the three chain rates at each update.
//! - **How the chain maps onto the DCF.** The DCF asks the rate of every PPDU. Without
//!   aggregation a packet's retries step down the chain, and the packet is given up when its
//!   failures reach the chain's total (ns-3's `DoNeedRetransmission`; `attempts_allowed`). Under
//!   aggregation a missed Block Ack does not resend the same A-MPDU: its MPDUs go again in later
//!   PPDUs, each of which asks anew. As in ns-3, which also picks per PPDU, each A-MPDU that gets
//!   no MPDU through steps down the chain, and one that gets any through ends the "packet": the
//!   retry state resets, the statistics update if due and the next MCS is chosen. When the missed
//!   A-MPDUs (or lone MPDUs) reach the chain's total, ns-3 discards their MPDUs and reports a
//!   final failure; here the manager does the same bookkeeping (one failed packet, a fresh
//!   chain) but the MPDUs stay until their lifetime ends (under a Block Ack agreement airtcp's DCF
//!   has no retry limit).
//! - **Sampling** (ns-3's `FindRate`; no look-around percentage: ns-3's `LookAroundRate`, 10,
//!   serves its non-HT fallback only). After `sample_wait` = 16 + 2 x average A-MPDU length
//!   decisions, the next decision tries the next entry of the sample table (`sample_columns` =
//!   10 columns, each a random arrangement of the 8 MCSs, read down a column then on to the next;
//!   ns-3's `SampleColumn`) that is not max_tp, max_tp2 or max_prob, works at most 95 % of the
//!   time and is faster than max_tp2 (or, at most twice an interval, slower but unsampled for
//!   20 intervals). A sample goes first in its chain, in a full A-MPDU (ns-3 3.44 marks the
//!   TXVECTOR "no aggregation" when sampling, but its aggregator does not read the flag). At most
//!   8 samples per interval (8 per group), and 4 in a row at the start.
//!
//! The starting rate is the lowest MCS. Randomness (the sample tables) comes from the radio's own
//! rate-control stream. ns-3's other attributes: `LegacyUpdateStatistics` (100 ms) and
//! `LookAroundRate` serve non-HT peers, which an 802.11n radio here does not have;
//! `UseLatestAmendmentOnly` (true) chooses between HT, VHT and HE groups, only HT here;
//! `PrintStats` is off (no statistics files). Kept from ns-3's source: the sample table is filled
//! with "0 means empty" (as in ns-3's non-HT Minstrel), and the first sample comes from the
//! table's second row (the index is advanced once at initialisation).
//!
//! Deviations: times are kept in nanoseconds as f64 (ns-3 rounds the first MPDU's airtime to
//! its time resolution); the first statistics update comes `update_interval` after the first
//! feedback (ns-3: after the first transmission, a packet earlier); RTS failures count against
//! the MAC's short retry limit as without Minstrel-HT, and a packet given up at that limit ends
//! like one given up after its chain (ns-3 only resets the retry counters then); MPDUs are not
//! discarded at the chain's end under aggregation (above).

use super::RateManager;
use crate::mac::timing::Timing;
use crate::phy::ht::GuardInterval;
use crate::sim::time::{MICROS, MILLIS};
use crate::sim::{Rng, Time};

/// Minstrel-HT's constants (ns-3's defaults in [`MinstrelHtParams::NS3`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MinstrelHtParams {
    /// Interval between statistics updates.
    pub update_interval: Time,
    /// Weight of the old probability (and A-MPDU length) in the EWMA, percent.
    pub ewma: u32,
    /// Columns of the sample table.
    pub sample_columns: usize,
    /// MPDU size the throughput ranking and the retry counts assume, bytes.
    pub packet_bytes: u32,
}

impl MinstrelHtParams {
    /// ns-3 3.44's `MinstrelHtWifiManager` attributes (`UpdateStatistics`, `EWMA`,
    /// `SampleColumn`, `PacketLength`).
    pub const NS3: MinstrelHtParams = MinstrelHtParams {
        update_interval: 50 * MILLIS,
        ewma: 75,
        sample_columns: 10,
        packet_bytes: 1200,
    };
}

/// MCSs per group: HT MCS 0-7 (ns-3's `maxMcs + 1` for HT); the sample table's rows.
const GROUP_RATES: usize = 8;
/// The airtime budget of one rate's place in the retry chain.
const RETRY_BUDGET: f64 = (6 * MILLIS) as f64;
/// ns-3's `WifiPhy::GetBlockAckTxTime` under 802.11n (Table 10-5 of 802.11-2016).
const BLOCK_ACK_TX_TIME: Time = 68 * MICROS;
/// Most tries of one chain place.
const MAX_RETRY_COUNT: u32 = 7;

/// One MCS's statistics for one neighbour.
#[derive(Debug, Clone, Copy, Default)]
struct RateStats {
    attempts: u32,
    successes: u32,
    /// Success percentage, EWMA (0-100).
    ewma_prob: f64,
    success_hist: u64,
    samples_skipped: u32,
    /// min(EWMA, 90) per second of first-MPDU airtime; 0 below 10 %.
    throughput: f64,
    retry_count: u32,
    retry_updated: bool,
}

/// One neighbour's state.
#[derive(Debug, Clone)]
struct Station {
    rates: Vec<RateStats>,
    /// The sample table, column-major: `sample_table[column * GROUP_RATES + row]` is an MCS.
    sample_table: Vec<u8>,
    row: u8,
    column: u8,
    max_tp: usize,
    max_tp2: usize,
    max_prob: usize,
    total_packets: u32,
    sample_packets: u32,
    sampling: bool,
    sample_rate: usize,
    /// Decisions to wait before the next sample.
    sample_wait: u32,
    /// Samples due once the wait is over.
    sample_tries: u32,
    /// Samples left this interval.
    sample_count: u32,
    /// Slow samples this interval.
    samples_slow: u32,
    /// MPDUs per A-MPDU, integer EWMA.
    avg_ampdu_len: u32,
    ampdu_len: u32,
    ampdu_count: u32,
    /// Failed attempts (PPDUs) of the current packet.
    long_retry: u32,
    txrate: usize,
    next_update: Option<Time>,
}

/// Bytes Minstrel-HT keeps per neighbour over `rates` MCSs with `columns` sample columns.
pub fn bytes_per_neighbour(rates: usize, columns: usize) -> u64 {
    (size_of::<Station>() + rates * size_of::<RateStats>() + GROUP_RATES * columns) as u64
}

/// Minstrel-HT for all of a radio's neighbours.
#[derive(Debug, Clone)]
pub struct MinstrelHt {
    model: Model,
    /// Whether the radio aggregates (its DCF then never gives a packet up for the chain).
    aggregating: bool,
    stations: Vec<Station>,
    rng: Rng,
}

/// What the ranking and the chain know of the radio: the constants and the MCSs' airtimes.
#[derive(Debug, Clone)]
struct Model {
    p: MinstrelHtParams,
    /// Per ladder index: airtime of a `packet_bytes` MPDU heading an A-MPDU (preamble included),
    /// ns.
    first_ns: Vec<f64>,
    /// Per ladder index: airtime of a `packet_bytes` MPDU inside an A-MPDU, ns.
    middle_ns: Vec<f64>,
    slot: Time,
    /// SIFS and the Block Ack.
    ack: Time,
}

impl MinstrelHt {
    /// The manager over `ladder` (bit/s, lowest first: the radio's MCSs) with the radio's
    /// `timing`, for `neighbours` neighbours, drawing its sample tables from `rng`;
    /// `aggregating` if the radio sends A-MPDUs.
    pub fn new(
        p: MinstrelHtParams,
        ladder: &[u64],
        timing: &Timing,
        aggregating: bool,
        neighbours: usize,
        rng: Rng,
    ) -> Self {
        debug_assert!(ladder.len() <= GROUP_RATES);
        let bits = 8.0 * f64::from(p.packet_bytes);
        let (first_ns, middle_ns) = ladder
            .iter()
            .map(
                |&rate| match timing.ht.and_then(|ht| Some((ht, ht.mode_of(rate)?))) {
                    // ns-3's HtPhy::GetPayloadDuration for FIRST_ and MIDDLE_MPDU_IN_AGGREGATE:
                    // fractional symbols, SERVICE and tail bits on the first only.
                    Some((ht, mode)) => {
                        let symbol = match ht.guard_interval {
                            GuardInterval::Long => 4000.0,
                            GuardInterval::Short => 3600.0,
                        };
                        let n_dbps = f64::from(mode.n_dbps);
                        let first = mode.preamble() as f64 + (16.0 + bits + 6.0) / n_dbps * symbol;
                        (first, bits / n_dbps * symbol)
                    }
                    // Not an HT rate (the configuration refuses non-HT radios): a whole frame each.
                    None => {
                        let t = timing.airtime(p.packet_bytes, rate) as f64;
                        (t, t)
                    }
                },
            )
            .unzip();
        let mut m = MinstrelHt {
            model: Model {
                p,
                first_ns,
                middle_ns,
                slot: timing.slot,
                ack: timing.sifs + BLOCK_ACK_TX_TIME,
            },
            aggregating,
            stations: Vec::with_capacity(neighbours),
            rng,
        };
        for _ in 0..neighbours {
            let s = m.station();
            m.stations.push(s);
        }
        m
    }

    /// A fresh neighbour (ns-3's `DoCreateStation`, `InitSampleTable` and `RateInit`):
    /// statistics empty, a random sample table, MCS 0.
    fn station(&mut self) -> Station {
        let model = &self.model;
        let n = model.first_ns.len();
        let mut table = vec![0u8; GROUP_RATES * model.p.sample_columns];
        for column in table.chunks_exact_mut(GROUP_RATES) {
            for i in 0..GROUP_RATES as u8 {
                // A draw in [0, 8], inclusive as ns-3's `GetInteger(0, numSampleRates)`.
                let uv = (self.rng.next_u64() % (GROUP_RATES as u64 + 1)) as usize;
                let mut at = (usize::from(i) + uv) % GROUP_RATES;
                while column[at] != 0 {
                    at = (at + 1) % GROUP_RATES;
                }
                column[at] = i;
            }
        }
        let mut s = Station {
            rates: vec![RateStats::default(); n],
            sample_table: table,
            row: 0,
            column: 0,
            max_tp: 0,
            max_tp2: 0,
            max_prob: 0,
            total_packets: 0,
            sample_packets: 0,
            sampling: false,
            sample_rate: 0,
            sample_wait: 0,
            sample_tries: 4,
            sample_count: 16,
            samples_slow: 0,
            avg_ampdu_len: 1,
            ampdu_len: 0,
            ampdu_count: 0,
            long_retry: 0,
            txrate: 0,
            next_update: None,
        };
        for i in 0..n {
            s.rates[i].retry_count = model.retry_count(&s, i);
        }
        // RateInit: the first sample index, the initial ranking (all MCS 0), the first rate.
        advance_sample(&mut s, model.p.sample_columns);
        model.rank(&mut s);
        s.txrate = model.find_rate(&mut s);
        s
    }

    /// The attempts (PPDUs) a packet to `nb` gets: ns-3's `CountRetries`.
    pub fn chain_attempts(&self, nb: usize) -> u32 {
        count_retries(&self.stations[nb])
    }

    /// ns-3's `UpdatePacketCounters`: packets (MPDUs) counted, the next sample scheduled.
    fn count_packets(s: &mut Station, mpdus: u32) {
        s.total_packets = s.total_packets.wrapping_add(mpdus);
        if s.sampling {
            s.sample_packets = s.sample_packets.wrapping_add(mpdus);
        }
        if s.total_packets == u32::MAX {
            (s.sample_packets, s.total_packets) = (0, 0);
        }
        if s.sample_wait == 0 && s.sample_tries == 0 && s.sample_count > 0 {
            s.sample_wait = 16 + 2 * s.avg_ampdu_len;
            s.sample_tries = 1;
            s.sample_count -= 1;
        }
    }

    /// ns-3's `UpdateRate`: a failed attempt, the next place of the chain.
    fn step_down(s: &mut Station) {
        s.long_retry += 1;
        let rc = |i: usize| s.rates[i].retry_count;
        let r = s.long_retry;
        s.txrate = if !s.sampling {
            if r < rc(s.max_tp) {
                s.max_tp
            } else if r < rc(s.max_tp) + rc(s.max_tp2) {
                s.max_tp2
            } else {
                s.max_prob
            }
        } else if r < 1 + rc(s.max_tp2) {
            // The sample once, then max_tp2 (ns-3's code; its comment says max_tp).
            s.max_tp2
        } else {
            s.max_prob
        };
    }

    /// The packet ended (ns-3's tail of `DoReportDataOk`, `DoReportFinalDataFailed` and a
    /// successful `DoReportAmpduTxStatus`): retry state reset, statistics if due, the next rate.
    fn packet_done(&mut self, nb: usize, now: Time) {
        let interval = self.model.p.update_interval;
        let s = &mut self.stations[nb];
        s.sampling = false;
        s.long_retry = 0;
        let due = *s.next_update.get_or_insert(now + interval);
        if now >= due {
            s.next_update = Some(now + interval);
            self.model.rank(s);
        }
        s.txrate = self.model.find_rate(s);
    }

    /// The chain is spent (ns-3's `DoReportFinalDataFailed`): one failed packet, a fresh chain.
    fn final_failure(&mut self, nb: usize, now: Time) {
        Self::count_packets(&mut self.stations[nb], 1);
        self.packet_done(nb, now);
    }
}

impl Model {
    /// ns-3's `CalculateRetransmits`: the tries of MCS `i` that fit in 6 ms.
    fn retry_count(&self, s: &Station, i: usize) -> u32 {
        if s.rates[i].ewma_prob < 1.0 {
            return 1;
        }
        let data =
            self.first_ns[i] + self.middle_ns[i] * f64::from(s.avg_ampdu_len.saturating_sub(1));
        let (slot, ack) = (self.slot as f64, self.ack as f64);
        let mut cw = 15u32;
        let backoff = |cw: &mut u32| {
            let t = f64::from(*cw / 2) * slot;
            *cw = ((*cw + 1) * 2).min(1023);
            t
        };
        // The first two tries, then as many more as fit.
        let mut total = backoff(&mut cw) + backoff(&mut cw) + 2.0 * (data + ack);
        let mut count = 2;
        loop {
            total += backoff(&mut cw) + ack + data;
            if total >= RETRY_BUDGET {
                return count;
            }
            count += 1;
            if count >= MAX_RETRY_COUNT {
                return count;
            }
        }
    }

    /// ns-3's `UpdateStats` (without the due check), from the station's counts.
    fn rank(&self, s: &mut Station) {
        let e = self.p.ewma;
        s.samples_slow = 0;
        s.sample_count = 0;
        if let Some(len) = s.ampdu_len.checked_div(s.ampdu_count) {
            s.avg_ampdu_len = (len * (100 - e) + s.avg_ampdu_len * e) / 100;
            s.ampdu_len = 0;
            s.ampdu_count = 0;
        }
        (s.max_tp, s.max_tp2, s.max_prob) = (0, 0, 0);
        // One supported group.
        s.sample_count += 1;
        for i in 0..s.rates.len() {
            let r = &mut s.rates[i];
            r.retry_updated = false;
            // The success percentage, an integer as ns-3's (in 64 bits: a long interval may
            // gather many MPDUs).
            if let Some(prob) = (100 * u64::from(r.successes)).checked_div(r.attempts.into()) {
                let prob = prob as f64;
                r.samples_skipped = 0;
                r.ewma_prob = if r.success_hist == 0 {
                    prob
                } else {
                    (prob * f64::from(100 - e) + r.ewma_prob * f64::from(e)) / 100.0
                };
                r.throughput = throughput(r.ewma_prob, self.first_ns[i]);
                r.success_hist += u64::from(r.successes);
            } else {
                r.samples_skipped = r.samples_skipped.saturating_add(1);
            }
            r.attempts = 0;
            r.successes = 0;
            if r.throughput != 0.0 {
                set_best_throughput(s, i);
                set_best_probability(s, i);
            }
        }
        // Try to sample every rate of every group in each interval.
        s.sample_count *= 8;
        for i in [s.max_tp, s.max_tp2, s.max_prob] {
            if !s.rates[i].retry_updated {
                let count = self.retry_count(s, i);
                let r = &mut s.rates[i];
                r.retry_count = count;
                r.retry_updated = r.ewma_prob >= 1.0;
            }
        }
    }

    /// ns-3's `FindRate`: max_tp, or a sample when the wait is over.
    fn find_rate(&self, s: &mut Station) -> usize {
        if s.sample_packets.wrapping_add(s.total_packets) == 0 {
            return s.max_tp;
        }
        if s.sample_wait == 0 && s.sample_tries != 0 {
            let idx = usize::from(
                s.sample_table[usize::from(s.column) * GROUP_RATES + usize::from(s.row)],
            );
            advance_sample(s, self.p.sample_columns);
            // An MCS above the ladder (`radio.data_rate` below MCS 7) is not supported.
            if let Some(&r) = s.rates.get(idx) {
                let chain = [s.max_tp, s.max_tp2, s.max_prob];
                if !chain.contains(&idx) && r.ewma_prob <= 95.0 {
                    // Faster than max_tp2 (one stream: the stream clause never holds), or a slow
                    // one long unsampled, at most twice an interval.
                    let fast = self.first_ns[idx] < self.first_ns[s.max_tp2];
                    if !fast {
                        s.samples_slow += 1;
                    }
                    if fast || (r.samples_skipped >= 20 && s.samples_slow <= 2) {
                        s.sampling = true;
                        s.sample_rate = idx;
                        s.sample_tries -= 1;
                        return idx;
                    }
                }
            }
        }
        s.sample_wait = s.sample_wait.saturating_sub(1);
        s.max_tp
    }
}

/// ns-3's `CountRetries`: the places of the current chain.
fn count_retries(s: &Station) -> u32 {
    let rc = |i: usize| s.rates[i].retry_count;
    if s.sampling {
        1 + rc(s.max_tp2) + rc(s.max_prob)
    } else {
        rc(s.max_tp) + rc(s.max_tp2) + rc(s.max_prob)
    }
}

/// ns-3's `SetNextSample` for one group: down the column, then the next column.
fn advance_sample(s: &mut Station, columns: usize) {
    s.row += 1;
    if usize::from(s.row) >= GROUP_RATES {
        s.row = 0;
        s.column += 1;
        if usize::from(s.column) >= columns {
            s.column = 0;
        }
    }
}

/// ns-3's `CalculateThroughput`: 0 below 10 %, the probability capped at 90 % (collisions make
/// the rest noise) per second of airtime.
fn throughput(ewma_prob: f64, first_ns: f64) -> f64 {
    if ewma_prob < 10.0 {
        0.0
    } else {
        ewma_prob.min(90.0) / (first_ns * 1e-9)
    }
}

/// ns-3's `SetBestStationThRates`: max_tp and max_tp2, ties to the higher probability.
fn set_best_throughput(s: &mut Station, i: usize) {
    let (th, prob) = (s.rates[i].throughput, s.rates[i].ewma_prob);
    let (tp, tp2) = (s.rates[s.max_tp], s.rates[s.max_tp2]);
    if th > tp.throughput || (th == tp.throughput && prob > tp.ewma_prob) {
        s.max_tp2 = s.max_tp;
        s.max_tp = i;
    } else if th > tp2.throughput || (th == tp2.throughput && prob > tp2.ewma_prob) {
        s.max_tp2 = i;
    }
}

/// ns-3's `SetBestProbabilityRate`: above 75 % the highest throughput, else the highest
/// probability.
fn set_best_probability(s: &mut Station, i: usize) {
    let r = s.rates[i];
    let best = s.rates[s.max_prob];
    if r.ewma_prob > 75.0 {
        if r.throughput > best.throughput {
            s.max_prob = i;
        }
    } else if r.ewma_prob > best.ewma_prob {
        s.max_prob = i;
    }
}

impl RateManager for MinstrelHt {
    fn pick(&mut self, nb: usize) -> usize {
        self.stations[nb].txrate
    }

    fn add_neighbour(&mut self) {
        let s = self.station();
        self.stations.push(s);
    }

    /// A lone MPDU: ns-3's `DoReportDataOk` and `DoReportDataFailed`.
    fn on_data(&mut self, nb: usize, _rate: usize, acked: Option<f64>, now: Time) {
        let s = &mut self.stations[nb];
        let tx = s.txrate;
        if acked.is_some() {
            s.rates[tx].successes = s.rates[tx].successes.saturating_add(1);
            s.rates[tx].attempts = s.rates[tx].attempts.saturating_add(1);
            Self::count_packets(s, 1);
            self.packet_done(nb, now);
            return;
        }
        if s.long_retry < count_retries(s) {
            s.rates[tx].attempts = s.rates[tx].attempts.saturating_add(1);
            Self::step_down(s);
        }
        // Without aggregation the DCF gives the packet up at the chain's end (`on_given_up`);
        // under a Block Ack agreement it keeps the MPDU, and ns-3 would have discarded it here.
        if self.aggregating && s.long_retry >= count_retries(s) {
            self.final_failure(nb, now);
        }
    }

    fn on_given_up(&mut self, nb: usize, now: Time) {
        self.final_failure(nb, now);
    }

    /// ns-3's `DoReportAmpduTxStatus`, and after a missed Block Ack at the chain's end its
    /// `DoReportFinalDataFailed`.
    fn on_ampdu(&mut self, nb: usize, _rate: usize, mpdus: u32, acked: u32, _snr: f64, now: Time) {
        let s = &mut self.stations[nb];
        s.ampdu_count = s.ampdu_count.saturating_add(1);
        s.ampdu_len = s.ampdu_len.saturating_add(mpdus);
        Self::count_packets(s, mpdus);
        let tx = s.txrate;
        s.rates[tx].successes = s.rates[tx].successes.saturating_add(acked);
        s.rates[tx].attempts = s.rates[tx].attempts.saturating_add(mpdus);
        if acked == 0 && s.long_retry < count_retries(s) {
            Self::step_down(s);
            if s.long_retry >= count_retries(s) {
                self.final_failure(nb, now);
            }
        } else {
            self.packet_done(nb, now);
        }
    }

    fn attempts_allowed(&self, nb: usize) -> Option<u32> {
        Some(self.chain_attempts(nb))
    }
}

#[cfg(test)]
mod tests;
