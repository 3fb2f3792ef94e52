//! TCP over one wired link: full utilisation, the PFTK throughput model, determinism.

use crate::common::*;
use serde_json::json;

fn newreno(sack: bool) -> serde_json::Value {
    json!({"kind": "tcp", "cc": "newreno", "sack": sack, "mss": 1000, "delayed_ack": 2,
           "initial_cwnd": 10})
}

#[test]
fn one_flow_without_loss_fills_the_link() {
    // 2 Mbps, 20 ms one way: BDP = 10 kB = 10 segments; the 100-packet buffer exceeds it.
    for sack in [false, true] {
        let r = run(&p2p(2_000_000, 20 * MS, 0.0, 100 * S, newreno(sack)));
        let g = r.flows[0].goodput_bps;
        assert!(g >= 0.93 * 2e6, "goodput {g} (sack {sack})");
        // Payload share of the wire: 1000 / 1040 bytes.
        assert!(g <= 2e6 * 1000.0 / 1040.0);
    }
}

/// Padhye, Firoiu, Towsley & Kurose (SIGCOMM 1998), eq. (31): throughput in packets/s with
/// timeouts, for loss-indication rate `p`, round-trip time `rtt`, `b` packets per ACK, base
/// timeout `t0` and window limit `wmax`.
fn pftk(p: f64, rtt: f64, b: f64, t0: f64, wmax: f64) -> f64 {
    let denom = rtt * (2.0 * b * p / 3.0).sqrt()
        + t0 * (3.0 * (3.0 * b * p / 8.0).sqrt()).min(1.0) * p * (1.0 + 32.0 * p * p);
    (wmax / rtt).min(1.0 / denom)
}

#[test]
fn newreno_goodput_follows_pftk_with_timeouts() {
    // NewReno without SACK, delayed ACK 2 (b = 2), min RTO 1 s (T0 = 1 s: srtt + 4 rttvar stays
    // below it here). PFTK's p is the rate of loss *indications* (triple duplicate ACKs and
    // timeouts per packet sent, PFTK §2 and §3), which is how the paper measured it; with
    // independent losses several losses often fall in one window and are repaired together, so
    // the indication rate is below the packet error rate. RTT is the flow's mean RTT sample.
    let mut rows = Vec::new();
    for per in [0.005, 0.01, 0.02, 0.05] {
        let (mut sim, mut model, mut model_nominal) = (0.0, 0.0, 0.0);
        let seeds = [1u64, 2, 3];
        for &seed in &seeds {
            let mut v = p2p(2_000_000, 20 * MS, per, 200 * S, newreno(false));
            v["seed"] = json!(seed);
            let r = run(&v);
            let f = &r.flows[0];
            let rtt = f.mean_rtt_s.expect("rtt samples");
            let indications = (f.recoveries + f.timeouts) as f64 / f.packets_sent as f64;
            let pkt_bits = 1000.0 * 8.0;
            sim += f.goodput_bps;
            model += pftk(indications, rtt, 2.0, 1.0, 1048.0) * pkt_bits;
            model_nominal += pftk(per, rtt, 2.0, 1.0, 1048.0) * pkt_bits;
        }
        let n = seeds.len() as f64;
        let (sim, model, model_nominal) = (sim / n, model / n, model_nominal / n);
        rows.push(format!(
            "p={per}: airtcp {:.0} kbps, PFTK(loss indications) {:.0} kbps ({:+.1} %), \
             PFTK(p = packet error rate) {:.0} kbps ({:+.1} %)",
            sim / 1e3,
            model / 1e3,
            (sim / model - 1.0) * 100.0,
            model_nominal / 1e3,
            (sim / model_nominal - 1.0) * 100.0
        ));
        assert!((sim / model - 1.0).abs() <= 0.25, "{}", rows.join("\n"));
    }
    eprintln!("{}", rows.join("\n"));
}

#[test]
fn goodput_falls_with_loss() {
    let mut last = f64::INFINITY;
    for per in [0.0, 0.005, 0.01, 0.02, 0.05] {
        let g = run(&p2p(2_000_000, 20 * MS, per, 100 * S, newreno(true))).flows[0].goodput_bps;
        assert!(g < last, "goodput {g} at {per} not below {last}");
        last = g;
    }
}

#[test]
fn same_seed_same_results_other_seed_differs() {
    let v = p2p(2_000_000, 20 * MS, 0.01, 50 * S, newreno(true));
    let strip = |v: &serde_json::Value| {
        let cfg = serde_json::from_value(v.clone()).unwrap();
        let mut r = serde_json::to_value(airtcp::simulate(&cfg).unwrap()).unwrap();
        r.as_object_mut().unwrap().remove("timing");
        serde_json::to_string(&r).unwrap()
    };
    let a = strip(&v);
    assert_eq!(a, strip(&v));
    let mut v2 = v.clone();
    v2["seed"] = json!(2);
    assert_ne!(a, strip(&v2));
}

#[test]
fn finite_transfer_completes_and_reports_its_completion_time() {
    let mut v = p2p(2_000_000, 20 * MS, 0.0, 20 * S, newreno(true));
    v["flows"][0]["app"] = json!({"kind": "bulk", "bytes": 100_500});
    let r = run(&v);
    let f = &r.flows[0];
    assert_eq!(f.bytes_delivered, 100_500);
    let done = f.completion_s.expect("completed");
    // 101 segments at 4.16 ms each plus slow start over 40 ms RTTs: well under a second.
    assert!(done > 0.4 && done < 1.0, "completion {done}");
    assert_eq!(r.conservation.in_flight, 0);
}

#[test]
fn traces_record_rtt_and_cwnd_when_asked() {
    let mut v = p2p(2_000_000, 20 * MS, 0.01, 10 * S, newreno(true));
    v["metrics"] = json!({"trace_rtt": true, "trace_cwnd": true, "trace_interval": 100 * MS});
    let r = run(&v);
    let ts = &r.timeseries;
    assert_eq!(ts.cwnd.t_s.len(), 101);
    assert!(ts.rtt.rtt_s.iter().all(|&x| x >= 0.040));
    assert!(ts.rtt.rtt_s.len() > 100);
    assert_eq!(ts.goodput.t_s.len(), 10);
}

#[test]
fn the_queue_trace_samples_both_directions_and_stays_within_the_backlog() {
    // One sample per queue every 100 ms from t = 0 to the end (both ends included), at most the
    // largest backlog the queue reached; the forward queue fills, the reverse one (ACKs at a
    // quarter of the bytes) stays empty. Without the option nothing is recorded.
    let mut v = p2p(2_000_000, 20 * MS, 0.0, 10 * S, newreno(true));
    v["metrics"] = json!({"trace_queues": true, "trace_interval": 100 * MS});
    let r = run(&v);
    let q = &r.timeseries.queue;
    assert_eq!(q.queue.len(), 2 * 101);
    assert_eq!(&q.queue[..2], ["A->B", "B->A"]);
    assert_eq!(q.t_s[2], 0.1);
    for (i, row) in r.queues.iter().enumerate() {
        let samples: Vec<u64> = q.packets.iter().skip(i).step_by(2).copied().collect();
        let max = samples.iter().copied().max().unwrap();
        assert!(
            max <= u64::from(row.max_backlog),
            "{}: {max} > {}",
            row.queue,
            row.max_backlog
        );
        if row.queue == "A->B" {
            assert!(
                max >= 10,
                "the forward queue holds the window beyond the BDP: {max}"
            );
        } else {
            assert_eq!(max, 0);
        }
    }
    let plain = run(&p2p(2_000_000, 20 * MS, 0.0, 10 * S, newreno(true)));
    assert!(plain.timeseries.queue.is_empty());
    let text = serde_json::to_string(&plain.timeseries).unwrap();
    assert!(
        !text.contains("\"queue\""),
        "no key when not traced: {text}"
    );
}
