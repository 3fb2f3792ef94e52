//! The flow controller of paper 000 §3, eq. (5) (from Neely, Modiano & Li, "Fairness and optimal
//! stochastic control for heterogeneous networks", IEEE/ACM ToN 16(2), 2008): at every slot, each
//! node `i` admits `x_s(t)` packets of each flow `s` it sources into `U_i^s`, solving
//!
//! ```text
//!     max_x  Σ_{s: o(s) = i} [ M g_s(x_s) - U_i^s(t) x_s ]
//!     s.t.   Σ_{s: o(s) = i} x_s <= R_i^max,  x >= 0.
//! ```
//!
//! The problem is concave and separable apart from the shared cap, so its KKT conditions give
//! `x_s = h_s((U_i^s + ν) / M)`, with `h_s` the inverse of the marginal utility `g_s'` and `ν >= 0`
//! the cap's multiplier: `ν = 0` if the unconstrained choices fit under `R^max`, otherwise the `ν`
//! at which they sum to `R^max`, found by bisection (fixed iteration count, so the result is
//! deterministic and the cost per slot bounded).
//!
//! Utilities: `log x` (proportional fairness, used in the paper's §5 experiment), α-fair
//! `x^(1-α)/(1-α)` (§4.3, Mo & Walrand 2000), and the utility TCP-Reno implicitly maximises
//! (Appendix C): `g(x) = atan(√β T x) / (T √β)`, with `T` the round-trip time in slots (§4.2.2
//! prints `atan(√β T) x`; Appendix C's derivation gives the form used here).
//!
//! Deviation: the admitted amount `x_s(t)` is real-valued (as in eq. (5)); the slotted simulator
//! keeps real-valued queues for that reason.

use serde::{Deserialize, Serialize};

/// A flow's utility function `g_s` in eq. (5).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Utility {
    /// `g(x) = log x`.
    Log,
    /// `g(x) = x^(1-α) / (1-α)` for `α > 0` (`α = 1` is `log x`).
    AlphaFair {
        /// Fairness parameter α (> 0).
        alpha: f64,
    },
    /// TCP-Reno's implicit utility (paper 000, Appendix C): `g(x) = atan(√β T x) / (T √β)`, whose
    /// marginal is `1 / (1 + β T² x²)`.
    TcpReno {
        /// Round-trip time `T_s`, in slots.
        rtt: f64,
        /// Multiplicative decrease factor β of Appendix B (`0 < β < 1`; a window `W` drops by
        /// `β W` on a loss, so Reno's halving is 0.5).
        beta: f64,
    },
}

impl Utility {
    /// The rate at which the marginal utility equals `y`: `x = (g')^-1(y)`, never negative;
    /// `+inf` for `y <= 0` (a marginal that never falls that low).
    pub fn inverse_marginal(&self, y: f64) -> f64 {
        if y <= 0.0 {
            return f64::INFINITY;
        }
        match *self {
            Utility::Log => 1.0 / y,
            Utility::AlphaFair { alpha } => y.powf(-1.0 / alpha),
            Utility::TcpReno { rtt, beta } => {
                if y >= 1.0 {
                    0.0
                } else {
                    ((1.0 / y - 1.0) / (beta * rtt * rtt)).sqrt()
                }
            }
        }
    }

    /// Whether the parameters are usable (α, T and β positive and finite).
    pub fn is_valid(&self) -> bool {
        let pos = |v: f64| v.is_finite() && v > 0.0;
        match *self {
            Utility::Log => true,
            Utility::AlphaFair { alpha } => pos(alpha),
            Utility::TcpReno { rtt, beta } => pos(rtt) && pos(beta),
        }
    }
}

/// Bisection steps on the multiplier: 2^-100 of the bracket, far below `f64` resolution.
const BISECTION_STEPS: u32 = 100;

/// Solves eq. (5) at one node: `utilities[k]` and `backlogs[k]` (`U_i^s(t)`) describe the node's
/// `k`-th controlled flow; writes the admitted amounts `x_s(t)` into `admit[k]`. `m` is `M > 0`,
/// `r_max` is `R_i^max > 0`. Ties (several flows with equal marginal) get equal shares.
pub fn admit(m: f64, r_max: f64, utilities: &[Utility], backlogs: &[f64], admit: &mut [f64]) {
    let x = |k: usize, nu: f64| -> f64 {
        utilities[k]
            .inverse_marginal((backlogs[k] + nu) / m)
            .min(r_max)
    };
    let total = |nu: f64| -> f64 { (0..utilities.len()).map(|k| x(k, nu)).sum() };
    let nu = if total(0.0) <= r_max {
        0.0
    } else {
        // The sum falls as ν grows; bracket the root by doubling, then bisect. Past ν = M (a
        // marginal of 1 + U/M per flow) the sum can still exceed r_max, so keep doubling.
        let mut hi = m.max(1.0);
        let mut doublings = 0;
        while total(hi) > r_max && doublings < 1100 {
            hi *= 2.0;
            doublings += 1;
        }
        let mut lo = 0.0;
        for _ in 0..BISECTION_STEPS {
            let mid = 0.5 * (lo + hi);
            if total(mid) > r_max {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        hi
    };
    for (k, a) in admit.iter_mut().enumerate().take(utilities.len()) {
        *a = x(k, nu);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_utility_single_flow_admits_m_over_u() {
        let mut a = [0.0];
        admit(10.0, 5.0, &[Utility::Log], &[4.0], &mut a);
        assert!((a[0] - 2.5).abs() < 1e-12);
        // Empty queue: capped by R^max.
        admit(10.0, 5.0, &[Utility::Log], &[0.0], &mut a);
        assert!((a[0] - 5.0).abs() < 1e-9, "{}", a[0]);
    }

    #[test]
    fn shared_cap_is_split_by_the_kkt_conditions() {
        // Two log flows, backlogs 0 and 2, M = 1, R^max = 1: x1 = 1/ν, x2 = 1/(2 + ν),
        // x1 + x2 = 1  =>  ν = √2, x1 = 1/√2.
        let mut a = [0.0; 2];
        admit(1.0, 1.0, &[Utility::Log; 2], &[0.0, 2.0], &mut a);
        assert!((a[0] + a[1] - 1.0).abs() < 1e-9);
        assert!((a[0] - 1.0 / 2f64.sqrt()).abs() < 1e-9, "{a:?}");
        // Equal backlogs: equal shares.
        admit(1.0, 1.0, &[Utility::Log; 2], &[3.0, 3.0], &mut a);
        assert!((a[0] - a[1]).abs() < 1e-12);
    }

    #[test]
    fn inverse_marginals() {
        assert_eq!(
            Utility::AlphaFair { alpha: 2.0 }.inverse_marginal(0.25),
            2.0
        );
        assert!((Utility::AlphaFair { alpha: 1.0 }.inverse_marginal(0.5) - 2.0).abs() < 1e-12);
        let reno = Utility::TcpReno {
            rtt: 2.0,
            beta: 0.5,
        };
        // g'(x) = 1 / (1 + β T² x²): at x = 1, 1 / 3.
        assert!((reno.inverse_marginal(1.0 / 3.0) - 1.0).abs() < 1e-12);
        assert_eq!(reno.inverse_marginal(2.0), 0.0);
        assert_eq!(Utility::Log.inverse_marginal(0.0), f64::INFINITY);
        assert!(!Utility::AlphaFair { alpha: 0.0 }.is_valid());
    }
}
