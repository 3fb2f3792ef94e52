//! Minstrel-HT against channels whose answer per MCS is known, by lone MPDUs and by A-MPDUs.

use super::*;
use crate::phy::ht::HtConfig;

/// 802.11n, 5 GHz, 20 MHz, long GI: MCS 0-7 at 6.5-65 Mbit/s.
fn timing() -> Timing {
    Timing::dot11n(HtConfig::default(), 65_000_000, 6_000_000)
}

fn minstrel_ht(aggregating: bool, neighbours: usize) -> MinstrelHt {
    let ladder = HtConfig::default().rates();
    MinstrelHt::new(
        MinstrelHtParams::NS3,
        &ladder,
        &timing(),
        aggregating,
        neighbours,
        Rng::stream(1, "t"),
    )
}

/// Sends `ppdus` A-MPDUs of `len` MPDUs to neighbour 0, one per ms from `*now`, each MPDU at MCS
/// `i` getting through with probability `p(i)`; returns the PPDUs per MCS and how many samples
/// began.
fn drive_ampdus(
    m: &mut MinstrelHt,
    now: &mut Time,
    ppdus: usize,
    len: u32,
    p: impl Fn(usize) -> f64,
    rng: &mut Rng,
) -> (Vec<u64>, usize) {
    let mut per_mcs = vec![0u64; 8];
    let mut samples = 0;
    for _ in 0..ppdus {
        *now += MILLIS;
        let r = m.pick(0);
        // A sample's first PPDU; after a miss, its chain goes on with the flag still set.
        samples += (m.stations[0].sampling && m.stations[0].long_retry == 0) as usize;
        per_mcs[r] += 1;
        let acked = (0..len).filter(|_| rng.bernoulli(p(r))).count() as u32;
        m.on_ampdu(0, r, len, acked, 100.0, *now);
    }
    (per_mcs, samples)
}

/// Sends `packets` lone MPDUs without aggregation, one per ms from `*now`, each attempt at MCS `i`
/// succeeding iff `works(i)`, given up after the chain; returns the attempts per MCS and the
/// packets that were samples.
fn drive_frames(
    m: &mut MinstrelHt,
    now: &mut Time,
    packets: usize,
    works: impl Fn(usize) -> bool,
) -> (Vec<u64>, usize) {
    let mut attempts = vec![0u64; 8];
    let mut samples = 0;
    for _ in 0..packets {
        *now += MILLIS;
        samples += m.stations[0].sampling as usize;
        let mut failures = 0;
        loop {
            let r = m.pick(0);
            attempts[r] += 1;
            if works(r) {
                m.on_data(0, r, Some(100.0), *now);
                break;
            }
            m.on_data(0, r, None, *now);
            failures += 1;
            if failures >= m.attempts_allowed(0).expect("the chain decides") {
                m.on_given_up(0, *now);
                break;
            }
        }
    }
    (attempts, samples)
}

#[test]
fn airtimes_are_ns3_s_first_and_middle_mpdus() {
    let m = minstrel_ht(true, 1);
    // MCS 7, 20 MHz, long GI: 36 us of HT-mixed preamble, then (16 + 9600 + 6) / 260 symbols of
    // 4 us; a middle MPDU 9600 / 260 symbols.
    let first = 36_000.0 + 9622.0 / 260.0 * 4000.0;
    assert!(
        (m.model.first_ns[7] - first).abs() < 1e-6,
        "{}",
        m.model.first_ns[7]
    );
    assert!((m.model.middle_ns[7] - 9600.0 / 260.0 * 4000.0).abs() < 1e-6);
    assert!((m.model.first_ns[0] - (36_000.0 + 9622.0 / 26.0 * 4000.0)).abs() < 1e-6);
    assert_eq!(m.model.ack, 16 * MICROS + 68 * MICROS);
}

#[test]
fn retry_counts_fit_six_milliseconds_of_a_mean_length_a_mpdu() {
    let m = minstrel_ht(true, 1);
    let mut s = m.stations[0].clone();
    // Nothing known: one try each, so a chain of three.
    assert!(s.rates.iter().all(|r| r.retry_count == 1));
    assert_eq!(m.chain_attempts(0), 3);
    s.rates[7].ewma_prob = 100.0;
    s.rates[0].ewma_prob = 100.0;
    // Lone 1200-byte MPDUs at MCS 7 (268 us with SIFS and Block Ack) and the mean backoff of
    // 7, 16, 33, 67, 135, 271 slots of 9 us: the fifth try ends past 6 ms, so 5; at MCS 0 (1.6 ms
    // a try) 3.
    assert_eq!(m.model.retry_count(&s, 7), 5);
    assert_eq!(m.model.retry_count(&s, 0), 3);
    // A-MPDUs of 20 MPDUs (3 ms a try at MCS 7): the minimum, 2.
    s.avg_ampdu_len = 20;
    assert_eq!(m.model.retry_count(&s, 7), 2);
    s.rates[7].ewma_prob = 0.5;
    assert_eq!(m.model.retry_count(&s, 7), 1, "below 1 %: one try");
}

#[test]
fn an_a_mpdu_counts_its_mpdus_and_the_update_smooths_them() {
    let mut m = minstrel_ht(true, 1);
    // First report at 1 ms: the statistics update is due 50 ms later.
    m.on_ampdu(0, 0, 10, 7, 100.0, MILLIS);
    let r = m.stations[0].rates[0];
    assert_eq!((r.attempts, r.successes), (10, 7), "per MPDU");
    assert_eq!(m.stations[0].total_packets, 10);
    let tx = m.pick(0);
    m.on_ampdu(0, tx, 10, 10, 100.0, 51 * MILLIS);
    let s = &m.stations[0];
    // 17 of 20 at MCS 0 in the first interval (tx was a sample elsewhere otherwise).
    if tx == 0 {
        assert_eq!(s.rates[0].ewma_prob, 85.0);
    } else {
        assert_eq!(s.rates[0].ewma_prob, 70.0);
        assert_eq!(s.rates[tx].ewma_prob, 100.0);
    }
    assert_eq!(s.rates[0].attempts, 0, "counts start again");
    // The mean A-MPDU length: (10 x 25 + 1 x 75) / 100, in integers.
    assert_eq!(s.avg_ampdu_len, 3);
    // The EWMA: 75 % old. Another interval of 10 of 10 at MCS 0.
    let before = s.rates[0].ewma_prob;
    let mut m2 = m.clone();
    m2.stations[0].txrate = 0;
    m2.stations[0].sampling = false;
    m2.on_ampdu(0, 0, 10, 10, 100.0, 102 * MILLIS);
    let after = m2.stations[0].rates[0].ewma_prob;
    assert_eq!(after, (100.0 * 25.0 + before * 75.0) / 100.0);
    // Throughput: the probability, capped at 90, per second of the first MPDU's airtime.
    let t = m2.model.first_ns[0] * 1e-9;
    assert_eq!(m2.stations[0].rates[0].throughput, after.min(90.0) / t);
}

#[test]
fn the_chain_steps_max_tp_max_tp2_max_prob_and_a_sample_goes_once() {
    let mut m = minstrel_ht(false, 1);
    let set = |m: &mut MinstrelHt, sampling: bool, first: usize| {
        let s = &mut m.stations[0];
        (s.max_tp, s.max_tp2, s.max_prob) = (7, 6, 4);
        s.rates[7].retry_count = 2;
        s.rates[6].retry_count = 3;
        s.rates[4].retry_count = 4;
        s.sampling = sampling;
        s.sample_rate = first;
        s.txrate = first;
        s.long_retry = 0;
    };
    let walk = |m: &mut MinstrelHt| {
        let mut seen = Vec::new();
        for _ in 0..m.chain_attempts(0) {
            let r = m.pick(0);
            seen.push(r);
            m.on_data(0, r, None, MILLIS);
        }
        seen
    };
    set(&mut m, false, 7);
    assert_eq!(m.chain_attempts(0), 9);
    assert_eq!(walk(&mut m), [7, 7, 6, 6, 6, 4, 4, 4, 4]);
    let attempts: Vec<u32> = m.stations[0].rates.iter().map(|r| r.attempts).collect();
    assert_eq!(attempts, [0, 0, 0, 0, 4, 0, 3, 2]);
    m.on_given_up(0, MILLIS);
    assert_eq!(m.stations[0].long_retry, 0, "a fresh chain");
    set(&mut m, true, 5);
    assert_eq!(m.chain_attempts(0), 1 + 3 + 4);
    assert_eq!(walk(&mut m), [5, 6, 6, 6, 4, 4, 4, 4]);
}

#[test]
fn missed_block_acks_walk_the_chain_and_its_end_counts_one_failed_packet() {
    let mut m = minstrel_ht(true, 1);
    {
        let s = &mut m.stations[0];
        (s.max_tp, s.max_tp2, s.max_prob, s.txrate) = (7, 6, 4, 7);
        s.rates[7].retry_count = 2;
        s.rates[6].retry_count = 2;
        s.rates[4].retry_count = 2;
    }
    let mut seen = Vec::new();
    for _ in 0..6 {
        let r = m.pick(0);
        seen.push(r);
        m.on_ampdu(0, r, 8, 0, 0.0, MILLIS);
    }
    assert_eq!(seen, [7, 7, 6, 6, 4, 4]);
    let s = &m.stations[0];
    assert_eq!(s.long_retry, 0, "the sixth miss spent the chain");
    assert_eq!(s.total_packets, 6 * 8 + 1);
    assert_eq!(s.rates[7].attempts, 16);
    // A Block Ack with anything in it ends the packet at once.
    let r = m.pick(0);
    m.on_ampdu(0, r, 8, 0, 0.0, 2 * MILLIS);
    let r = m.pick(0);
    m.on_ampdu(0, r, 8, 1, 100.0, 3 * MILLIS);
    assert_eq!(m.stations[0].long_retry, 0);
}

#[test]
fn lone_mpdus_under_aggregation_end_their_chain_themselves() {
    // The DCF keeps an MPDU under a Block Ack agreement; the chain restarts after its places.
    let mut m = minstrel_ht(true, 1);
    let allowed = m.chain_attempts(0);
    for _ in 0..allowed {
        let r = m.pick(0);
        m.on_data(0, r, None, MILLIS);
    }
    assert_eq!(m.stations[0].long_retry, 0);
    assert_eq!(m.stations[0].total_packets, 1);
}

#[test]
fn on_a_clean_link_it_settles_on_mcs_7() {
    let mut m = minstrel_ht(true, 1);
    let (mut now, mut rng) = (0, Rng::stream(2, "channel"));
    let (per_mcs, _) = drive_ampdus(&mut m, &mut now, 3000, 16, |_| 1.0, &mut rng);
    let s = &m.stations[0];
    assert_eq!(s.max_tp, 7, "{per_mcs:?}");
    assert_eq!(s.max_tp2, 6, "{per_mcs:?}");
    let total: u64 = per_mcs.iter().sum();
    assert!(per_mcs[7] as f64 > 0.9 * total as f64, "{per_mcs:?}");
    // Its probability is certain but ranks at 90 %; A-MPDUs of 16 measured as such.
    assert_eq!(s.rates[7].ewma_prob, 100.0);
    assert!(s.avg_ampdu_len >= 12, "{}", s.avg_ampdu_len);
}

#[test]
fn it_settles_below_the_mcss_that_fail_and_steps_down_when_mcs_7_starts_failing() {
    let mut m = minstrel_ht(true, 1);
    let (mut now, mut rng) = (0, Rng::stream(3, "channel"));
    drive_ampdus(&mut m, &mut now, 2000, 16, |_| 1.0, &mut rng);
    assert_eq!(m.stations[0].max_tp, 7);
    // MCS 7 now loses 95 % of its MPDUs, MCS 6 10 %.
    let p = |i: usize| match i {
        7 => 0.05,
        6 => 0.9,
        _ => 1.0,
    };
    let (per_mcs, _) = drive_ampdus(&mut m, &mut now, 2000, 16, p, &mut rng);
    let s = &m.stations[0];
    assert_eq!(s.max_tp, 6, "{per_mcs:?}");
    // Within an interval or two it left MCS 7. MCS 7 stays max_tp2 on its old record (above
    // 75 %), so it is neither sampled nor, with every A-MPDU getting something through, tried
    // in the chain: Minstrel-HT's known blind spot, as in ns-3.
    assert!(per_mcs[6] > 10 * per_mcs[7], "{per_mcs:?}");
    assert_eq!((s.max_tp2, s.rates[7].ewma_prob), (7, 75.25));
    // Lone frames without aggregation: MCS 5-7 fail outright.
    let mut m = minstrel_ht(false, 1);
    let mut now = 0;
    let (attempts, _) = drive_frames(&mut m, &mut now, 3000, |i| i <= 4);
    assert_eq!(m.stations[0].max_tp, 4, "{attempts:?}");
    assert!(
        attempts[4] > 5 * (attempts[5] + attempts[6] + attempts[7]),
        "{attempts:?}"
    );
}

#[test]
fn it_samples_once_per_16_plus_twice_the_mean_length_decisions() {
    // Lone frames: a sample, then a wait of 16 + 2 x 1 decisions; candidates that are in the
    // chain (or slow, beyond two an interval) pass without a sample, so a little under 1 in 19.
    let mut m = minstrel_ht(false, 1);
    let mut now = 0;
    drive_frames(&mut m, &mut now, 1000, |i| i <= 4);
    let (_, samples) = drive_frames(&mut m, &mut now, 20_000, |i| i <= 4);
    let share = samples as f64 / 20_000.0;
    assert!(share > 1.0 / 24.0 && share <= 1.0 / 19.0 + 1e-4, "{share}");
    // A-MPDUs of 8 MPDUs: the mean length settles at 5 (the integer EWMA rounds down: 8 x 25 +
    // 5 x 75 is 575), a wait of 26.
    let mut m = minstrel_ht(true, 1);
    let (mut now, mut rng) = (0, Rng::stream(4, "channel"));
    let p = |i: usize| if i <= 4 { 1.0 } else { 0.0 };
    drive_ampdus(&mut m, &mut now, 1000, 8, p, &mut rng);
    assert_eq!(m.stations[0].avg_ampdu_len, 5);
    let (_, samples) = drive_ampdus(&mut m, &mut now, 20_000, 8, p, &mut rng);
    let share = samples as f64 / 20_000.0;
    assert!(share > 1.0 / 32.0 && share <= 1.0 / 27.0 + 1e-4, "{share}");
}

#[test]
fn at_most_eight_samples_an_interval() {
    // Back-to-back frames, 20 an ms: the waits would allow 50 samples in 50 ms.
    let mut m = minstrel_ht(false, 1);
    let mut samples_per_interval = std::collections::BTreeMap::new();
    for k in 0..20_000u64 {
        let now = k * 50 * MICROS;
        if m.stations[0].sampling {
            *samples_per_interval.entry(now / (50 * MILLIS)).or_insert(0) += 1;
        }
        let r = m.pick(0);
        if r <= 4 {
            m.on_data(0, r, Some(100.0), now);
        } else {
            m.on_data(0, r, None, now);
            let r = m.pick(0);
            m.on_data(0, r, Some(100.0), now);
        }
    }
    // An interval boundary falls between updates (they come when a packet ends): at most 8 per
    // update, which may straddle two of the buckets, and the 4 at the start.
    let most = samples_per_interval.values().copied().max().unwrap_or(0);
    assert!((4..=16).contains(&most), "{samples_per_interval:?}");
    let total: u32 = samples_per_interval.values().sum();
    let intervals = 20_000.0 * 50e-6 / 50e-3;
    assert!(f64::from(total) <= 8.0 * intervals + 4.0, "{total}");
}

#[test]
fn every_sample_table_entry_is_an_mcs_and_neighbours_draw_their_own() {
    let m = minstrel_ht(true, 3);
    for s in &m.stations {
        assert_eq!(s.sample_table.len(), 10 * 8);
        assert!(s.sample_table.iter().all(|&i| usize::from(i) < 8));
    }
    assert_ne!(m.stations[0].sample_table, m.stations[1].sample_table);
}

#[test]
fn a_ladder_below_mcs_7_never_samples_above_it() {
    let ladder = &HtConfig::default().rates()[..5];
    let mut m = MinstrelHt::new(
        MinstrelHtParams::NS3,
        ladder,
        &timing(),
        false,
        1,
        Rng::stream(1, "t"),
    );
    let mut now = 0;
    let (attempts, samples) = drive_frames(&mut m, &mut now, 3000, |_| true);
    assert!(samples > 0);
    assert_eq!(attempts[5..], [0, 0, 0]);
    assert_eq!(m.stations[0].max_tp, 4);
}
