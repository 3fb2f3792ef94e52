//! The per-radio bookkeeping around a manager: counts per rate, the change trace.

use super::aarf::{Aarf, AarfParams};
use super::*;

fn arf(neighbours: usize) -> RateControl {
    let ladder = vec![1_000_000, 2_000_000, 5_500_000, 11_000_000];
    RateControl::new(
        ladder,
        Box::new(Aarf::new(AarfParams::ARF, 4, neighbours)),
        neighbours,
    )
}

#[test]
fn counts_each_data_attempt_at_its_rate_and_traces_changes() {
    let mut rc = arf(2);
    rc.trace_changes();
    let mut now = 0;
    // Ten acknowledged frames at 1 Mbps raise neighbour 1's rate; the probe at 2 Mbps fails.
    for _ in 0..10 {
        let rate = rc.rate(1, now);
        assert_eq!(rate, 1_000_000);
        rc.feedback(1, RateFeedback::Acked { rate, snr: 10.0 }, now);
        now += 1;
    }
    let probe = rc.rate(1, now);
    assert_eq!(probe, 2_000_000);
    rc.feedback(1, RateFeedback::Lost { rate: probe }, now);
    assert_eq!(rc.rate(1, now + 1), 1_000_000, "the retry falls back");
    let counts: Vec<_> = rc.counts(1).collect();
    assert_eq!(
        counts[0],
        (
            1_000_000,
            RateCount {
                attempts: 10,
                acked: 10
            }
        )
    );
    assert_eq!(
        counts[1],
        (
            2_000_000,
            RateCount {
                attempts: 1,
                acked: 0
            }
        )
    );
    assert!(rc.counts(0).all(|(_, c)| c == RateCount::default()));
    let changes: Vec<_> = rc.changes().collect();
    assert_eq!(
        changes,
        vec![(0, 1, 1_000_000), (10, 1, 2_000_000), (11, 1, 1_000_000)]
    );
}

#[test]
fn a_rate_off_the_ladder_counts_at_the_rung_below() {
    let mut rc = arf(1);
    rc.feedback(0, RateFeedback::Lost { rate: 3_000_000 }, 0);
    rc.feedback(
        0,
        RateFeedback::Acked {
            rate: 500_000,
            snr: 1.0,
        },
        0,
    );
    let counts: Vec<_> = rc.counts(0).map(|(_, c)| c.attempts).collect();
    assert_eq!(counts, vec![1, 1, 0, 0]);
}
