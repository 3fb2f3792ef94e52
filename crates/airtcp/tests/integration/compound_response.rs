//! Compound TCP's response function against its closed form (Tan et al., INFOCOM 2006).
//!
//! Where the path never queues (diff stays below gamma), the delay window grows by
//! alpha w^k per round trip and a loss cuts the whole window to (1 - beta) w. The deterministic
//! sawtooth between (1 - beta) W and W then gives, per loss cycle of 1/p packets,
//!   T = W^(1-k) (1 - b^(1-k)) / (alpha (1-k))  round trips,
//!   1/p = W^(2-k) (1 - b^(2-k)) / (alpha (2-k))  packets   (b = 1 - beta),
//! so W = [alpha (2-k) / (p (1 - b^(2-k)))]^(1/(2-k)) and the mean window is (1/p) / T: the
//! paper's W ~ p^(-1/(2-k)) = p^(-0.8) response, HighSpeed TCP's slope. Random (Bernoulli)
//! losses make cycles irregular, so the mean sits a little off the deterministic figure; the
//! test allows 25 % and checks the slope between two loss rates within 10 %.

use crate::common::*;
use serde_json::json;

/// Mean window of the deterministic sawtooth, segments.
fn closed_form(p: f64) -> f64 {
    let (alpha, beta, k) = (0.125f64, 0.5f64, 0.75f64);
    let b = 1.0 - beta;
    let w = (alpha * (2.0 - k) / (p * (1.0 - b.powf(2.0 - k)))).powf(1.0 / (2.0 - k));
    let rounds = w.powf(1.0 - k) * (1.0 - b.powf(1.0 - k)) / (alpha * (1.0 - k));
    (1.0 / p) / rounds
}

/// Mean window of a Compound flow over 1 Gbps, RTT 100 ms (never queueing), loss rate `p`.
fn measured(p: f64, seconds: u64) -> f64 {
    let tcp = json!({"kind": "tcp", "cc": "compound", "sack": true, "mss": 1000,
                     "rwnd": 1u64 << 30, "initial_ssthresh": 100});
    let mut v = p2p(1_000_000_000, 50 * MS, p, seconds * S, tcp);
    v["links"][0]["queue"]["packets"] = json!(100_000);
    let r = run(&v);
    // Goodput x RTT / segment: the mean window in segments (headers aside).
    r.flows[0].goodput_bps * 0.1 / 8000.0
}

#[test]
fn compound_follows_its_response_function_where_nothing_queues() {
    let mut ratios = Vec::new();
    for p in [1e-3, 1e-4] {
        let (w, c) = (measured(p, 300), closed_form(p));
        eprintln!(
            "p {p}: mean window {w:.1}, closed form {c:.1}, ratio {:.3}",
            w / c
        );
        assert!((w / c - 1.0).abs() < 0.25, "p {p}: {w:.1} vs {c:.1}");
        ratios.push(w);
    }
    // Ten times fewer losses: the window grows by 10^0.8 = 6.3 (Reno: 10^0.5 = 3.2).
    let slope = (ratios[1] / ratios[0]).log10();
    eprintln!("slope {slope:.3}");
    assert!((slope - 0.8).abs() < 0.08, "slope {slope}");
}
