//! BBR's state machine fed rate samples directly (the sender-level traces are in
//! `transport::tcp::tests::linux`).

use proptest::prelude::*;

use super::*;

fn sample(now: Time, delivered_total: u64, prior: u64, rate: f64, rtt: Time) -> RateSample {
    let interval = 100 * MILLIS;
    RateSample {
        now,
        delivered: (rate * 0.1).round() as u64,
        interval,
        prior_delivered: Some(prior),
        acked_sacked: 1,
        rtt: Some(rtt),
        prior_in_flight: 10,
        in_flight: 10,
        total_delivered: delivered_total,
        mss: 1000,
        ..RateSample::default()
    }
}

/// Legal moves of BBR v1's state machine (the draft's §4.3 figure): Startup -> Drain ->
/// ProbeBW (both on one ACK when the queue is already drained, as Linux's `bbr_check_drain`
/// does), any mode -> ProbeRTT, ProbeRTT -> ProbeBW or Startup.
fn legal(from: Mode, to: Mode) -> bool {
    use Mode::*;
    from == to
        || matches!(
            (from, to),
            (Startup, Drain | ProbeBw)
                | (Drain, ProbeBw)
                | (_, ProbeRtt)
                | (ProbeRtt, ProbeBw | Startup)
        )
}

/// A constant bottleneck: Startup's bandwidth stops growing, and three rounds later BBR drains.
#[test]
fn startup_ends_after_three_rounds_without_growth() {
    let mut bbr = Bbr::new(BbrParams::default());
    let mut state = CcState {
        cwnd: 10.0,
        ssthresh: f64::INFINITY,
    };
    let mut delivered = 0;
    let mut rounds_in_startup = 0;
    for round in 0..10u64 {
        let prior = delivered;
        delivered += 10;
        let rs = sample(round * 50 * MILLIS, delivered, prior, 200.0, 40 * MILLIS);
        bbr.cong_control(&mut state, &rs);
        if bbr.mode() == Mode::Startup {
            rounds_in_startup += 1;
        }
    }
    // Round 1 sets full_bw at the sample's 200/s; the first RTT seeds BtlBw with cwnd / RTT =
    // 250/s (ns-3's InitPacingRate), which round 2 counts as growth; rounds 3, 4, 5 show none.
    assert_eq!(rounds_in_startup, 4);
    assert_ne!(bbr.mode(), Mode::Startup);
    assert!(
        state.ssthresh < 20.0,
        "Drain sets ssthresh to the BDP: {}",
        state.ssthresh
    );
}

proptest! {
    /// Whatever the samples (rates, RTTs, losses, recovery states), BBR moves only along the
    /// state machine's edges, keeps at least 4 segments of window (exactly at most 4 in
    /// ProbeRTT, and never below 1 in recovery), and paces at a finite positive rate.
    #[test]
    fn the_state_machine_moves_only_along_its_edges(
        steps in proptest::collection::vec(
            (1u64..80, 0.0f64..2000.0, 5u64..200, 0u32..3, 0u8..3, 1u32..40), 1..300),
    ) {
        let mut bbr = Bbr::new(BbrParams::default());
        let mut state = CcState { cwnd: 10.0, ssthresh: f64::INFINITY };
        let (mut now, mut delivered) = (0, 0u64);
        for (dt, rate, rtt_ms, losses, ca, in_flight) in steps {
            now += dt * MILLIS;
            let prior = delivered;
            delivered += 1 + (rate / 100.0) as u64;
            let mut rs = sample(now, delivered, prior, rate, rtt_ms * MILLIS);
            rs.losses = losses;
            rs.in_flight = in_flight;
            rs.prior_in_flight = in_flight + 1;
            rs.ca_state = [CaState::Open, CaState::Recovery, CaState::Loss][ca as usize];
            let from = bbr.mode();
            bbr.cong_control(&mut state, &rs);
            let to = bbr.mode();
            prop_assert!(legal(from, to), "{:?} -> {:?}", from, to);
            prop_assert!(state.cwnd.is_finite() && state.cwnd >= 1.0);
            if to == Mode::ProbeRtt {
                prop_assert!(state.cwnd <= MIN_CWND);
            } else if rs.ca_state == CaState::Open {
                prop_assert!(state.cwnd >= MIN_CWND, "cwnd {}", state.cwnd);
            }
            if let Some(r) = bbr.pacing_rate() {
                prop_assert!(r.is_finite() && r >= 0.0);
            }
        }
    }
}

/// A flow that starts 30 s into a run does not take its first ACK for an expired RTprop
/// (the filter is 10 s long from the first sample, not from time zero).
#[test]
fn a_late_flow_does_not_start_in_probe_rtt() {
    let mut bbr = Bbr::new(BbrParams::default());
    let mut state = CcState {
        cwnd: 10.0,
        ssthresh: f64::INFINITY,
    };
    let rs = sample(30_000 * MILLIS, 10, 0, 200.0, 40 * MILLIS);
    bbr.cong_control(&mut state, &rs);
    assert_eq!(bbr.mode(), Mode::Startup);
}
