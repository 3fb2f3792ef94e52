//! `radio.frame_error`: every frame (data, RTS, CTS, ACK) lost at every receiver with one
//! probability, independently per frame and receiver (paper 001's 15 % loss on every link),
//! unless the pair has a `link_errors` process of its own. A sends CBR to R without MAC retries;
//! O, in range of both, overhears A's data frames.

use crate::common::*;
use serde_json::{json, Value};

fn scenario(rts: bool, frame_error: f64, link_errors: Value) -> Value {
    let app = json!({"kind": "cbr", "rate": 200_000, "packet_size": 500});
    json!({
        "name": "frame-error", "duration": 200 * S, "seed": 9,
        "radio": {"standard": "802.11b", "data_rate": 2_000_000, "basic_rate": 1_000_000,
                  "rts_cts": rts, "propagation": {"kind": "range", "range": 250.0},
                  "short_retry_limit": 0, "long_retry_limit": 0, "frame_error": frame_error},
        "topology": {"kind": "explicit", "nodes": [
            {"name": "A", "x": 0.0, "y": 0.0}, {"name": "R", "x": 200.0, "y": 0.0},
            {"name": "O", "x": 100.0, "y": 100.0}]},
        "link_errors": link_errors,
        "flows": [{"id": "a", "src": "A", "dst": "R", "start": 0, "app": app,
                   "transport": {"kind": "udp"}}]
    })
}

/// (attempts, answered, overheard by O) of A's frames.
fn counts(v: &Value) -> (f64, f64, f64) {
    let r = run(v);
    let link = |from: &str, to: &str| r.links.iter().find(|l| l.from == from && l.to == to);
    let ar = link("A", "R").expect("A sent to R");
    let overheard = link("A", "O").map_or(0, |l| l.overheard);
    (ar.attempts as f64, ar.answered as f64, overheard as f64)
}

/// Within 4 standard deviations of a binomial proportion.
fn near(got: f64, p: f64, n: f64) -> bool {
    (got - p).abs() <= 4.0 * (p * (1.0 - p) / n).sqrt()
}

#[test]
fn every_frame_kind_is_lost_at_every_receiver_independently() {
    let (attempts, answered, overheard) = counts(&scenario(false, 0.15, json!([])));
    assert!(attempts > 5_000.0, "{attempts}");
    // Answered: the data frame reached R and R's ACK reached A.
    assert!(
        near(answered / attempts, 0.85 * 0.85, attempts),
        "{}",
        answered / attempts
    );
    assert!(
        near(overheard / attempts, 0.85, attempts),
        "{}",
        overheard / attempts
    );
    // With RTS/CTS the MAC counts an answered attempt per CTS (RTS and CTS both through, q =
    // 0.85^2) and a failed one per RTS without CTS and per data frame without ACK (1 - q after
    // a CTS): answered / attempts = q / (1 + q (1 - q)).
    let (attempts, answered, _) = counts(&scenario(true, 0.15, json!([])));
    let q = 0.85f64.powi(2);
    assert!(
        near(answered / attempts, q / (1.0 + q * (1.0 - q)), attempts),
        "{}",
        answered / attempts
    );
}

#[test]
fn a_link_s_own_process_replaces_the_default_and_zero_changes_nothing() {
    let clean = json!([{"from": "A", "to": "R", "direction": "both",
                        "error": {"kind": "bernoulli", "per": 0.0}}]);
    let (attempts, answered, overheard) = counts(&scenario(false, 0.15, clean));
    assert_eq!(answered, attempts, "A <-> R loses nothing");
    assert!(near(overheard / attempts, 0.85, attempts));
    let without = run(&scenario(false, 0.0, json!([])));
    let mut absent = scenario(false, 0.0, json!([]));
    absent["radio"]
        .as_object_mut()
        .expect("an object")
        .remove("frame_error");
    let same = run(&absent);
    assert_eq!(
        serde_json::to_string(&without.flows).ok(),
        serde_json::to_string(&same.flows).ok()
    );
}

#[test]
fn a_frame_error_that_is_not_a_probability_is_refused() {
    for bad in [-0.1, 1.5] {
        let cfg = serde_json::from_value(scenario(false, bad, json!([]))).expect("parses");
        let e = airtcp::simulate(&cfg).expect_err("refused");
        assert_eq!(e.path, "radio.frame_error");
    }
}

#[test]
fn per_exchange_loss_draws_once_for_the_whole_exchange_at_the_addressee() {
    // Without RTS/CTS: the data frame is drawn for, its ACK inherits: answered = 0.85.
    let mut basic = scenario(false, 0.15, json!([]));
    basic["radio"]["frame_error_mode"] = json!("per_exchange");
    let (attempts, answered, overheard) = counts(&basic);
    assert!(attempts > 5_000.0, "{attempts}");
    assert!(
        near(answered / attempts, 0.85, attempts),
        "{}",
        answered / attempts
    );
    // O is not the addressee: it still loses each frame it overhears with 0.15.
    assert!(
        near(overheard / attempts, 0.85, attempts),
        "{}",
        overheard / attempts
    );
    // With RTS/CTS one draw covers RTS, CTS, data and ACK: every CTS is followed by data that
    // gets its ACK, so the MAC's answered / attempts is the RTS's 0.85 alone.
    let mut rts = scenario(true, 0.15, json!([]));
    rts["radio"]["frame_error_mode"] = json!("per_exchange");
    let r = run(&rts);
    let ar = r
        .links
        .iter()
        .find(|l| l.from == "A" && l.to == "R")
        .expect("A sent to R");
    let (attempts, answered) = (ar.attempts as f64, ar.answered as f64);
    assert!(
        near(answered / attempts, 0.85, attempts),
        "{}",
        answered / attempts
    );
    // Every exchange that got its CTS delivered its packet: delivered = answered.
    let delivered = r.flows[0].bytes_delivered as f64 / 500.0;
    assert!(
        (delivered - answered).abs() <= 1.0,
        "{delivered} vs {answered}"
    );
}
