//! The slotted base-station downlink inside whole scenarios (papers 002 §V, 004 §IV): wired
//! senders reach the base station, which serves its users slot by slot; ACKs return over each
//! user's uplink. Checks the network-level rates against the model's own closed form, the
//! schedulers against each other, erasures, and errors naming their fields.

use crate::common::*;
use serde_json::{json, Value};

use airtcp::mac::downlink::amc::{db_to_linear, AmcTable, IEEE_802_16E};

/// Servers s0.. linked to bs (100 Mbps, 10 ms); users u0.. on the downlink with `snrs` (dB);
/// flow i from s_i to u_i with transport `transport` and application `app`.
fn cell(snrs: &[f64], scheduler: &str, app: Value, transport: Value, duration: u64) -> Value {
    let n = snrs.len();
    let mut nodes: Vec<String> = (0..n).map(|i| format!("s{i}")).collect();
    nodes.push("bs".into());
    nodes.extend((0..n).map(|i| format!("u{i}")));
    let links: Vec<Value> = (0..n)
        .map(|i| {
            json!({"from": format!("s{i}"), "to": "bs", "rate": 100_000_000u64,
                   "delay": 10 * MS, "queue": {"kind": "droptail", "packets": 1000}})
        })
        .collect();
    let users: Vec<Value> = snrs
        .iter()
        .enumerate()
        .map(|(i, s)| json!({"node": format!("u{i}"), "mean_snr": s}))
        .collect();
    let flows: Vec<Value> = (0..n)
        .map(|i| {
            json!({"id": format!("f{i}"), "src": format!("s{i}"), "dst": format!("u{i}"),
                   "start": 0, "app": app, "transport": transport})
        })
        .collect();
    json!({
        "name": "cell", "duration": duration, "seed": 3, "nodes": nodes, "links": links,
        "downlink": {"base_station": "bs", "users": users, "scheduler": {"kind": scheduler}},
        "flows": flows,
    })
}

fn tcp() -> Value {
    json!({"kind": "tcp", "cc": "newreno", "sack": true, "mss": 1000})
}

/// UDP at `rate` bit/s per flow, 1000-byte datagrams (1028 bytes with headers).
fn cbr(rate: u64) -> Value {
    json!({"kind": "cbr", "rate": rate, "packet_size": 1000})
}

#[test]
fn saturated_round_robin_gives_each_user_its_share_of_the_mean_rate() {
    // Four users at 15 dB, each offered 20 Mbps, far above its ~5.5 Mbps share: round-robin grants each a quarter of the slots, so each receives E[R] / 4,
    // E[R] being the mean AMC rate under the default Rayleigh (Gauss-Markov, 128 Hz) fading.
    let snrs = [15.0; 4];
    let r = run(&cell(
        &snrs,
        "round_robin",
        cbr(20_000_000),
        json!({"kind": "udp"}),
        20 * S,
    ));
    let amc = AmcTable::new(&IEEE_802_16E, 10e6, 10 * MS, 1.0);
    let mean_rate = amc.expected_bits_rayleigh(db_to_linear(15.0)) / 0.010;
    for (f, d) in r.flows.iter().zip(&r.downlink) {
        // Goodput counts the 1000 payload bytes of each 1028-byte datagram.
        let expected = mean_rate / 4.0 * 1000.0 / 1028.0;
        let ratio = f.goodput_bps / expected;
        println!(
            "{}: {:.3} Mbps, expected {:.3} (ratio {ratio:.3}); offered mean rate {:.3} Mbps",
            f.id,
            f.goodput_bps / 1e6,
            expected / 1e6,
            d.mean_rate_bps / 1e6
        );
        assert!((0.95..=1.05).contains(&ratio), "{} ratio {ratio}", f.id);
        assert!((d.mean_rate_bps / mean_rate - 1.0).abs() < 0.05);
        assert!(
            d.packets_dropped > 0,
            "the queue must overflow when saturated"
        );
    }
    assert!(r
        .drops
        .iter()
        .any(|d| d.queue == "downlink bs->u0" && d.reason == "queue_full"));
}

#[test]
fn channel_aware_schedulers_beat_round_robin_under_saturation() {
    let snrs = [12.0, 19.0, 13.0, 16.0];
    let total = |s: &str| -> f64 {
        let r = run(&cell(
            &snrs,
            s,
            cbr(20_000_000),
            json!({"kind": "udp"}),
            10 * S,
        ));
        r.flows.iter().map(|f| f.goodput_bps).sum()
    };
    let rr = total("round_robin");
    let max_snr = total("max_snr");
    let max_weight = total("max_weight");
    println!("round robin {rr:.0}, max-SNR {max_snr:.0}, MaxWeight {max_weight:.0} bit/s");
    assert!(max_snr > 1.1 * rr && max_weight > 1.05 * rr);
}

#[test]
fn tcp_flows_share_a_cell_of_equal_users_fairly_and_conserve_packets() {
    let r = run(&cell(
        &[15.0; 4],
        "round_robin",
        json!({"kind": "bulk"}),
        tcp(),
        60 * S,
    ));
    let goodputs: Vec<f64> = r.flows.iter().map(|f| f.goodput_bps).collect();
    println!("TCP goodputs {goodputs:?}, Jain {:.4}", r.jain);
    assert!(goodputs.iter().all(|&g| g > 1e6), "{goodputs:?}");
    assert!(r.jain >= 0.95);
    // ACKs cross each user's uplink.
    assert!(r
        .queues
        .iter()
        .any(|q| q.queue == "uplink u0->bs" && q.transmitted > 1000));
    // The downlink delivered what the receivers counted (plus their TCP/IP headers).
    for (f, d) in r.flows.iter().zip(&r.downlink) {
        assert!(d.bytes_served >= f.bytes_delivered);
    }
}

#[test]
fn erasures_drop_served_packets_as_channel_errors() {
    let mut v = cell(
        &[15.0; 2],
        "round_robin",
        cbr(1_000_000),
        json!({"kind": "udp"}),
        20 * S,
    );
    // Always in the bad state: every served packet survives with probability 0.5.
    v["downlink"]["erasure"] = json!({"kind": "bimodal", "low": 0.5, "high": 1.0,
        "low_probability": 1.0, "hold_min": 100 * MS, "hold_max": 200 * MS});
    let r = run(&v);
    for d in &r.downlink {
        let erased = d.packets_erased as f64 / d.packets_served as f64;
        println!(
            "{}: {} served, {:.3} erased",
            d.user, d.packets_served, erased
        );
        assert!((erased - 0.5).abs() < 0.03, "{erased}");
    }
    assert!(r
        .drops
        .iter()
        .any(|d| d.queue == "downlink bs->u1" && d.reason == "channel_error"));
}

#[test]
fn the_same_seed_gives_the_same_run() {
    let v = cell(
        &[12.0, 19.0],
        "delay_max_weight",
        json!({"kind": "bulk"}),
        tcp(),
        10 * S,
    );
    let a = serde_json::to_string(&run(&v).flows).unwrap();
    let b = serde_json::to_string(&run(&v).flows).unwrap();
    assert_eq!(a, b);
    let mut other = v.clone();
    other["seed"] = json!(4);
    assert_ne!(a, serde_json::to_string(&run(&other).flows).unwrap());
}

#[test]
fn bad_downlinks_name_the_field() {
    let base = cell(
        &[12.0, 19.0],
        "round_robin",
        json!({"kind": "bulk"}),
        tcp(),
        S,
    );
    let error = |edit: &dyn Fn(&mut Value)| -> String {
        let mut v = base.clone();
        edit(&mut v);
        let cfg = serde_json::from_value(v).expect("parses");
        match airtcp::simulate(&cfg) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("accepted"),
        }
    };
    let e = error(&|v| v["downlink"]["users"][1]["node"] = json!("bs"));
    assert!(e.starts_with("downlink.users[1].node:"), "{e}");
    let e = error(&|v| v["downlink"]["users"][1]["node"] = json!("u0"));
    assert!(
        e.starts_with("downlink.users[1].node:") && e.contains("already"),
        "{e}"
    );
    let e = error(&|v| v["downlink"]["base_station"] = json!("nowhere"));
    assert!(e.starts_with("downlink.base_station:"), "{e}");
    let e = error(&|v| v["downlink"]["slot"] = json!(0));
    assert!(e.starts_with("downlink.slot:"), "{e}");
    let e = error(&|v| v["downlink"]["uplink_rate"] = json!(0));
    assert!(e.starts_with("downlink.uplink_rate:"), "{e}");
    let e = error(&|v| v["routing"] = json!({"kind": "aodv"}));
    assert!(e.starts_with("routing.kind:"), "{e}");
}
