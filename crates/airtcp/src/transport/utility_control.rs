//! Utility-based flow control for non-TCP flows: paper 000 (Seferoglu & Modiano, "TCP-Aware
//! Backpressure Routing and Scheduling", IEEE TMC 2016) eq. 5, the flow controller of Neely,
//! Modiano & Li (its ref. [3]).
//!
//! At every time slot t the source node i admits, for each flow s it originates, x_s(t) packets
//! into the flow's queue U_i^s, choosing
//!
//! ```text
//!     max_x  sum_s [ M g_s(x_s) - U_i^s(t) x_s ]   s.t.  sum_s x_s <= R_i^max,  x_s >= 0   (5)
//! ```
//!
//! with g_s the flow's utility: log(x) (proportional fairness) or the alpha-fair
//! x^(1-alpha) / (1-alpha) (Mo & Walrand; alpha -> 1 is log, alpha -> inf max-min). A long queue
//! (large U) means the network cannot carry more, so the source admits less; a larger M weighs
//! utility more against backlog, and §4.3 (eqs. 6, 7) picks M so that the admitted rate equals a
//! TCP flow's on the same path.
//!
//! Symbols: `m` = M, `backlog` = U_i^s(t) in packets, `r_max` = R_i^max in packets per slot, the
//! result x_s(t) in packets per slot. Closed form: g'(x) = x^(-alpha) (alpha = 1 for log), so
//! the KKT conditions give x_s = (M / (U_s + lambda))^(1/alpha), where lambda >= 0 is the price
//! of the R_max constraint: zero when the unconstrained optimum fits, else the value that makes
//! the x_s sum to R_max (found by bisection; the sum is strictly decreasing in lambda). A flow
//! with an empty queue would take an unbounded rate at lambda = 0; the budget caps it.
//!
//! Deviation: none in the optimisation. How often it runs (the slot) and what counts as U_i^s
//! belong to the application that uses it (`transport::udp::UtilitySource`).

/// Utility g_s of a flow's admitted rate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Utility {
    /// g(x) = log x.
    Log,
    /// g(x) = x^(1-alpha) / (1-alpha), alpha > 0 (alpha = 1 is treated as log).
    AlphaFair {
        /// Fairness parameter.
        alpha: f64,
    },
}

impl Utility {
    /// The exponent alpha of g'(x) = x^(-alpha).
    fn alpha(self) -> f64 {
        match self {
            Utility::Log => 1.0,
            Utility::AlphaFair { alpha } => alpha,
        }
    }

    /// g(x), for checks and reports.
    pub fn value(self, x: f64) -> f64 {
        let a = self.alpha();
        if a == 1.0 {
            x.ln()
        } else {
            x.powf(1.0 - a) / (1.0 - a)
        }
    }
}

/// One flow's terms in eq. 5.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FlowTerms {
    /// M, the weight of utility against backlog (> 0).
    pub m: f64,
    /// U_i^s(t), the flow's packets queued at its source (>= 0).
    pub backlog: f64,
    /// g_s.
    pub utility: Utility,
}

impl FlowTerms {
    /// The flow's best rate at price `lambda` (unbounded when backlog and price are both 0).
    fn rate_at(&self, lambda: f64) -> f64 {
        let price = self.backlog + lambda;
        if price <= 0.0 {
            return f64::INFINITY;
        }
        (self.m / price).powf(1.0 / self.utility.alpha())
    }
}

/// Solves eq. 5 for the flows of one node sharing `r_max` packets per slot: the admitted rate of
/// each flow, in packets per slot, in the order given. Panics on a negative or non-finite input
/// (the scenario checks reject those first).
pub fn admission_rates(flows: &[FlowTerms], r_max: f64) -> Vec<f64> {
    assert!(
        r_max.is_finite() && r_max >= 0.0,
        "r_max must be finite and >= 0"
    );
    for f in flows {
        assert!(f.m.is_finite() && f.m > 0.0, "M must be finite and > 0");
        assert!(
            f.backlog.is_finite() && f.backlog >= 0.0,
            "backlog must be >= 0"
        );
        assert!(f.utility.alpha() > 0.0, "alpha must be > 0");
    }
    let total = |lambda: f64| flows.iter().map(|f| f.rate_at(lambda)).sum::<f64>();
    if total(0.0) <= r_max {
        return flows.iter().map(|f| f.rate_at(0.0)).collect();
    }
    // Bracket the price, then bisect: the sum falls strictly as lambda grows.
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    while total(hi) > r_max {
        lo = hi;
        hi *= 2.0;
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if total(mid) > r_max {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    // At `hi` the rates fit the budget (never above it by rounding).
    flows.iter().map(|f| f.rate_at(hi)).collect()
}

/// Eq. 5 for a single flow: `min((M / U)^(1/alpha), r_max)`.
pub fn admission_rate(terms: FlowTerms, r_max: f64) -> f64 {
    admission_rates(&[terms], r_max)[0]
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn log(m: f64, backlog: f64) -> FlowTerms {
        FlowTerms {
            m,
            backlog,
            utility: Utility::Log,
        }
    }

    #[test]
    fn log_utility_admits_m_over_backlog() {
        // §4.3: the steady state of a log-utility flow is x = M / U.
        assert!((admission_rate(log(50.0, 10.0), 100.0) - 5.0).abs() < 1e-12);
        // An empty queue asks for everything; the cap holds it.
        assert_eq!(admission_rate(log(50.0, 0.0), 8.0), 8.0);
        // A long queue throttles hard.
        assert!((admission_rate(log(50.0, 500.0), 8.0) - 0.1).abs() < 1e-12);
    }

    #[test]
    fn alpha_fair_admits_the_alpha_root() {
        let t = FlowTerms {
            m: 100.0,
            backlog: 4.0,
            utility: Utility::AlphaFair { alpha: 2.0 },
        };
        // g'(x) = x^-2 = U / M  =>  x = sqrt(M / U) = 5.
        assert!((admission_rate(t, 100.0) - 5.0).abs() < 1e-12);
        // alpha = 1 is the log utility.
        let one = FlowTerms {
            utility: Utility::AlphaFair { alpha: 1.0 },
            ..t
        };
        assert!((admission_rate(one, 100.0) - 25.0).abs() < 1e-12);
    }

    #[test]
    fn a_shared_budget_is_split_by_marginal_utility() {
        // Two log flows, backlogs 0 and 2, M = 4, R_max = 3: KKT gives 4/l + 4/(2+l) = 3,
        // l = 2 (x = 2 and 1).
        let x = admission_rates(&[log(4.0, 0.0), log(4.0, 2.0)], 3.0);
        assert!(
            (x[0] - 2.0).abs() < 1e-9 && (x[1] - 1.0).abs() < 1e-9,
            "{x:?}"
        );
    }

    /// Objective of eq. 5.
    fn objective(flows: &[FlowTerms], x: &[f64]) -> f64 {
        flows
            .iter()
            .zip(x)
            .map(|(f, &x)| f.m * f.utility.value(x) - f.backlog * x)
            .sum()
    }

    proptest! {
        #[test]
        fn rates_are_feasible_and_optimal(
            raw in proptest::collection::vec((0.1f64..100.0, 0.0f64..200.0, 0.2f64..4.0, any::<bool>()), 1..5),
            r_max in 0.5f64..50.0,
        ) {
            let flows: Vec<FlowTerms> = raw
                .iter()
                .map(|&(m, backlog, alpha, is_log)| FlowTerms {
                    m,
                    backlog,
                    utility: if is_log { Utility::Log } else { Utility::AlphaFair { alpha } },
                })
                .collect();
            let x = admission_rates(&flows, r_max);
            let sum: f64 = x.iter().sum();
            prop_assert!(x.iter().all(|&v| v.is_finite() && v > 0.0), "{x:?}");
            prop_assert!(sum <= r_max * (1.0 + 1e-9), "sum {sum} > {r_max}");
            // No feasible move of budget between two flows, or from slack into one flow,
            // improves the objective.
            let best = objective(&flows, &x);
            let eps = 1e-4 * r_max;
            for i in 0..x.len() {
                if sum + eps <= r_max {
                    let mut y = x.clone();
                    y[i] += eps;
                    prop_assert!(objective(&flows, &y) <= best + 1e-9 * best.abs().max(1.0));
                }
                for j in 0..x.len() {
                    if i != j && x[j] > eps {
                        let mut y = x.clone();
                        y[i] += eps;
                        y[j] -= eps;
                        prop_assert!(
                            objective(&flows, &y) <= best + 1e-7 * best.abs().max(1.0),
                            "moving {eps} from {j} to {i} improves {best}"
                        );
                    }
                }
            }
        }

        #[test]
        fn more_backlog_never_admits_more(m in 0.1f64..100.0, u in 0.0f64..100.0, du in 0.0f64..100.0, r_max in 0.5f64..50.0) {
            let a = admission_rate(log(m, u), r_max);
            let b = admission_rate(log(m, u + du), r_max);
            prop_assert!(b <= a + 1e-12);
        }
    }
}
