//! Golden tables: exact results of small scenario grids, so that any change of behaviour shows up
//! as a diff to review. When a change is intended, regenerate with
//! `AIRTCP_BLESS=1 cargo test -p airtcp --release --test integration golden_tables::` and commit the new table
//! together with the reason.

use crate::common::*;
use serde_json::json;
use std::fmt::Write;
use std::path::PathBuf;

fn check(name: &str, table: String) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    if std::env::var_os("AIRTCP_BLESS").is_some() {
        std::fs::write(&path, &table).expect("write golden table");
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_default();
    if want != table {
        panic!(
            "{name} differs from the golden table (AIRTCP_BLESS=1 to accept):\n--- golden\n{want}\n--- now\n{table}"
        );
    }
}

#[test]
fn p2p_tcp_loss_by_buffer_by_recovery() {
    let mut t = String::from("# 2 Mbps, 20 ms, 60 s, seed 1: loss, buffer, cc/sack -> bytes, retx, recoveries, timeouts\n");
    for per in [0.0, 0.01, 0.05] {
        for buffer in [5, 100] {
            for (cc, sack) in [("reno", false), ("newreno", false), ("newreno", true)] {
                let tcp = json!({"kind": "tcp", "cc": cc, "sack": sack, "mss": 1000, "delayed_ack": 2,
                                 "initial_cwnd": 10});
                let mut v = p2p(2_000_000, 20 * MS, per, 60 * S, tcp);
                v["links"][0]["queue"]["packets"] = json!(buffer);
                let r = run(&v);
                let f = &r.flows[0];
                writeln!(
                    t,
                    "per={per:<5} buffer={buffer:<3} {cc:>7}/sack={sack:<5} bytes={:<9} retx={:<5} rec={:<4} rto={}",
                    f.bytes_delivered, f.retransmissions, f.recoveries, f.timeouts
                )
                .unwrap();
            }
        }
    }
    check("p2p_tcp.txt", t);
}
