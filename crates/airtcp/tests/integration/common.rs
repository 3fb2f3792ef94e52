//! Helpers shared by the integration tests: scenario builders in the normalised JSON form.
#![allow(dead_code, unreachable_pub)]

use airtcp::metrics::results::RunResults;
use serde_json::{json, Value};

/// One millisecond in ns.
pub const MS: u64 = 1_000_000;
/// One second in ns.
pub const S: u64 = 1_000_000_000;

/// Two nodes A-B, `rate` bit/s, `delay` ns one way, one bulk TCP flow A->B.
pub fn p2p(rate: u64, delay: u64, per: f64, duration: u64, tcp: Value) -> Value {
    json!({
        "name": "p2p", "duration": duration, "seed": 1, "nodes": ["A", "B"],
        "links": [{"from": "A", "to": "B", "rate": rate, "delay": delay,
                   "queue": {"kind": "droptail", "packets": 100},
                   "loss": {"kind": "bernoulli", "per": per, "direction": "forward"}}],
        "flows": [{"id": "f1", "src": "A", "dst": "B", "app": {"kind": "bulk"},
                   "transport": tcp}]
    })
}

/// Runs a normalised scenario.
pub fn run(v: &Value) -> RunResults {
    let cfg = serde_json::from_value(v.clone()).expect("valid scenario");
    let r = airtcp::simulate(&cfg).expect("scenario builds");
    assert!(
        r.conservation.ok,
        "packet conservation violated: {:?}",
        r.conservation
    );
    r
}
