//! Minstrel against channels whose answer per rate is known.

use super::*;
use crate::mac::timing::Timing;
use crate::phy::ofdm::RATES;

fn minstrel(neighbours: usize) -> Minstrel {
    let timing = Timing::dot11a(54_000_000, 6_000_000);
    Minstrel::new(
        MinstrelParams::NS3,
        &RATES,
        &timing,
        neighbours,
        Rng::stream(1, "t"),
    )
}

/// Sends `packets` packets to neighbour 0, one per ms, over a channel where an attempt at ladder
/// index `i` succeeds iff `works(i)`; returns the attempts per ladder index and the packets
/// that were samples (their first attempt off max_tp).
fn drive(m: &mut Minstrel, packets: usize, works: impl Fn(usize) -> bool) -> (Vec<u64>, usize) {
    let mut attempts = vec![0u64; RATES.len()];
    let mut now = 0;
    let mut samples = 0;
    for _ in 0..packets {
        now += MILLIS;
        let mut tries = 0;
        loop {
            let r = m.pick(0);
            if tries == 0 && r != m.stations[0].max_tp {
                samples += 1;
            }
            attempts[r] += 1;
            if works(r) {
                m.on_data(0, r, Some(100.0), now);
                break;
            }
            m.on_data(0, r, None, now);
            tries += 1;
            if tries >= m.chain_attempts(0) {
                m.on_given_up(0, now);
                break;
            }
        }
    }
    (attempts, samples)
}

#[test]
fn retry_counts_fill_six_milliseconds_of_airtime() {
    // 1200-byte frames with SIFS and ACK, the mean backoff growing from 31 slots: 2 attempts'
    // worth at 6 Mbps, 3 at 9 and 12, 4 from 18 up (ns-3 computes the same for 802.11a).
    let m = minstrel(1);
    assert_eq!(m.retry_counts, vec![2, 3, 3, 4, 4, 4, 4, 4]);
    assert_eq!(
        m.chain_attempts(0),
        2 + 2 + 2 + 2,
        "all four places are the lowest rate at first"
    );
}

#[test]
fn on_a_clean_channel_it_settles_on_the_top_rate_and_samples_a_tenth() {
    let mut m = minstrel(1);
    let (attempts, samples) = drive(&mut m, 3000, |_| true);
    assert_eq!(m.stations[0].max_tp, 7, "{attempts:?}");
    let total: u64 = attempts.iter().sum();
    assert_eq!(total, 3000, "no failures, one attempt a packet");
    // Sampling found every rate on the way up; once at the top, every sample is slower and so
    // deferred behind max_tp, which succeeds: first attempts leave max_tp rarely (at most the
    // look-around share of 10 %).
    assert!(attempts.iter().all(|&a| a > 0), "{attempts:?}");
    let share = samples as f64 / 3000.0;
    assert!(share > 0.0 && share < 0.1, "{share}");
    assert!(attempts[7] as f64 > 0.85 * total as f64, "{attempts:?}");
}

#[test]
fn it_settles_below_the_rates_that_fail_and_walks_the_retry_chain_down() {
    let mut m = minstrel(1);
    let (attempts, _) = drive(&mut m, 3000, |i| i <= 4);
    assert_eq!(m.stations[0].max_tp, 4, "{attempts:?}");
    // Samples of 36-54 Mbps fail and fall back through the chain; every packet gets through.
    let s = &m.stations[0];
    for i in 5..8 {
        assert!(
            s.rates[i].ewma_prob < 1800,
            "rate {i} {}",
            s.rates[i].ewma_prob
        );
        assert_eq!(
            s.rates[i].adjusted_retry_count, 2,
            "failing rates retry twice"
        );
    }
    assert!(
        attempts[4] > attempts[5] + attempts[6] + attempts[7],
        "{attempts:?}"
    );
}

#[test]
fn a_packet_is_given_up_after_its_chain_not_the_mac_limit() {
    let mut m = minstrel(1);
    // Nothing works: each packet uses its whole chain, then is given up.
    let allowed = m.chain_attempts(0);
    let (attempts, _) = drive(&mut m, 1, |_| false);
    assert_eq!(attempts.iter().sum::<u64>(), u64::from(allowed));
    assert_eq!(
        m.stations[0].long_retry, 0,
        "the next packet starts a new chain"
    );
}

#[test]
fn every_sample_table_column_holds_ladder_indices_only() {
    let m = minstrel(3);
    for s in &m.stations {
        assert_eq!(s.sample_table.len(), 10 * RATES.len());
        assert!(s.sample_table.iter().all(|&i| usize::from(i) < RATES.len()));
    }
    // Neighbours draw their own tables.
    assert_ne!(m.stations[0].sample_table, m.stations[1].sample_table);
}
