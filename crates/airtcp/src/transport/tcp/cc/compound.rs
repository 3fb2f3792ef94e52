//! Compound TCP: K. Tan, J. Song, Q. Zhang and M. Sridharan, "A Compound TCP Approach for
//! High-Speed and Long Distance Networks", IEEE INFOCOM 2006, §III.
//!
//! The sending window is the sum of a loss-based (Reno) window and a delay-based window:
//! win = min(cwnd + dwnd, awnd). Symbols of the paper and their names here (windows in segments):
//!
//! | paper      | here                                | meaning |
//! |------------|-------------------------------------|---------|
//! | win        | `CcState::cwnd` (sum), `Round::win` | the sending window; awnd (rwnd) is applied by the sender |
//! | cwnd       | `lwnd`                              | loss-based component, Reno's window |
//! | dwnd       | `dwnd`                              | delay-based component |
//! | baseRTT    | `base_rtt`                          | smallest RTT seen |
//! | RTT        | `Round::min_rtt`                    | RTT of the last round (see below) |
//! | diff       | `last_diff`                         | win (1 - baseRTT / RTT): the flow's backlog estimate, packets |
//! | alpha, k   | `params.alpha` (1/8), `params.k` (3/4) | increase alpha win^k per round |
//! | beta       | `params.beta` (1/2)                 | multiplicative decrease of win at a loss |
//! | gamma      | `params.gamma` (30 packets)         | backlog threshold |
//! | zeta       | `params.zeta` (1)                   | decrease of dwnd per packet of backlog |
//!
//! Rules:
//! - Loss-based component, per ACK: slow start cwnd += 1 (RFC 5681, as the simulator's `reno`);
//!   congestion avoidance cwnd += 1 / (cwnd + dwnd), so that cwnd itself still grows by one
//!   segment per round trip although win ACKs arrive per round.
//! - Delay-based component, once per round trip in congestion avoidance:
//!   Expected = win / baseRTT, Actual = win / RTT, diff = (Expected - Actual) baseRTT, and
//!   dwnd += (alpha win^k - 1)^+ if diff < gamma, dwnd = (dwnd - zeta diff)^+ if diff >= gamma.
//!   Together with the loss window's +1 the whole window grows by alpha win^k per round (the
//!   binomial increase of HSTCP's response function with k = 3/4) until the backlog reaches gamma,
//!   after which dwnd gives back what cwnd adds.
//! - At a loss: cwnd = cwnd / 2, dwnd = (win (1 - beta) - cwnd / 2)^+, so win becomes
//!   max(win (1 - beta), cwnd / 2); this is the slow-start threshold handed to the sender.
//!
//! Deviations and interpretations (the paper gives the difference equations, not the
//! bookkeeping):
//! - Rounds: the sender does not pass sequence numbers, so a round is counted in segments: it
//!   starts at an ACK with the segments still outstanding after it, and ends when ACKs have
//!   covered that many, which is when Linux's `snd_nxt` marker would be passed.
//! - RTT of a round: the smallest sample taken during it (Karn's rule applied by the sender), as
//!   the Linux and ns-3 ports do, so that a sample from a delayed ACK does not look like queueing.
//!   baseRTT is the smallest sample of the connection. A round without samples leaves dwnd alone.
//! - win in the per-round rule is the number of segments in flight at the start of the round:
//!   the window those RTT samples measured, which is min(cwnd + dwnd, awnd) for a window-limited
//!   flow. dwnd does not grow in a round in which the flow was not window-limited (fewer than
//!   floor(window) - 1 segments in flight), because win = min(cwnd + dwnd, awnd) makes growth
//!   beyond what is used meaningless (the Linux port checks the same).
//! - The per-round change of dwnd is applied at once at the end of the round (the difference
//!   equation taken literally, as the Linux port does), not spread over the next round's ACKs.
//! - The delay-based component acts only in congestion avoidance; dwnd is 0 in slow start, which
//!   only happens at the start and after a timeout.
//! - win at a loss is the amount the sender computes ssthresh from (`ssthresh_basis`:
//!   FlightSize by default, the window with `cwnd`), and the halved loss window is
//!   min(cwnd, that amount) / 2, so that with the default basis the rule reduces to RFC 5681's
//!   when dwnd = 0. The result has RFC 5681's floor of two segments.
//! - Loss recovery is the sender's (NewReno or SACK), unchanged. When the sender itself sets the
//!   window (end of NewReno recovery: min(ssthresh, FlightSize + 1)), both components are scaled
//!   by the same factor; a larger window goes to cwnd.
//! - After a timeout the sender restarts from one segment (RFC 5681); dwnd is reset to 0 and the
//!   window slow-starts as at the beginning.
//! - gamma is fixed, as in the paper; the automatic gamma tuning of later versions (the IETF
//!   draft, the Linux port) is not implemented.

use super::check_within;
use super::{AckSample, CcState, CongestionControl, CongestionEvent};
use crate::error::ConfigError;
use crate::sim::Time;
use serde::{Deserialize, Serialize};

/// One round trip's bookkeeping.
#[derive(Debug, Clone, Copy)]
struct Round {
    /// Segments still to be acknowledged before the round ends.
    remaining: i64,
    /// Segments in flight when it started (the paper's win).
    win: f64,
    /// Whether the flow was window-limited when it started.
    limited: bool,
    /// Smallest RTT sample taken in it.
    min_rtt: Option<Time>,
}

/// Compound TCP (Tan et al. 2006).
#[derive(Debug, Clone)]
pub struct Compound {
    params: CompoundParams,
    lwnd: f64,
    dwnd: f64,
    base_rtt: Option<Time>,
    round: Option<Round>,
    last_diff: f64,
}

impl Compound {
    /// A Compound controller with the given constants.
    pub fn new(params: CompoundParams) -> Self {
        Compound {
            params,
            lwnd: 0.0,
            dwnd: 0.0,
            base_rtt: None,
            round: None,
            last_diff: 0.0,
        }
    }

    /// The loss-based window (the paper's cwnd), segments.
    pub fn lwnd(&self) -> f64 {
        self.lwnd
    }

    /// The delay-based window, segments.
    pub fn dwnd(&self) -> f64 {
        self.dwnd
    }

    /// diff of the last completed round, packets.
    pub fn diff(&self) -> f64 {
        self.last_diff
    }

    /// Makes the components add up to the window, which the sender sets itself in loss recovery
    /// and after a timeout.
    fn sync(&mut self, window: f64) {
        let total = self.lwnd + self.dwnd;
        if window < total {
            let f = window / total;
            self.lwnd *= f;
            self.dwnd *= f;
        } else if window > total {
            self.lwnd += window - total;
        }
    }

    fn start_round(&mut self, in_flight: u32, acked: u32, window: f64) {
        self.round = Some(Round {
            remaining: (in_flight as i64 - acked as i64).max(1),
            win: in_flight as f64,
            limited: in_flight as f64 >= window.floor() - 1.0,
            min_rtt: None,
        });
    }

    /// The per-round rule for dwnd (§III, the dwnd difference equation).
    fn end_round(&mut self, round: Round) {
        let (Some(rtt), Some(base)) = (round.min_rtt, self.base_rtt) else {
            return;
        };
        let p = self.params;
        let win = round.win;
        let diff = win * (1.0 - base as f64 / rtt as f64);
        self.last_diff = diff;
        if diff < p.gamma {
            if round.limited {
                self.dwnd += (p.alpha * win.powf(p.k) - 1.0).max(0.0);
            }
        } else {
            self.dwnd = (self.dwnd - p.zeta * diff).max(0.0);
        }
    }
}

impl CongestionControl for Compound {
    fn name(&self) -> &'static str {
        "compound"
    }

    fn on_ack(&mut self, state: &mut CcState, ack: &AckSample) {
        if ack.acked == 0 {
            return;
        }
        self.sync(state.cwnd);
        if let Some(r) = ack.rtt {
            self.base_rtt = Some(self.base_rtt.map_or(r, |b| b.min(r)));
        }
        let slow_start = state.in_slow_start();
        if slow_start {
            self.lwnd += 1.0;
        } else {
            self.lwnd += 1.0 / (self.lwnd + self.dwnd);
        }
        match self.round.as_mut() {
            None => self.start_round(ack.in_flight, ack.acked, state.cwnd),
            Some(round) => {
                if let Some(r) = ack.rtt {
                    round.min_rtt = Some(round.min_rtt.map_or(r, |m| m.min(r)));
                }
                round.remaining -= ack.acked as i64;
                if round.remaining <= 0 {
                    let done = *round;
                    if !slow_start {
                        self.end_round(done);
                    }
                    self.start_round(ack.in_flight, ack.acked, state.cwnd);
                }
            }
        }
        state.cwnd = self.lwnd + self.dwnd;
    }

    fn ssthresh(&mut self, state: &CcState, in_flight: f64) -> f64 {
        self.sync(state.cwnd);
        let beta = self.params.beta;
        let lwnd = self.lwnd.min(in_flight) / 2.0;
        let dwnd = (in_flight * (1.0 - beta) - lwnd).max(0.0);
        let ssthresh = (lwnd + dwnd).max(2.0);
        self.lwnd = ssthresh - dwnd;
        self.dwnd = dwnd;
        self.round = None;
        ssthresh
    }

    fn on_event(&mut self, state: &mut CcState, event: CongestionEvent, _now: Time) {
        self.round = None;
        if event == CongestionEvent::Rto {
            self.lwnd = state.cwnd;
            self.dwnd = 0.0;
        }
    }

    fn metrics(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("lwnd", self.lwnd),
            ("dwnd", self.dwnd),
            ("diff", self.last_diff),
            (
                "base_rtt_s",
                self.base_rtt.map_or(f64::NAN, |b| b as f64 * 1e-9),
            ),
        ]
    }
}

/// Compound TCP's constants (Tan, Song, Zhang & Sridharan, INFOCOM 2006, §III-C). See
/// `docs/compound.md`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CompoundParams {
    /// alpha of the delay window's increase alpha win^k per round (> 0; paper: 1/8).
    #[serde(default = "default_compound_alpha")]
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub alpha: f64,
    /// beta, the multiplicative decrease of the whole window at a loss, in (0, 1) (paper: 1/2).
    #[serde(default = "default_compound_beta")]
    #[schemars(extend("exclusiveMinimum" = 0), extend("exclusiveMaximum" = 1))]
    pub beta: f64,
    /// k, the exponent of the increase, in (0, 1] (paper: 0.75).
    #[serde(default = "default_compound_k")]
    #[schemars(range(max = 1), extend("exclusiveMinimum" = 0))]
    pub k: f64,
    /// gamma, the backlog threshold, packets (> 0; paper: 30).
    #[serde(default = "default_compound_gamma")]
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub gamma: f64,
    /// zeta, how fast the delay window shrinks per packet of backlog (> 0; paper: 1).
    #[serde(default = "default_compound_zeta")]
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub zeta: f64,
}

impl CompoundParams {
    /// Checks the block's values (at `p`, e.g. `flows[0].transport.compound`), worded as the Python
    /// front end words them.
    pub fn check(&self, p: &str) -> Result<(), ConfigError> {
        let open = (false, false);
        check_within(format!("{p}.alpha"), self.alpha, (0.0, f64::INFINITY), open)?;
        check_within(format!("{p}.beta"), self.beta, (0.0, 1.0), open)?;
        check_within(format!("{p}.k"), self.k, (0.0, 1.0), (false, true))?;
        check_within(format!("{p}.gamma"), self.gamma, (0.0, f64::INFINITY), open)?;
        check_within(format!("{p}.zeta"), self.zeta, (0.0, f64::INFINITY), open)
    }
}

impl Default for CompoundParams {
    fn default() -> Self {
        serde_json::from_str("{}").expect("all Compound parameters have defaults")
    }
}

fn default_compound_alpha() -> f64 {
    0.125
}
fn default_compound_beta() -> f64 {
    0.5
}
fn default_compound_k() -> f64 {
    0.75
}
fn default_compound_gamma() -> f64 {
    30.0
}
fn default_compound_zeta() -> f64 {
    1.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::time::MILLIS;

    const BASE: Time = 100 * MILLIS;

    /// A window-limited flow over a path whose RTT the test chooses round by round.
    struct Flow {
        cc: Compound,
        state: CcState,
        now: Time,
    }

    impl Flow {
        fn new(params: CompoundParams, cwnd: f64) -> Self {
            let mut f = Flow {
                cc: Compound::new(params),
                state: CcState {
                    cwnd,
                    ssthresh: 1.0,
                },
                now: 0,
            };
            // One round at the propagation delay fixes baseRTT.
            f.round(|_| BASE, |_, _| {});
            f
        }

        /// One round trip: an ACK per segment of the window, each with the RTT `rtt(window)`
        /// gives; `seen(before, after)` gets (dwnd, diff) around each ACK.
        fn round(
            &mut self,
            rtt: impl Fn(f64) -> Time,
            mut seen: impl FnMut((f64, f64), (f64, f64)),
        ) {
            let w = self.state.cwnd.floor().max(1.0);
            let r = rtt(w);
            for _ in 0..w as u64 {
                self.now += r / w as u64;
                let before = (self.cc.dwnd(), self.cc.diff());
                let ack = AckSample {
                    now: self.now,
                    acked: 1,
                    rtt: Some(r),
                    min_rtt: Some(BASE),
                    srtt: Some(r),
                    in_flight: self.state.cwnd.floor() as u32,
                };
                self.cc.on_ack(&mut self.state, &ack);
                seen(before, (self.cc.dwnd(), self.cc.diff()));
            }
        }
    }

    #[test]
    fn constants_are_the_papers() {
        let p = CompoundParams::default();
        assert_eq!(
            (p.alpha, p.beta, p.k, p.gamma, p.zeta),
            (0.125, 0.5, 0.75, 30.0, 1.0)
        );
    }

    #[test]
    fn delay_window_grows_below_gamma_and_shrinks_above() {
        let mut f = Flow::new(CompoundParams::default(), 40.0);
        let (mut grew, mut shrank) = (0, 0);
        let mut check = |before: (f64, f64), after: (f64, f64)| {
            if after.0 != before.0 {
                // dwnd changed at the end of a round, whose diff is `after.1`.
                if after.1 < 30.0 {
                    assert!(
                        after.0 > before.0,
                        "diff {} but dwnd {} -> {}",
                        after.1,
                        before.0,
                        after.0
                    );
                    grew += 1;
                } else {
                    assert!(
                        after.0 < before.0,
                        "diff {} but dwnd {} -> {}",
                        after.1,
                        before.0,
                        after.0
                    );
                    shrank += 1;
                }
            }
        };
        // No queueing: diff = 0 and dwnd grows by alpha win^k - 1 each round.
        for _ in 0..10 {
            f.round(|_| BASE, &mut check);
        }
        // 20 ms of queueing: diff = win / 6, below gamma while win < 180.
        for _ in 0..5 {
            f.round(|_| 120 * MILLIS, &mut check);
        }
        let peak = f.cc.dwnd();
        assert!(peak > 15.0, "dwnd {peak}");
        // 200 ms of queueing: diff = 2 win / 3 > gamma, dwnd falls by diff each round, to zero.
        for _ in 0..5 {
            f.round(|_| 300 * MILLIS, &mut check);
        }
        assert!(grew >= 14 && shrank >= 1, "grew {grew} shrank {shrank}");
        assert_eq!(f.cc.dwnd(), 0.0);
        // The loss window kept growing by one segment per round throughout.
        assert!(f.cc.lwnd() > 55.0, "lwnd {}", f.cc.lwnd());
    }

    #[test]
    fn one_round_adds_alpha_win_to_the_k_minus_one() {
        let mut f = Flow::new(CompoundParams::default(), 100.0);
        let mut steps = Vec::new();
        for _ in 0..3 {
            f.round(
                |_| BASE,
                |b: (f64, f64), a: (f64, f64)| {
                    if a.0 != b.0 {
                        steps.push(a.0 - b.0);
                    }
                },
            );
        }
        // win ~ 100-130 segments: alpha win^0.75 - 1 = 2.95 .. 3.56.
        assert!(!steps.is_empty());
        for s in steps {
            assert!((2.9..3.7).contains(&s), "step {s}");
        }
        // Below one segment, alpha win^k - 1 is negative: dwnd does not grow at all.
        let mut g = Flow::new(CompoundParams::default(), 8.0);
        for _ in 0..5 {
            g.round(|_| BASE, |_, _| {});
        }
        assert_eq!(g.cc.dwnd(), 0.0, "8^0.75 / 8 = 0.59 < 1");
    }

    #[test]
    fn on_a_bottleneck_the_backlog_settles_near_gamma() {
        // 1000 packets/s, 100 ms propagation: BDP 100 packets, unlimited buffer. RTT = base +
        // backlog / capacity.
        let mut f = Flow::new(CompoundParams::default(), 20.0);
        let rtt = |w: f64| BASE + ((w - 100.0).max(0.0) * MILLIS as f64) as Time;
        let mut diffs = Vec::new();
        for _ in 0..150 {
            f.round(rtt, |_, _| {});
            diffs.push((f.cc.diff(), f.cc.dwnd()));
        }
        // dwnd grows binomially while there is no backlog (below 16 segments alpha win^k < 1
        // and only the loss window grows), until the backlog reaches gamma.
        let first = diffs
            .iter()
            .position(|&(d, _)| d >= 30.0)
            .expect("reaches gamma");
        assert!(first < 60, "gamma reached after {first} rounds");
        // From then on, as long as there is a delay window, the backlog saws between a few
        // packets (just after dwnd fell by diff) and just above gamma; the loss window grows
        // into the delay window's place until dwnd is gone and Reno alone remains.
        let settled: Vec<f64> = diffs[first..]
            .iter()
            .filter(|&&(_, dwnd)| dwnd > 0.0)
            .map(|&(d, _)| d)
            .collect();
        assert!(settled.len() > 30, "{diffs:?}");
        let mean = settled.iter().sum::<f64>() / settled.len() as f64;
        assert!(settled.iter().all(|&d| d < 36.0), "{diffs:?}");
        assert!(
            (10.0..30.0).contains(&mean),
            "mean backlog {mean}: {diffs:?}"
        );
        let gone = diffs.iter().rposition(|&(_, dwnd)| dwnd > 0.0).unwrap();
        assert!(gone > first + 30 && gone < diffs.len() - 10, "{diffs:?}");
        assert!(diffs[diffs.len() - 1].0 > 60.0, "{diffs:?}");
    }

    #[test]
    fn a_loss_halves_the_window_and_keeps_what_dwnd_can() {
        let mut cc = Compound::new(CompoundParams::default());
        cc.lwnd = 40.0;
        cc.dwnd = 60.0;
        let s = CcState {
            cwnd: 100.0,
            ssthresh: 10.0,
        };
        // win 100: cwnd -> 20, dwnd = 100 / 2 - 20 = 30.
        assert_eq!(cc.ssthresh(&s, 100.0), 50.0);
        assert_eq!((cc.lwnd(), cc.dwnd()), (20.0, 30.0));
        // A loss with only 30 segments in flight (the basis is FlightSize).
        let s = CcState {
            cwnd: 50.0,
            ssthresh: 50.0,
        };
        assert_eq!(cc.ssthresh(&s, 30.0), 15.0);
        assert_eq!((cc.lwnd(), cc.dwnd()), (10.0, 5.0));
        // The loss window alone: Reno's halving, floor of two.
        let mut cc = Compound::new(CompoundParams::default());
        let s = CcState {
            cwnd: 3.0,
            ssthresh: 1.0,
        };
        assert_eq!(cc.ssthresh(&s, 3.0), 2.0);
    }

    #[test]
    fn slow_start_is_renos_and_a_timeout_clears_dwnd() {
        let mut cc = Compound::new(CompoundParams::default());
        let mut s = CcState {
            cwnd: 10.0,
            ssthresh: f64::INFINITY,
        };
        for i in 0..20 {
            let ack = AckSample {
                now: i * MILLIS,
                acked: 2,
                rtt: Some(BASE),
                min_rtt: Some(BASE),
                srtt: Some(BASE),
                in_flight: s.cwnd as u32,
            };
            cc.on_ack(&mut s, &ack);
        }
        assert_eq!((s.cwnd, cc.dwnd()), (30.0, 0.0));
        cc.dwnd = 12.0;
        cc.lwnd = 18.0;
        s.ssthresh = cc.ssthresh(&s, 30.0);
        s.cwnd = 1.0;
        cc.on_event(&mut s, CongestionEvent::Rto, 0);
        assert_eq!((cc.lwnd(), cc.dwnd()), (1.0, 0.0));
    }

    #[test]
    fn a_window_set_by_the_sender_scales_both_components() {
        let mut cc = Compound::new(CompoundParams::default());
        cc.lwnd = 30.0;
        cc.dwnd = 10.0;
        cc.sync(20.0);
        assert_eq!((cc.lwnd, cc.dwnd), (15.0, 5.0));
        cc.sync(25.0);
        assert_eq!((cc.lwnd, cc.dwnd), (20.0, 5.0));
    }
}
