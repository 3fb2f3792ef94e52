//! BBR v3's state machine and model fed rate samples directly (the sender-level traces are in
//! `transport::tcp::tests::bbr3`).

use proptest::prelude::*;

use super::*;
use crate::sim::rng::Rng;
use crate::transport::tcp::rate::RateStamp;

/// Feeds BBR v3 one sample per round trip: each ACK delivers `rate x rtt` segments and ends a
/// round (its newest segment was sent when the previous ACK arrived).
struct Feed {
    bbr: Bbr3,
    state: CcState,
    now: Time,
    delivered: u64,
}

impl Feed {
    fn new(params: Bbr3Params) -> Self {
        Feed {
            bbr: Bbr3::new(params),
            state: CcState {
                cwnd: 10.0,
                ssthresh: f64::INFINITY,
            },
            now: 0,
            delivered: 0,
        }
    }

    /// A sample of `rate` segments/s over `rtt`, `in_flight` in flight before and after.
    fn sample(&self, rate: f64, rtt: Time, in_flight: u32) -> RateSample {
        let delivered = ((rate * rtt as f64 / 1e9).round() as u64).max(1);
        RateSample {
            now: self.now + rtt,
            delivered,
            interval: rtt,
            prior_delivered: Some(self.delivered),
            acked_sacked: delivered as u32,
            rtt: Some(rtt),
            prior_in_flight: in_flight,
            in_flight,
            total_delivered: self.delivered + delivered,
            tx_in_flight: in_flight,
            mss: 1000,
            ..RateSample::default()
        }
    }

    /// Advances by one round trip with `rs` (from [`Feed::sample`], possibly changed).
    fn step(&mut self, rs: RateSample) -> Vec<Mode> {
        self.now = rs.now;
        self.delivered = rs.total_delivered;
        self.bbr.path.clear();
        self.bbr.cong_control(&mut self.state, &rs);
        std::mem::take(&mut self.bbr.path)
    }

    /// Rounds at 1000 segments/s and 40 ms (BDP 40), the window full up to the BDP, until `until` holds
    /// (at most `limit` rounds).
    fn run_until(&mut self, limit: usize, until: impl Fn(&Bbr3) -> bool) {
        for _ in 0..limit {
            if until(&self.bbr) {
                return;
            }
            // Paced at about the bottleneck rate, at most the BDP is in flight.
            let in_flight = (self.state.cwnd as u32).min(40);
            let rs = self.sample(1000.0, 40 * MILLIS, in_flight);
            self.step(rs);
        }
        assert!(
            until(&self.bbr),
            "not reached in {limit} rounds: {:?}",
            self.bbr.mode()
        );
    }
}

/// Legal moves of BBR v3's state machine (draft-ietf-ccwg-bbr-04 §5.1.1): Startup -> Drain ->
/// DOWN -> CRUISE -> REFILL -> UP -> DOWN; DOWN -> REFILL when it is time to probe before the
/// queue drained (and after a precautionary probe, at once); any state -> ProbeRTT -> CRUISE
/// (through DOWN, whose clock restarts) or Startup.
fn legal(from: Mode, to: Mode) -> bool {
    use Mode::*;
    from == to
        || matches!(
            (from, to),
            (Startup, Drain)
                | (Drain, Down)
                | (Down, Cruise | Refill)
                | (Cruise, Refill)
                | (Refill, Up)
                | (Up, Down)
                | (_, ProbeRtt)
                | (ProbeRtt, Down | Startup)
        )
}

#[test]
fn startup_ends_after_three_rounds_without_growth_and_drains() {
    let mut f = Feed::new(Bbr3Params::default());
    let mut startup_rounds = 0;
    let mut path = vec![Mode::Startup];
    for _ in 0..10 {
        let rs = f.sample(1000.0, 40 * MILLIS, 10);
        if f.bbr.mode() == Mode::Startup {
            startup_rounds += 1;
        }
        path.extend(f.step(rs));
    }
    // Round 1 sets full_bw; rounds 2, 3, 4 show no growth.
    assert_eq!(startup_rounds, 4);
    // 10 in flight is below the BDP of 40: Drain ends on the ACK that began it.
    assert_eq!(&path[..3], &[Mode::Startup, Mode::Drain, Mode::Down]);
    assert!(
        (f.state.ssthresh - 40.0).abs() < 1e-9,
        "{}",
        f.state.ssthresh
    );
    assert!((f.bbr.max_bw() - 1000.0).abs() < 1e-9);
    assert!(f.bbr.inflight_longterm().is_infinite(), "no loss: no bound");
}

/// §5.3.1.3: a round in fast recovery with more than 2 % lost in at least 6 loss events ends
/// Startup and sets `inflight_longterm` to max(BDP, the round's delivered volume).
#[test]
fn startup_ends_on_six_loss_events_above_two_percent() {
    for (events, ends) in [(5, false), (6, true)] {
        let mut f = Feed::new(Bbr3Params::default());
        // Growing rounds: the plateau test never fires.
        let mut rate = 200.0;
        for _ in 0..3 {
            rate *= 2.0;
            let rs = f.sample(rate, 40 * MILLIS, 30);
            f.step(rs);
        }
        assert_eq!(f.bbr.mode(), Mode::Startup);
        // One round of small ACKs in recovery, `events` of them marking a loss; the last one
        // ends the loss round (it acknowledges a segment sent after the round began).
        let base = f.delivered;
        let mut total_lost = 0;
        for i in 0..8u64 {
            total_lost += (i < events) as u64;
            let rs = RateSample {
                now: f.now + MILLIS,
                delivered: 16,
                interval: 40 * MILLIS,
                prior_delivered: Some(if i == 7 { base + 7 } else { base - 10 }),
                acked_sacked: 1,
                losses: (i < events) as u32,
                rtt: Some(40 * MILLIS),
                prior_in_flight: 50,
                in_flight: 50,
                total_delivered: base + 1 + i,
                total_lost,
                tx_in_flight: 50,
                ca_state: CaState::Recovery,
                mss: 1000,
                ..RateSample::default()
            };
            f.step(rs);
        }
        assert_eq!(f.bbr.mode() != Mode::Startup, ends, "{events} events");
        if ends {
            // BDP at 1600 segments/s x 40 ms = 64, above the round's largest sample (16).
            assert!((f.bbr.inflight_longterm() - 64.0).abs() < 1e-6);
        } else {
            assert!(f.bbr.inflight_longterm().is_infinite());
        }
    }
}

/// Drives a flow to ProbeBW_UP at 1000 segments/s x 40 ms.
fn in_probe_up() -> Feed {
    let mut f = Feed::new(Bbr3Params {
        probe_wait_base: 100 * MILLIS,
        probe_wait_random: 0,
        ..Bbr3Params::default()
    });
    f.run_until(200, |b| b.mode() == Mode::Up);
    f
}

/// §5.5.10.2: while probing, an ACK whose losses since its segment's send exceed 2 % of what
/// was then in flight sets `inflight_longterm` to that flight (at least 0.7 x the BDP) and ends
/// the probe; the next probe stops as soon as in flight reaches the bound (precautionary), and
/// if it lost nothing a full probe follows at once.
#[test]
fn a_lossy_probe_bounds_inflight_and_the_next_probe_stops_at_the_bound() {
    let mut f = in_probe_up();
    let mut rs = f.sample(1000.0, 40 * MILLIS, 48);
    rs.tx_in_flight = 48;
    rs.total_lost = 2; // 2 > 0.02 x 48
    rs.losses = 2;
    let path = f.step(rs);
    assert_eq!(path, vec![Mode::Down]);
    assert!((f.bbr.inflight_longterm() - 48.0).abs() < 1e-9);
    // DOWN drains to 0.85 x 48 = 40.8 and the BDP: then CRUISE, capped at 40.8.
    f.run_until(5, |b| b.mode() == Mode::Cruise);
    assert!(f.state.cwnd <= 40.8 + 1e-9, "{}", f.state.cwnd);
    // The probe after: REFILL, UP, and DOWN as soon as in flight reaches 48.
    f.run_until(200, |b| b.mode() == Mode::Up);
    let rs = f.sample(1000.0, 40 * MILLIS, 48);
    let rs = RateSample {
        tx_in_flight: 40,
        total_lost: 2,
        prior_lost: 2, // nothing new lost
        ..rs
    };
    assert_eq!(f.step(rs), vec![Mode::Down]);
    assert!(f.bbr.stopped_risky_probe);
    // No loss in that probe's feedback: REFILL at once, bypassing CRUISE.
    let rs = f.sample(1000.0, 40 * MILLIS, 40);
    let rs = RateSample {
        total_lost: 2,
        prior_lost: 2,
        ..rs
    };
    assert_eq!(f.step(rs), vec![Mode::Refill]);
}

/// The per-segment test (`HandleLostPacket`): the bound is the flight at which the losses
/// crossed 2 % (`InflightAtLoss`), and only segments sent while probing count.
#[test]
fn a_segment_lost_while_probing_sets_the_bound_where_losses_crossed_two_percent() {
    let mut f = in_probe_up();
    // REFILL -> UP set bw_probe_samples.
    assert!(f.bbr.bw_probe_samples);
    let lost = |tx: u32, lost_before: u64, total: u64| LostSegment {
        now: f.now,
        stamp: RateStamp {
            tx_in_flight: tx,
            lost: lost_before,
            ..RateStamp::default()
        },
        total_lost: total,
        delivered: f.delivered,
    };
    // 1 lost of 60: 1 <= 1.2, not too high.
    f.bbr.on_segment_lost(&lost(60, 0, 1));
    assert!(f.bbr.inflight_longterm().is_infinite());
    assert_eq!(f.bbr.mode(), Mode::Up);
    // 3 lost of 60: too high; 59 before it with 2 lost: (0.02 x 59 - 2) / 0.98 < 0, so the
    // crossing was at 59.
    f.bbr.on_segment_lost(&lost(60, 0, 3));
    assert!((f.bbr.inflight_longterm() - 59.0).abs() < 1e-9);
    assert_eq!(f.bbr.mode(), Mode::Down);
    // Once per probe: a later segment changes nothing.
    f.bbr.on_segment_lost(&lost(80, 0, 10));
    assert!((f.bbr.inflight_longterm() - 59.0).abs() < 1e-9);
    assert!((f.bbr.inflight_at_loss(100, 1) - (99.0 + 1.98 / 0.98)).abs() < 1e-9);
}

/// §5.5.10.3: between probes, each round with a loss cuts `bw_shortterm` and
/// `inflight_shortterm` to max(latest, 0.7 x bound), and REFILL forgets them.
#[test]
fn losses_between_probes_cut_the_short_term_bounds_once_per_round() {
    let mut f = Feed::new(Bbr3Params::default());
    f.run_until(50, |b| b.mode() == Mode::Cruise);
    // A round whose samples say 500 segments/s and 20 delivered, then one with a loss.
    let rs = f.sample(500.0, 40 * MILLIS, 20);
    f.step(rs);
    let cwnd = f.state.cwnd;
    let rs = f.sample(500.0, 40 * MILLIS, 20);
    let rs = RateSample {
        losses: 1,
        total_lost: 1,
        ..rs
    };
    f.step(rs);
    assert!((f.bbr.bw() - 700.0).abs() < 1e-6, "bw {}", f.bbr.bw());
    assert!((f.bbr.inflight_shortterm() - 0.7 * cwnd).abs() < 1e-6);
    assert!(f.state.cwnd <= 0.7 * cwnd + 1e-9);
    // A round without loss leaves them; the next probe forgets them.
    let rs = f.sample(500.0, 40 * MILLIS, 20);
    f.step(rs);
    assert!((f.bbr.bw() - 700.0).abs() < 1e-6);
    f.run_until(200, |b| b.mode() == Mode::Refill);
    assert!(f.bbr.inflight_shortterm().is_infinite() && f.bbr.bw() > 999.0);
}

/// `BBRProbeInflightLongtermUpward`: in UP, with the window full and at the bound, the bound
/// grows by 1 segment in the first round, 2 in the next, then 4 ...
#[test]
fn inflight_longterm_grows_one_two_four_segments_per_round_in_up() {
    let mut f = in_probe_up();
    f.bbr.inflight_hi = 40.0;
    f.bbr.bw_probe_up_rounds = 0;
    f.state.cwnd = 40.0;
    f.bbr.raise_inflight_hi_slope(40.0);
    let mut growth = Vec::new();
    for _ in 0..4 {
        let before = f.bbr.inflight_longterm();
        // One round's ACKs: 40 of one segment each, the last one ending the round.
        let base = f.delivered;
        for i in 0..40u64 {
            let mut rs = f.sample(1000.0, 40 * MILLIS, 40);
            rs.now = f.now + MILLIS;
            rs.acked_sacked = 1;
            rs.delivered = 40;
            rs.tx_in_flight = 0;
            rs.prior_in_flight = f.state.cwnd as u32;
            rs.prior_delivered = Some(if i == 39 { base + 39 } else { base - 1 });
            rs.total_delivered = base + 1 + i;
            f.step(rs);
            // Keep the window at the bound (as a sender that fills it would find it).
            f.state.cwnd = f.bbr.inflight_longterm();
            f.bbr.full_bw_now = false;
        }
        growth.push(f.bbr.inflight_longterm() - before);
    }
    assert_eq!(growth, vec![1.0, 2.0, 4.0, 8.0], "{growth:?}");
}

/// ProbeRTT: 5 s without a lower RTT, the window falls to half the BDP (at least 4) for 200 ms
/// and a round, then the flow cruises with its window restored.
#[test]
fn probe_rtt_every_five_seconds_at_half_the_bdp() {
    let mut f = Feed::new(Bbr3Params::default());
    let mut entered = None;
    let mut exited = None;
    let mut windows = Vec::new();
    let mut prior = Mode::Startup;
    while f.now < 6_000 * MILLIS {
        let in_flight = (f.state.cwnd as u32).min(40);
        // 40 ms RTT at first, 41 ms after (a standing queue): min_rtt is not refreshed.
        let rtt = if f.now == 0 { 40 } else { 41 } * MILLIS;
        let rs = f.sample(1000.0, rtt, in_flight);
        f.step(rs);
        if f.bbr.mode() == Mode::ProbeRtt {
            entered.get_or_insert(f.now);
            windows.push(f.state.cwnd);
        } else if prior == Mode::ProbeRtt {
            exited = Some((f.now, f.bbr.mode(), f.state.cwnd));
        }
        prior = f.bbr.mode();
    }
    let t0 = entered.expect("ProbeRTT entered");
    assert!(
        (5_000 * MILLIS..5_100 * MILLIS).contains(&t0),
        "entered at {t0}"
    );
    assert!(windows.iter().all(|&w| w <= 20.5 + 1e-9), "{windows:?}");
    let (t1, mode, cwnd) = exited.expect("ProbeRTT left");
    assert!(t1 - t0 >= 200 * MILLIS, "{}", t1 - t0);
    assert_eq!(mode, Mode::Cruise);
    assert!(cwnd > 30.0, "window restored: {cwnd}");
}

#[test]
fn the_probe_wait_is_two_to_three_seconds_and_zero_or_one_round() {
    let mut b = Bbr3::new(Bbr3Params::default());
    b.set_random(Rng::stream(7, "bbr3"));
    let mut rounds = [0; 2];
    for _ in 0..1000 {
        b.pick_probe_wait();
        assert!((2 * SECS..3 * SECS).contains(&b.probe_wait));
        rounds[b.rounds_since_probe as usize] += 1;
    }
    assert!(rounds[0] > 400 && rounds[1] > 400, "{rounds:?}");
}

#[test]
fn parameters_out_of_range_are_refused_with_their_path() {
    assert_eq!(Bbr3Params::default().check("t.bbr3"), Ok(()));
    let bad = [
        (
            Bbr3Params {
                loss_thresh: 0.0,
                ..Default::default()
            },
            "t.bbr3.loss_thresh",
        ),
        (
            Bbr3Params {
                beta: 1.5,
                ..Default::default()
            },
            "t.bbr3.beta",
        ),
        (
            Bbr3Params {
                headroom: 1.0,
                ..Default::default()
            },
            "t.bbr3.headroom",
        ),
        (
            Bbr3Params {
                startup_pacing_gain: 1.0,
                ..Default::default()
            },
            "t.bbr3.startup_pacing_gain",
        ),
        (
            Bbr3Params {
                drain_pacing_gain: 1.2,
                ..Default::default()
            },
            "t.bbr3.drain_pacing_gain",
        ),
        (
            Bbr3Params {
                probe_max_rounds: 0,
                ..Default::default()
            },
            "t.bbr3.probe_max_rounds",
        ),
        (
            Bbr3Params {
                probe_rtt_interval: 20 * SECS,
                ..Default::default()
            },
            "t.bbr3.probe_rtt_interval",
        ),
    ];
    for (p, path) in bad {
        assert_eq!(p.check("t.bbr3").unwrap_err().path, path);
    }
}

proptest! {
    /// Whatever the samples (rates, RTTs, losses, recovery states, app-limited samples,
    /// segments reported lost), BBR v3 moves only along the state machine's edges, also within
    /// one ACK; keeps at least 4 segments of window and at most the state's cap; and paces at a
    /// finite positive rate.
    #[test]
    fn the_state_machine_moves_only_along_its_edges(
        steps in proptest::collection::vec(
            (1u64..80, 0.0f64..2000.0, 5u64..200, 0u32..3, 0u8..3, 1u32..80, 0u32..120,
             any::<bool>(), 0u8..4),
            1..400),
    ) {
        let mut b = Bbr3::new(Bbr3Params::default());
        b.set_random(Rng::stream(1, "bbr3"));
        let mut state = CcState { cwnd: 10.0, ssthresh: f64::INFINITY };
        let (mut now, mut delivered, mut lost) = (0, 0u64, 0u64);
        for (dt, rate, rtt_ms, losses, ca, in_flight, tx, app_limited, extra) in steps {
            now += dt * MILLIS;
            let prior = delivered;
            delivered += 1 + (rate / 100.0) as u64;
            lost += losses as u64;
            if extra == 0 {
                // A segment marked lost on its own (as after a timeout).
                lost += 1;
                b.on_segment_lost(&LostSegment {
                    now,
                    stamp: RateStamp { tx_in_flight: tx, lost: lost.saturating_sub(3), ..RateStamp::default() },
                    total_lost: lost,
                    delivered,
                });
            }
            let rs = RateSample {
                now,
                delivered: (rate * 0.1).round() as u64,
                interval: 100 * MILLIS,
                prior_delivered: Some(if extra == 1 { prior.saturating_sub(5) } else { prior }),
                is_app_limited: app_limited,
                acked_sacked: 1,
                losses,
                rtt: Some(rtt_ms * MILLIS),
                prior_in_flight: in_flight + 1,
                in_flight,
                total_delivered: delivered,
                total_lost: lost,
                tx_in_flight: tx,
                prior_lost: lost.saturating_sub(losses as u64 + (extra == 2) as u64),
                ca_state: [CaState::Open, CaState::Recovery, CaState::Loss][ca as usize],
                mss: 1000,
            };
            let from = b.mode();
            b.path.clear();
            b.cong_control(&mut state, &rs);
            let mut at = from;
            for &to in &b.path {
                prop_assert!(legal(at, to), "{:?} -> {:?} (path {:?})", at, to, b.path);
                at = to;
            }
            prop_assert_eq!(at, b.mode());
            prop_assert!(state.cwnd.is_finite() && state.cwnd >= MIN_CWND, "cwnd {}", state.cwnd);
            let cap = match b.mode() {
                Mode::Down | Mode::Refill | Mode::Up => b.inflight_hi,
                Mode::Cruise | Mode::ProbeRtt => b.inflight_with_headroom(),
                Mode::Startup | Mode::Drain => f64::INFINITY,
            };
            prop_assert!(state.cwnd <= cap.min(b.inflight_lo).max(MIN_CWND) + 1e-9);
            if b.mode() == Mode::ProbeRtt {
                prop_assert!(state.cwnd <= b.probe_rtt_cwnd() + 1e-9);
            }
            if let Some(r) = b.pacing_rate() {
                prop_assert!(r.is_finite() && r > 0.0, "pacing {}", r);
            }
        }
    }
}
