//! 802.11b and 802.11a saturation throughput against Bianchi's model (IEEE JSAC 18(3), 2000).
//!
//! N stations within range of each other and of one receiver, each always backlogged with
//! 1000-byte UDP payloads (CBR far above capacity, so the interface queues never empty).

use crate::common::*;
use serde_json::{json, Value};

const US: f64 = 1e-6;

/// The DCF figures Bianchi's model needs, in seconds.
struct Dcf {
    slot: f64,
    sifs: f64,
    difs: f64,
    /// CWmin + 1.
    w: f64,
    /// Backoff stages: CWmax + 1 = w 2^m.
    m: i32,
    /// Air time of `bytes` at `rate` (bit/s), preamble included.
    airtime: fn(f64, f64) -> f64,
    /// Rate of the ACK that answers a data frame at `rate`.
    ack_rate: fn(f64) -> f64,
    basic: f64,
    /// Rate of the ACK EIFS assumes (the lowest).
    lowest: f64,
}

/// 802.11b with the long preamble; ACKs at the basic rate (1 Mbps).
const DOT11B: Dcf = Dcf {
    slot: 20.0 * US,
    sifs: 10.0 * US,
    difs: 50.0 * US,
    w: 32.0,
    m: 5,
    airtime: |bytes, rate| 192.0 * US + bytes * 8.0 / rate,
    ack_rate: |_| 1e6,
    basic: 1e6,
    lowest: 1e6,
};

/// 802.11a: 20 us preamble and SIGNAL, then 4-us symbols carrying 16 service bits, the bytes and
/// 6 tail bits; ACKs at the highest mandatory rate (6, 12, 24 Mbps) not above the data rate.
const DOT11A: Dcf = Dcf {
    slot: 9.0 * US,
    sifs: 16.0 * US,
    difs: 34.0 * US,
    w: 16.0,
    m: 6,
    airtime: |bytes, rate| {
        let per_symbol = rate * 4.0 * US;
        20.0 * US + ((16.0 + 8.0 * bytes + 6.0) / per_symbol).ceil() * 4.0 * US
    },
    ack_rate: |rate| {
        [24e6, 12e6, 6e6]
            .into_iter()
            .find(|&r| r <= rate)
            .unwrap_or(6e6)
    },
    basic: 6e6,
    lowest: 6e6,
};

/// Bianchi's saturation throughput (payload bits per second) for `n` stations sending frames of
/// `payload_bytes` + `header_bytes` at `rate`.
///
/// tau = 2 (1 - 2p) / ((1 - 2p)(W + 1) + p W (1 - (2p)^m)), p = 1 - (1 - tau)^(n - 1), solved by
/// bisection on tau (eqs. 7 and 9).
/// S = Ps Ptr E[P] / ((1 - Ptr) sigma + Ptr Ps Ts + Ptr (1 - Ps) Tc) (eq. 13).
/// Ts and Tc as in §IV-A for basic access and RTS/CTS, with one difference: after a collision the
/// stations that sensed it wait EIFS (SIFS + ACK at the lowest rate + DIFS, 802.11-2016
/// §10.3.2.3.7) rather than DIFS, because they could not decode the collided frame; the model's
/// Tc includes that.
fn bianchi(dcf: &Dcf, n: u32, rts: bool, rate: f64, payload_bytes: f64, header_bytes: f64) -> f64 {
    let (w, m) = (dcf.w, dcf.m);
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
    let (slot, sifs, difs) = (dcf.slot, dcf.sifs, dcf.difs);
    let air = dcf.airtime;
    let ack = air(14.0, (dcf.ack_rate)(rate));
    let (rts_t, cts) = (air(20.0, dcf.basic), air(14.0, dcf.basic));
    let eifs = sifs + air(14.0, dcf.lowest) + difs;
    let data = air(payload_bytes + header_bytes, rate);
    let delta = 1e-6; // propagation, about 300 m
    let (ts, tc) = if rts {
        (
            rts_t + sifs + delta + cts + sifs + delta + data + sifs + delta + ack + difs + delta,
            rts_t + eifs + delta,
        )
    } else {
        (
            data + sifs + delta + ack + difs + delta,
            data + eifs + delta,
        )
    };
    let payload_bits = payload_bytes * 8.0;
    ps * ptr * payload_bits / ((1.0 - ptr) * slot + ptr * ps * ts + ptr * (1.0 - ps) * tc)
}

fn saturated(n: u32, rts: bool, radio: Value) -> Value {
    // Senders on a 20 m circle around the receiver: everyone hears everyone.
    let mut nodes = vec![json!({"name": "ap", "x": 0.0, "y": 0.0})];
    for i in 0..n {
        let a = i as f64 * std::f64::consts::TAU / n as f64;
        nodes.push(json!({"name": format!("s{i}"), "x": 20.0 * a.cos(), "y": 20.0 * a.sin()}));
    }
    let mut radio = radio;
    // Each sender offers twice the data rate: always backlogged.
    let cbr = 2 * radio["data_rate"].as_u64().expect("data_rate");
    radio["rts_cts"] = json!(rts);
    radio["propagation"] = json!({"kind": "range", "range": 250.0});
    let flows: Vec<Value> = (0..n)
        .map(|i| {
            json!({"id": format!("f{i}"), "src": format!("s{i}"), "dst": "ap",
                   "start": S + i as u64 * MS, "app": {"kind": "cbr", "rate": cbr, "packet_size": 1000},
                   "transport": {"kind": "udp"}})
        })
        .collect();
    json!({
        "name": "saturation", "duration": 21 * S, "seed": 1,
        "radio": radio,
        "topology": {"kind": "explicit", "nodes": nodes},
        "flows": flows,
        "metrics": {"bin": S}
    })
}

/// Goodput at the receiver from 2 s (all started, queues full) to the end of a 21-s run.
fn measured(scenario: &Value) -> f64 {
    let r = run(scenario);
    let bins = &r.timeseries.goodput;
    bins.t_s
        .iter()
        .zip(&bins.goodput_bps)
        .filter(|(t, _)| **t >= 2.0)
        .map(|(_, g)| g)
        .sum::<f64>()
        / 19.0
}

/// 28 bytes UDP/IP + 36 bytes MAC header, FCS and LLC/SNAP.
const HEADER_BYTES: f64 = 64.0;

#[test]
fn saturation_throughput_matches_bianchi() {
    let mut rows = Vec::new();
    let mut worst: f64 = 0.0;
    let radio = json!({"standard": "802.11b", "data_rate": 2_000_000, "basic_rate": 1_000_000});
    for rts in [false, true] {
        for n in [1u32, 5, 10, 20] {
            let sim = measured(&saturated(n, rts, radio.clone()));
            let model = bianchi(&DOT11B, n, rts, 2e6, 1000.0, HEADER_BYTES);
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

#[test]
fn bianchi_for_dot11a_gives_the_hand_values() {
    // n = 1 at 54 Mbps: DIFS 34 + 7.5 slots of 9 us + data (1064 B: 40 symbols, 180 us) + SIFS 16
    // + ACK at 24 Mbps (28 us) + two 1-us propagation delays = 327.5 us per 8000 payload bits.
    let s = bianchi(&DOT11A, 1, false, 54e6, 1000.0, HEADER_BYTES);
    assert!((s - 8000.0 / 327.5e-6).abs() < 1.0, "{s}");
    // Hand values in Mbit/s (n = 1, 5, 10, 20) for 1000-byte payloads.
    for (rate, want) in [
        (54e6, [24.43, 24.16, 22.47, 20.67]),
        (24e6, [15.28, 14.23, 13.14, 12.04]),
        (6e6, [4.98, 4.35, 4.00, 3.65]),
    ] {
        for (n, w) in [1, 5, 10, 20].into_iter().zip(want) {
            let got = bianchi(&DOT11A, n, false, rate, 1000.0, HEADER_BYTES) / 1e6;
            assert!((got - w).abs() < 0.01 * w, "{rate} n={n}: {got} vs {w}");
        }
    }
}

/// 802.11a at 6, 24 and 54 Mbps: within 2 % of the model up to 10 stations, within 2.5 % at 20.
///
/// At 20 stations the simulation runs above the model at every rate, by 2.0 % at 6 Mbps, 1.9 %
/// at 24 and 1.3 % at 54 (the same within 0.3 % over seeds 1-4), where 802.11b's 32-slot
/// window stays within 0.3 %. With CWmin 15 the collision probability is high (about 0.3) and
/// Bianchi's decoupling assumption (every station sees the same, independent p) is off by that
/// much: ns-3 3.44 on the same case (bench/wifi, `saturation11a`) is 3.7 % above its own Bianchi
/// figure at 6 Mbps and 20 stations. The tolerance at 20 stations says so rather than hiding it.
#[test]
fn dot11a_saturation_throughput_matches_bianchi() {
    let mut rows = Vec::new();
    let mut worst: f64 = 0.0;
    for rate in [6_000_000u64, 24_000_000, 54_000_000] {
        let radio = json!({"standard": "802.11a", "data_rate": rate, "basic_rate": 6_000_000});
        for n in [1u32, 5, 10, 20] {
            let sim = measured(&saturated(n, false, radio.clone()));
            let model = bianchi(&DOT11A, n, false, rate as f64, 1000.0, HEADER_BYTES);
            let err = sim / model - 1.0;
            let tolerance = if n < 20 { 0.02 } else { 0.025 };
            worst = worst.max(err.abs() / tolerance);
            rows.push(format!(
                "{:>2} Mbps n={n:>2}: airtcp {:.2} Mbps, Bianchi {:.2} Mbps ({:+.2} %)",
                rate / 1_000_000,
                sim / 1e6,
                model / 1e6,
                err * 100.0
            ));
        }
    }
    eprintln!("{}", rows.join("\n"));
    assert!(worst <= 1.0, "{}", rows.join("\n"));
}
