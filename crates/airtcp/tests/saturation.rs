//! 802.11b saturation throughput against Bianchi's model (IEEE JSAC 18(3), 2000).
//!
//! N stations within range of each other and of one receiver, each always backlogged with
//! 1000-byte UDP payloads (CBR far above capacity, so the interface queues never empty).

mod common;
use common::*;
use serde_json::{json, Value};

const US: f64 = 1e-6;

/// Bianchi's saturation throughput (payload bits per second) for `n` stations.
///
/// tau = 2 (1 - 2p) / ((1 - 2p)(W + 1) + p W (1 - (2p)^m)), p = 1 - (1 - tau)^(n - 1), solved by
/// bisection on tau (eqs. 7 and 9), W = CWmin + 1 = 32, m = 5 (CWmax + 1 = 32 * 2^5).
/// S = Ps Ptr E[P] / ((1 - Ptr) sigma + Ptr Ps Ts + Ptr (1 - Ps) Tc) (eq. 13).
/// Ts and Tc as in §IV-A for basic access and RTS/CTS, with one difference: after a collision the
/// stations that sensed it wait EIFS (SIFS + ACK + DIFS, 802.11-2016 §10.3.2.3.7) rather than
/// DIFS, because they could not decode the collided frame; the model's Tc includes that.
fn bianchi(n: u32, rts: bool, payload_bits: f64, header_bytes: f64) -> f64 {
    let (w, m) = (32.0f64, 5);
    let tau_of = |p: f64| {
        2.0 * (1.0 - 2.0 * p) / ((1.0 - 2.0 * p) * (w + 1.0) + p * w * (1.0 - (2.0 * p).powi(m)))
    };
    let n = n as f64;
    let (mut lo, mut hi) = (1e-9f64, 1.0f64);
    for _ in 0..200 {
        let tau = 0.5 * (lo + hi);
        let p = 1.0 - (1.0 - tau).powf(n - 1.0);
        if tau_of(p) > tau {
            lo = tau;
        } else {
            hi = tau;
        }
    }
    let tau = 0.5 * (lo + hi);
    let ptr = 1.0 - (1.0 - tau).powf(n);
    let ps = n * tau * (1.0 - tau).powf(n - 1.0) / ptr;
    let (slot, sifs, difs, plcp) = (20.0 * US, 10.0 * US, 50.0 * US, 192.0 * US);
    let (rate, basic) = (2e6, 1e6);
    let ack = plcp + 14.0 * 8.0 / basic;
    let (rts_t, cts) = (plcp + 20.0 * 8.0 / basic, plcp + 14.0 * 8.0 / basic);
    let eifs = sifs + plcp + 14.0 * 8.0 / 1e6 + difs;
    let h = plcp + header_bytes * 8.0 / rate;
    let p_t = payload_bits / rate;
    let delta = 1e-6; // propagation, about 300 m
    let (ts, tc) = if rts {
        (
            rts_t + sifs + delta + cts + sifs + delta + h + p_t + sifs + delta + ack + difs + delta,
            rts_t + eifs + delta,
        )
    } else {
        (
            h + p_t + sifs + delta + ack + difs + delta,
            h + p_t + eifs + delta,
        )
    };
    let s = ps * ptr * p_t / ((1.0 - ptr) * slot + ptr * ps * ts + ptr * (1.0 - ps) * tc);
    s * rate
}

fn saturated(n: u32, rts: bool) -> Value {
    // Senders on a 20 m circle around the receiver: everyone hears everyone.
    let mut nodes = vec![json!({"name": "ap", "x": 0.0, "y": 0.0})];
    for i in 0..n {
        let a = i as f64 * std::f64::consts::TAU / n as f64;
        nodes.push(json!({"name": format!("s{i}"), "x": 20.0 * a.cos(), "y": 20.0 * a.sin()}));
    }
    let flows: Vec<Value> = (0..n)
        .map(|i| {
            json!({"id": format!("f{i}"), "src": format!("s{i}"), "dst": "ap",
                   "start": S + i as u64 * MS, "app": {"kind": "cbr", "rate": 4_000_000, "packet_size": 1000},
                   "transport": {"kind": "udp"}})
        })
        .collect();
    json!({
        "name": "saturation", "duration": 21 * S, "seed": 1,
        "radio": {"standard": "802.11b", "data_rate": 2_000_000, "basic_rate": 1_000_000,
                  "rts_cts": rts, "propagation": {"kind": "range", "range": 250.0}},
        "topology": {"kind": "explicit", "nodes": nodes},
        "flows": flows,
        "metrics": {"bin": S}
    })
}

#[test]
fn saturation_throughput_matches_bianchi() {
    let mut rows = Vec::new();
    let mut worst: f64 = 0.0;
    for rts in [false, true] {
        for n in [1u32, 5, 10, 20] {
            let r = run(&saturated(n, rts));
            // Measure from 2 s (all started, queues full) to the end.
            let bins = &r.timeseries.goodput;
            let sim: f64 = bins
                .t_s
                .iter()
                .zip(&bins.goodput_bps)
                .filter(|(t, _)| **t >= 2.0)
                .map(|(_, g)| g)
                .sum::<f64>()
                / 19.0;
            // 28 bytes UDP/IP + 36 bytes MAC header, FCS and LLC/SNAP.
            let model = bianchi(n, rts, 8000.0, 64.0);
            let err = sim / model - 1.0;
            worst = worst.max(err.abs());
            rows.push(format!(
                "{} n={n:>2}: airtcp {:.1} kbps, Bianchi {:.1} kbps ({:+.1} %)",
                if rts { "rts/cts" } else { "basic  " },
                sim / 1e3,
                model / 1e3,
                err * 100.0
            ));
        }
    }
    eprintln!("{}", rows.join("\n"));
    assert!(worst <= 0.05, "{}", rows.join("\n"));
}
