//! A fuzzer for the core's JSON entry point (`simulate_json_controlled`, which `airtcp run` and
//! the Python API call): scenarios made by mutating the normalised form of every shipped
//! scenario (`tests/fuzz_seeds/`, kept equal to `airtcp validate --json` by a Python test) and by
//! splicing in fragments of every variant of the schema, then run under a watchdog.
//!
//! Invariants, per case:
//! - no panic;
//! - no hang: while a run goes on its simulated time must advance; a run that is merely long is
//!   stopped at the wall budget and counted `slow` (not a failure), one whose simulated time stands
//!   still for the budget, or that does not return once asked to stop, is a hang;
//! - the answer is results with packet conservation holding, or an error `path: message` with both
//!   parts non-empty;
//! - memory: every case runs with a budget of at most 1 GiB (`limits.memory` lowered if larger),
//!   so an allocation the budget misses aborts this test instead of passing unnoticed.
//!
//! The short form runs in every `cargo test` (a fixed seed, [`SHORT_CASES`] cases); the long form
//! is `AIRTCP_FUZZ_CASES=N` (and `AIRTCP_FUZZ_REPORT=path` for the counts as JSON), `make fuzz`;
//! `AIRTCP_FUZZ_TRACE=path` keeps the case being run in that file, for a crash of the process.
//! A failing case is printed whole, shrunk by proptest; every one found becomes a regression test
//! in `tests/integration/hostile_scenarios.rs`.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use airtcp::world::RunControl;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};
use serde_json::{json, Map, Value};

/// Cases of the short form.
const SHORT_CASES: u32 = 160;
/// Wall time a run may take before it is stopped (slow) or judged hung (time standing still).
const WALL_BUDGET: Duration = Duration::from_secs(8);
/// Budget of every case.
const MEMORY_CAP: u64 = 1 << 30;
const S: u64 = 1_000_000_000;
const MS: u64 = 1_000_000;

fn seeds() -> Vec<(String, Value)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_seeds");
    let mut out: Vec<(String, Value)> = std::fs::read_dir(&dir)
        .expect("tests/fuzz_seeds")
        .map(|e| {
            let path = e.expect("entry").path();
            let text = std::fs::read_to_string(&path).expect("seed readable");
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            (name, serde_json::from_str(&text).expect("seed is JSON"))
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    assert!(out.len() >= 10, "seeds missing in {dir:?}");
    out
}

/// Where a fragment goes.
#[derive(Debug, Clone, Copy)]
enum Slot {
    App,
    Transport,
    Routing,
    LinkError,
    Failure,
    /// An entry appended to `mobility:`.
    Mobility,
    Metrics,
    Limits,
    LinkLoss,
    Topology,
    Radio,
    /// The `coding:` block's `control` (the block made if there is none).
    CodingControl,
    /// The `trace:` block (its folder under the system's temporary one, shared by the cases).
    Trace,
}

/// One fragment of every variant the schema has, with ordinary and odd values.
fn fragments() -> Vec<(Slot, Value)> {
    use Slot::*;
    let tcp = |extra: Value| {
        let mut t = json!({"kind": "tcp"});
        t.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        t
    };
    vec![
        (
            Mobility,
            json!({"kind": "constant_velocity", "vx": 10.0, "vy": -3.0}),
        ),
        (
            Mobility,
            json!({"kind": "constant_velocity", "vx": 1e4, "vy": 1e4}),
        ),
        (
            Mobility,
            json!({"kind": "constant_position", "nodes": ["n0"]}),
        ),
        (
            Mobility,
            json!({"kind": "random_waypoint", "min_speed": 1.0, "max_speed": 20.0,
                   "steady_state": true,
                   "bounds": {"x_min": 0.0, "x_max": 1000.0, "y_min": 0.0, "y_max": 300.0}}),
        ),
        (
            Mobility,
            json!({"kind": "random_waypoint", "min_speed": 1e-300, "max_speed": 1e4,
                   "min_pause": 1, "max_pause": 1, "steady_state": true,
                   "bounds": {"x_min": -1e300, "x_max": 1e300, "y_min": 0.0, "y_max": 1e-300}}),
        ),
        (
            Mobility,
            json!({"kind": "random_walk", "min_speed": 1e-9, "max_speed": 1e4, "mode": "time",
                   "time": 1, "bounds": {"x_min": -1e6, "x_max": 1e6, "y_min": -1e6, "y_max": 1e6}}),
        ),
        (
            Mobility,
            json!({"kind": "random_walk", "mode": "distance", "distance": 1e-300}),
        ),
        (Mobility, json!({"kind": "ns2", "file": "/dev/null"})),
        (
            Mobility,
            json!({"kind": "bonnmotion", "file": "/nonexistent"}),
        ),
        (App, json!({"kind": "bulk"})),
        (App, json!({"kind": "bulk", "bytes": 50_000})),
        (App, json!({"kind": "bulk", "bytes": 1})),
        (
            App,
            json!({"kind": "cbr", "rate": 500_000, "packet_size": 1000}),
        ),
        (
            App,
            json!({"kind": "cbr", "rate": 1_000_000_000_000u64, "packet_size": 1}),
        ),
        (
            App,
            json!({"kind": "cbr", "rate": 1, "packet_size": u32::MAX}),
        ),
        (
            App,
            json!({"kind": "poisson", "rate": 300_000, "packet_size": 500}),
        ),
        (App, json!({"kind": "poisson", "rate": 1, "packet_size": 1})),
        (
            App,
            json!({"kind": "utility", "packet_size": 1000, "r_max": 1_000_000, "m": 20.0}),
        ),
        (
            App,
            json!({"kind": "utility", "packet_size": 1, "r_max": 1_000_000, "m": 1e-6,
                     "utility": {"kind": "alpha_fair", "alpha": 0.5}}),
        ),
        (
            App,
            json!({"kind": "utility", "packet_size": 100, "r_max": u64::MAX, "m": 1e300,
                     "utility": {"kind": "alpha_fair", "alpha": 1e-9}, "slot": 1}),
        ),
        (Transport, json!({"kind": "udp"})),
        (Transport, json!({"kind": "udp", "header_bytes": 0})),
        (Transport, tcp(json!({"cc": "reno", "sack": false}))),
        (
            Transport,
            tcp(json!({"cc": "linux_reno", "ssthresh_basis": "pipe"})),
        ),
        (
            Transport,
            tcp(json!({"cc": "cubic", "cubic": {"c": 1e-9, "beta": 0.999}})),
        ),
        (
            Transport,
            tcp(json!({"cc": "compound", "compound": {"k": 1.0, "gamma": 1e-6}})),
        ),
        (
            Transport,
            tcp(json!({"cc": "vegas", "vegas": {"alpha": 0, "beta": 0, "gamma": 0}})),
        ),
        (
            Transport,
            tcp(json!({"cc": "fast", "fast": {"alpha": 1e9, "gamma": 1.0}})),
        ),
        (
            Transport,
            tcp(json!({"cc": "quic_tcp", "quic_tcp": {"update_interval": 0}})),
        ),
        (
            Transport,
            tcp(
                json!({"cc": "bbr", "bbr": {"high_gain": 1e9, "bw_window_rounds": 1,
                        "min_rtt_window": 1, "probe_rtt_duration": 1, "extra_acked_gain": 16}}),
            ),
        ),
        (
            Transport,
            tcp(
                json!({"cc": "bbr3", "bbr3": {"loss_thresh": 1e-9, "full_loss_count": 0,
                        "probe_rtt_interval": 1, "probe_wait_base": 1, "probe_wait_random": 0}}),
            ),
        ),
        (Transport, tcp(json!({"cc": "bbr", "sack": false}))),
        (Transport, tcp(json!({"recovery": "prr", "sack": false}))),
        (Transport, tcp(json!({"rack_tlp": true, "sack": false}))),
        (
            Transport,
            tcp(json!({"recovery": "prr", "rack_tlp": true, "pacing": true, "dupthresh": 1})),
        ),
        (Transport, tcp(json!({"profile": "linux", "cc": "bbr3"}))),
        (Transport, tcp(json!({"profile": "windows"}))),
        (
            Transport,
            tcp(json!({"cc": "cubic", "cubic": {"hystart": "rfc9406"}, "pacing": true})),
        ),
        (Transport, tcp(json!({"mss": 1, "initial_cwnd": u32::MAX}))),
        (
            Transport,
            tcp(json!({"mss": 1, "rwnd": 1 << 20, "initial_cwnd": 1 << 20})),
        ),
        (
            Transport,
            tcp(json!({"dupthresh": 1, "delayed_ack": 1000, "delayed_ack_timeout": 1})),
        ),
        (
            Transport,
            tcp(json!({"min_rto": 1, "max_rto": 1, "initial_rto": 1, "clock_granularity": 0})),
        ),
        (
            Transport,
            tcp(json!({"min_rto": u64::MAX / 4, "max_rto": u64::MAX, "initial_rto": u64::MAX})),
        ),
        (Transport, tcp(json!({"nc": {}}))),
        (
            Transport,
            tcp(json!({"initial_cwnd": 2000, "nc": {"block": "cwnd", "max_block": 4096}})),
        ),
        (
            Transport,
            tcp(json!({"nc": {"block": 1, "repair_interval": 1}})),
        ),
        (
            Transport,
            tcp(json!({"nc": {"block": 16, "relay_congestion": "mask"}})),
        ),
        (Transport, tcp(json!({"mss": 100, "nc": {"block": 4096}}))),
        // TCP-RLC, its multipath source window either way (a flow with one path ignores it).
        (
            Transport,
            json!({"kind": "tcp_rlc", "redundancy": 3, "source_window": "per_block"}),
        ),
        (
            Transport,
            json!({"kind": "tcp_rlc", "redundancy": 19, "source_window": "per_round",
                   "initial_cwnd": 1000, "dupthresh": 1}),
        ),
        (
            Transport,
            json!({"kind": "tcp_rlc", "redundancy": 0, "source_window": "per_block",
                   "decoder": "exact", "initial_cwnd": 2048, "max_cwnd": 2048}),
        ),
        (Routing, json!({"kind": "static", "metric": "etx"})),
        (Routing, json!({"kind": "static", "metric": "ett"})),
        // The delivery threshold at its ends: every link, and only perfect links.
        (Routing, json!({"kind": "static", "min_delivery": 0.0})),
        (Routing, json!({"kind": "static", "symmetric": true})),
        (
            Routing,
            json!({"kind": "static", "metric": "etx", "symmetric": true}),
        ),
        (
            Routing,
            json!({"kind": "static", "metric": "ett", "min_delivery": 1.0}),
        ),
        (Routing, json!({"kind": "aodv", "min_delivery": 0.0})),
        (Routing, json!({"kind": "aodv", "min_delivery": 0.99})),
        (
            Routing,
            json!({"kind": "horizon", "paths": 2, "min_delivery": 0.0}),
        ),
        (
            Radio,
            json!({"standard": "802.11n", "data_rate": 65_000_000, "basic_rate": 6_000_000,
                   "tx_power": 16.0, "rate_control": {"kind": "aarf"},
                   "aggregation": {"max_ampdu_bytes": 65_535, "max_mpdus": 64,
                                   "max_amsdu_bytes": 3839},
                   "msdu_lifetime": MS,
                   "propagation": {"kind": "log_distance", "exponent": 3.0,
                                   "reference_distance": 1.0, "reference_loss": 46.6777}}),
        ),
        (
            Radio,
            json!({"standard": "802.11n", "data_rate": 150_000_000, "basic_rate": 24_000_000,
                   "ht": {"band": "2.4GHz", "channel_width": "40MHz", "guard_interval": "short"},
                   "aggregation": {"max_ampdu_bytes": 1, "max_mpdus": 1, "max_amsdu_bytes": 1},
                   "fading": {"kind": "rayleigh"}, "rts_cts": true,
                   "propagation": {"kind": "range", "range": 250.0}}),
        ),
        (
            Radio,
            json!({"standard": "802.11n", "data_rate": 6_500_000, "basic_rate": 6_000_000,
                   "aggregation": {"max_ampdu_bytes": 0},
                   "rate_control": {"kind": "minstrel"},
                   "propagation": {"kind": "range", "range": 250.0}}),
        ),
        (
            Radio,
            json!({"standard": "802.11n", "data_rate": 72_200_000, "basic_rate": 6_000_000,
                   "tx_power": 16.0, "ht": {"guard_interval": "short"},
                   "rate_control": {"kind": "minstrel_ht", "update_interval": 20 * MS},
                   "fading": {"kind": "rayleigh"},
                   "propagation": {"kind": "log_distance", "exponent": 3.0,
                                   "reference_distance": 1.0, "reference_loss": 46.6777}}),
        ),
        (
            Radio,
            json!({"standard": "802.11a", "data_rate": 54_000_000, "basic_rate": 6_000_000,
                   "tx_power": 16.0, "rate_control": {"kind": "ideal"},
                   "propagation": {"kind": "log_distance", "exponent": 3.5,
                                   "reference_distance": 1.0, "reference_loss": 46.6777}}),
        ),
        (
            Radio,
            json!({"standard": "802.11a", "data_rate": 24_000_000, "basic_rate": 6_000_000,
                   "rate_control": {"kind": "ideal", "max_per": 1e-9, "frame_bytes": 1},
                   "link_rates": [{"from": "n0", "to": "n1", "direction": "reverse",
                                   "rate": 6_000_000}],
                   "propagation": {"kind": "range", "range": 250.0}}),
        ),
        (
            Radio,
            json!({"standard": "802.11b", "data_rate": 11_000_000, "basic_rate": 1_000_000,
                   "ack_rate": "control", "rate_control": {"kind": "ideal"},
                   "propagation": {"kind": "two_ray_ground"}}),
        ),
        (
            Radio,
            json!({"standard": "802.11a", "data_rate": 54_000_000, "basic_rate": 6_000_000,
                   "tx_power": 16.0, "rate_control": {"kind": "aarf"}, "rts_cts": true,
                   "fading": {"kind": "rayleigh"},
                   "propagation": {"kind": "log_distance", "exponent": 3.5,
                                   "reference_distance": 1.0, "reference_loss": 46.6777}}),
        ),
        (
            Radio,
            json!({"standard": "802.11b", "data_rate": 11_000_000, "basic_rate": 1_000_000,
                   "rate_control": {"kind": "snr_threshold", "ber": 1e-300},
                   "fading": {"kind": "block", "coherence": MS},
                   "propagation": {"kind": "two_ray_ground"}}),
        ),
        (
            Radio,
            json!({"standard": "802.11b", "data_rate": 1_000_000, "basic_rate": 1_000_000,
                   "rate_control": {"kind": "arf", "success_threshold": 1, "timer_threshold": 1},
                   "propagation": {"kind": "range", "range": 250.0}}),
        ),
        (
            Radio,
            json!({"standard": "802.11a", "data_rate": 54_000_000, "basic_rate": 6_000_000,
                   "rate_control": {"kind": "minstrel", "update_interval": 1, "lookaround": 100,
                                    "ewma": 0, "sample_columns": 1, "packet_bytes": 1},
                   "fading": {"kind": "rayleigh"}, "rts_cts": true,
                   "propagation": {"kind": "range", "range": 250.0}}),
        ),
        (
            Radio,
            json!({"standard": "802.11b", "data_rate": 11_000_000, "basic_rate": 1_000_000,
                   "rate_control": {"kind": "minstrel", "sample_columns": 0},
                   "propagation": {"kind": "range", "range": 250.0}}),
        ),
        (
            Radio,
            json!({"standard": "802.11a", "data_rate": 54_000_000, "basic_rate": 6_000_000,
                   "rate_control": {"kind": "aarf", "min_success_threshold": 0},
                   "propagation": {"kind": "range", "range": 250.0}}),
        ),
        (
            Radio,
            json!({"standard": "802.11b", "data_rate": 2_000_000, "basic_rate": 1_000_000,
                   "mac": "glomosim", "cca_time": 0, "rx_sensitivity": -82.0,
                   "msdu_lifetime": 1_000, "frame_error": 0.15,
                   "frame_error_mode": "per_exchange", "reception": "sinr",
                   "propagation": {"kind": "range", "range": 250.0}}),
        ),
        (Routing, json!({"kind": "aodv", "local_repair": false})),
        (
            Routing,
            json!({"kind": "aodv", "hello": false, "hello_interval": 1, "allowed_hello_loss": 1}),
        ),
        (
            Routing,
            json!({"kind": "aodv", "hello_interval": MS, "allowed_hello_loss": 1}),
        ),
        (
            Routing,
            json!({"kind": "aodv", "local_repair": false, "hello_interval": u64::MAX,
                   "allowed_hello_loss": u32::MAX}),
        ),
        (Routing, json!({"kind": "aodv", "hello_interval": 0})),
        (Routing, json!({"kind": "aodv", "allowed_hello_loss": 0})),
        (Routing, json!({"kind": "backpressure"})),
        (
            Routing,
            json!({"kind": "backpressure", "differential": "classical", "estimate_interval": 1,
                         "report_idle": 1, "report_repeat": 1, "next_hops": "any",
                         "loss_estimate": "per_packet", "selection": "per_link"}),
        ),
        (
            Routing,
            json!({"kind": "backpressure", "k": 0.0, "next_hops": "closer_etx"}),
        ),
        (Routing, json!({"kind": "horizon"})),
        (
            Routing,
            json!({"kind": "horizon", "paths": 1, "metric": "hops", "threshold": 1,
                   "refresh_every": 1, "price": "queue", "next_hop": "cheapest_open",
                   "mac": "pull", "refresh_priority": "fifo", "refresh_idle": 1,
                   "refresh_repeat": 1, "buffer": 1, "sample_interval": 1_000_000,
                   "signal": "none",
                   "reorder": {"alpha": 1.0, "beta": 1.0, "d0": 0, "loss_detection": false}}),
        ),
        (
            Routing,
            json!({"kind": "horizon", "paths": 3, "threshold": 100, "k": 0.001,
                   "price_cap": 1.0, "min_window": 0.0}),
        ),
        (
            Routing,
            json!({"kind": "horizon", "refresh_rule": "eager", "path_choice": "lightest"}),
        ),
        (
            Routing,
            json!({"kind": "horizon", "refresh_budget": 1e-9, "paths": 3}),
        ),
        (
            Routing,
            json!({"kind": "horizon", "refresh_budget": 1.0, "refresh_every": 1,
                   "refresh_idle": 1}),
        ),
        (
            LinkError,
            json!({"from": "n0", "to": "n1", "direction": "both",
                           "error": {"kind": "bernoulli", "per": 1.0}}),
        ),
        (
            LinkError,
            json!({"from": "n1", "to": "n2", "direction": "reverse",
                           "error": {"kind": "gilbert_elliott", "p_good_bad": 1.0,
                                     "p_bad_good": 0.0, "per_good": 0.0, "per_bad": 1.0}}),
        ),
        (
            LinkError,
            json!({"from": "n0", "to": "n1",
                           "error": {"kind": "bimodal", "low": 0.0, "high": 1.0,
                                     "hold_min": 0, "hold_max": 1}}),
        ),
        (
            LinkError,
            json!({"from": "n0", "to": "n1",
                           "error": {"kind": "bimodal", "low": 0.2, "high": 0.9,
                                     "hold_min": 5, "hold_max": 5}}),
        ),
        (Failure, json!({"node": "n0", "at": S / 2})),
        (Failure, json!({"node": "n1", "at": 0})),
        (Failure, json!({"node": "n2", "at": 3 * S / 10})),
        (
            Metrics,
            json!({"bin": 1, "trace_rtt": true, "trace_cwnd": true, "trace_queues": true,
                   "trace_rates": true, "trace_interval": 1}),
        ),
        (
            Metrics,
            json!({"bin": MS, "trace_rtt": true, "trace_cwnd": true, "trace_interval": MS}),
        ),
        (
            Metrics,
            json!({"bin": u64::MAX, "trace_interval": u64::MAX, "trace_cwnd": true, "trace_queues": true}),
        ),
        (Limits, json!({"memory": 1})),
        (Limits, json!({"memory": 16 << 20})),
        (
            LinkLoss,
            json!({"kind": "bernoulli", "per": 1.0, "direction": "both"}),
        ),
        (
            LinkLoss,
            json!({"kind": "segments", "seqs": [0, 0, 1, u64::MAX]}),
        ),
        (
            Topology,
            json!({"kind": "chain", "hops": 4, "spacing": 200.0}),
        ),
        (
            Topology,
            json!({"kind": "chain", "hops": u32::MAX, "spacing": 1e-9}),
        ),
        (
            Topology,
            json!({"kind": "grid", "rows": 3, "cols": 3, "spacing": 200.0}),
        ),
        (
            Topology,
            json!({"kind": "grid", "rows": 65536, "cols": 65537, "spacing": 1.0}),
        ),
        (
            Topology,
            json!({"kind": "random", "n": 12, "width": 600.0, "height": 600.0}),
        ),
        (
            Topology,
            json!({"kind": "random", "n": 3000, "width": 1.0, "height": 1.0}),
        ),
        (
            Topology,
            json!({"kind": "cells", "rows": 2, "cols": 2, "width": 800.0, "height": 800.0,
                          "per_cell": 2, "gateway": {"x": 400.0, "y": 400.0}}),
        ),
        (
            Topology,
            json!({"kind": "explicit", "nodes": [{"name": "n0", "x": 0.0, "y": 0.0},
                          {"name": "n1", "x": 0.0, "y": 0.0}, {"name": "n2", "x": 1e300, "y": -1e300}]}),
        ),
        (Topology, json!({"kind": "ring", "n": 5})),
        (Topology, json!({"kind": "wheel", "n": 6})),
        (Topology, json!({"kind": "diamond"})),
        (Topology, json!({"kind": "butterfly", "spacing": 1e-300})),
        (CodingControl, json!({"kind": "periodic"})),
        (CodingControl, json!({"kind": "periodic", "period": 1})),
        (
            CodingControl,
            json!({"kind": "periodic", "period": u64::MAX}),
        ),
        (Trace, json!({"pcap": "all", "dir": pcap_dir()})),
        (
            Trace,
            json!({"pcap": ["n0", "n1"], "what": ["wifi"], "dir": pcap_dir()}),
        ),
        (
            Trace,
            json!({"pcap": ["A"], "what": ["wired"], "dir": pcap_dir()}),
        ),
        (Trace, json!({"pcap": ["nobody"], "dir": pcap_dir()})),
        (Trace, json!({"pcap": [], "dir": pcap_dir()})),
        (Trace, json!({"pcap": "all", "what": [], "dir": pcap_dir()})),
        (Trace, json!({"pcap": "all"})),
        (Trace, json!({"pcap": "all", "dir": "/proc/airtcp-fuzz"})),
        (CodingControl, json!({"kind": "idle_timer"})),
        (
            CodingControl,
            json!({"kind": "idle_timer", "report_idle": 1, "ack_delay": u64::MAX}),
        ),
    ]
}

/// The folder the `trace:` fragments write to.
fn pcap_dir() -> String {
    let dir = std::env::temp_dir().join("airtcp-fuzz-pcap");
    dir.to_string_lossy().into_owned()
}

/// Values a leaf may be replaced by.
fn extremes() -> Vec<Value> {
    vec![
        json!(0),
        json!(1),
        json!(-1),
        json!(2),
        json!(u32::MAX),
        json!(1u64 << 53),
        json!(u64::MAX),
        json!(i64::MIN),
        json!(0.5),
        json!(1e-300),
        json!(1e308),
        json!(-1e308),
        json!(""),
        json!("n0"),
        json!("\u{0}\u{fffd}\u{10ffff}"),
        Value::Null,
        json!(true),
        json!([]),
        json!({}),
        json!({"kind": "nonsense"}),
    ]
}

/// One change to a scenario; indices are taken modulo what they index.
#[derive(Debug, Clone)]
enum Mutation {
    /// Replace a leaf (or any value) with an extreme one.
    SetValue { at: usize, value: usize },
    /// Remove a key of an object.
    Delete { at: usize },
    /// Put a fragment where its slot is.
    Splice { fragment: usize, flow: usize },
    /// Copy a flow (same id: refused; renamed: two flows).
    DuplicateFlow { flow: usize, rename: bool },
    /// Swap a flow's ends.
    SwapEnds { flow: usize },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        3 => (any::<usize>(), any::<usize>()).prop_map(|(at, value)| Mutation::SetValue { at, value }),
        1 => any::<usize>().prop_map(|at| Mutation::Delete { at }),
        4 => (any::<usize>(), any::<usize>()).prop_map(|(fragment, flow)| Mutation::Splice { fragment, flow }),
        1 => (any::<usize>(), any::<bool>()).prop_map(|(flow, rename)| Mutation::DuplicateFlow { flow, rename }),
        1 => any::<usize>().prop_map(|flow| Mutation::SwapEnds { flow }),
    ]
}

/// A whole case: a seed scenario, its duration (short mostly) and the changes.
#[derive(Debug, Clone)]
struct Case {
    seed: usize,
    duration: u64,
    mutations: Vec<Mutation>,
}

fn case() -> impl Strategy<Value = Case> {
    let duration = prop_oneof![
        8 => (1u64..=1500).prop_map(|ms| ms * MS),
        1 => Just(1u64),
        1 => Just(10 * S),
    ];
    (
        any::<usize>(),
        duration,
        proptest::collection::vec(mutation(), 0..5),
    )
        .prop_map(|(seed, duration, mutations)| Case {
            seed,
            duration,
            mutations,
        })
}

/// Paths to every value of `v`, depth first (objects' keys in order).
fn value_paths(v: &Value, prefix: &mut Vec<PathPart>, out: &mut Vec<Vec<PathPart>>) {
    if !prefix.is_empty() {
        out.push(prefix.clone());
    }
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                prefix.push(PathPart::Key(k.clone()));
                value_paths(x, prefix, out);
                prefix.pop();
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                prefix.push(PathPart::Index(i));
                value_paths(x, prefix, out);
                prefix.pop();
            }
        }
        _ => {}
    }
}

#[derive(Debug, Clone)]
enum PathPart {
    Key(String),
    Index(usize),
}

fn at_path<'a>(v: &'a mut Value, path: &[PathPart]) -> &'a mut Value {
    path.iter().fold(v, |v, p| match p {
        PathPart::Key(k) => &mut v[k.as_str()],
        PathPart::Index(i) => &mut v[*i],
    })
}

/// Sets `key` of `v` if `v` is an object (a mutation may have turned any part into a number).
fn set_key(v: &mut Value, key: &str, value: Value) {
    if let Value::Object(o) = v {
        o.insert(key.into(), value);
    }
}

/// The list under `key` (made one if it is something else).
fn list<'a>(v: &'a mut Value, key: &str) -> Option<&'a mut Vec<Value>> {
    let Value::Object(o) = v else { return None };
    let entry = o.entry(key).or_insert_with(|| json!([]));
    if !entry.is_array() {
        *entry = json!([]);
    }
    entry.as_array_mut()
}

/// The scenario's flows (the root is always an object: no mutation replaces it).
fn flows(v: &mut Value) -> &mut Vec<Value> {
    list(v, "flows").expect("the root is an object")
}

/// The flow `i` (modulo their number), if there is one.
fn flow(v: &mut Value, i: usize) -> Option<&mut Value> {
    let list = flows(v);
    let n = list.len().max(1);
    list.get_mut(i % n)
}

fn apply(v: &mut Value, m: &Mutation, fragments: &[(Slot, Value)], extremes: &[Value]) {
    match *m {
        Mutation::SetValue { at, value } => {
            let mut paths = Vec::new();
            value_paths(v, &mut Vec::new(), &mut paths);
            if !paths.is_empty() {
                let path = &paths[at % paths.len()];
                *at_path(v, path) = extremes[value % extremes.len()].clone();
            }
        }
        Mutation::Delete { at } => {
            let mut paths = Vec::new();
            value_paths(v, &mut Vec::new(), &mut paths);
            paths.retain(|p| matches!(p.last(), Some(PathPart::Key(_))));
            if let Some(path) = paths.get(at % paths.len().max(1)) {
                let (last, parent) = path.split_last().expect("not the root");
                if let (PathPart::Key(k), Value::Object(o)) = (last, at_path(v, parent)) {
                    o.remove(k);
                }
            }
        }
        Mutation::Splice { fragment, flow: i } => {
            let (slot, frag) = &fragments[fragment % fragments.len()];
            splice(v, *slot, frag.clone(), i);
        }
        Mutation::DuplicateFlow { flow: i, rename } => {
            let n = flows(v).len();
            if let Some(mut f) = flow(v, i).cloned() {
                if rename {
                    set_key(&mut f, "id", json!(format!("copy{n}")));
                }
                flows(v).push(f);
            }
        }
        Mutation::SwapEnds { flow: i } => {
            if let Some(Value::Object(f)) = flow(v, i) {
                let (s, d) = (f.remove("src"), f.remove("dst"));
                f.insert("src".into(), d.unwrap_or(Value::Null));
                f.insert("dst".into(), s.unwrap_or(Value::Null));
            }
        }
    }
}

fn splice(v: &mut Value, slot: Slot, frag: Value, i: usize) {
    match slot {
        Slot::App => flow(v, i)
            .into_iter()
            .for_each(|f| set_key(f, "app", frag.clone())),
        Slot::Transport => flow(v, i)
            .into_iter()
            .for_each(|f| set_key(f, "transport", frag.clone())),
        Slot::Routing => set_key(v, "routing", frag),
        Slot::LinkError => list(v, "link_errors")
            .into_iter()
            .for_each(|l| l.push(frag.clone())),
        Slot::Failure => list(v, "failures")
            .into_iter()
            .for_each(|l| l.push(frag.clone())),
        Slot::Mobility => list(v, "mobility")
            .into_iter()
            .for_each(|l| l.push(frag.clone())),
        Slot::Metrics => set_key(v, "metrics", frag),
        Slot::Radio => set_key(v, "radio", frag),
        Slot::Limits => set_key(v, "limits", frag),
        Slot::Trace => set_key(v, "trace", frag),
        Slot::LinkLoss => {
            if let Some(Value::Array(links)) = v.get_mut("links") {
                let n = links.len().max(1);
                if let Some(l) = links.get_mut(i % n) {
                    set_key(l, "loss", frag);
                }
            }
        }
        Slot::CodingControl => match v.get_mut("coding") {
            Some(coding @ Value::Object(_)) => set_key(coding, "control", frag),
            _ => set_key(v, "coding", json!({ "control": frag })),
        },
        Slot::Topology => {
            set_key(v, "topology", frag);
            if v.get("radio").is_none_or(Value::is_null) {
                let radio = json!({"standard": "802.11b", "data_rate": 2_000_000,
                                   "basic_rate": 1_000_000,
                                   "propagation": {"kind": "range", "range": 250.0}});
                set_key(v, "radio", radio);
            }
        }
    }
}

/// Builds the scenario of `case`.
fn scenario(case: &Case, seeds: &[(String, Value)], fragments: &[(Slot, Value)]) -> Value {
    let extremes = extremes();
    let mut v = seeds[case.seed % seeds.len()].1.clone();
    rescale_time(&mut v, case.duration);
    for m in &case.mutations {
        apply(&mut v, m, fragments, &extremes);
    }
    cap_memory(&mut v);
    confine_traces(&mut v);
    v
}

/// Keeps the capture files of a `trace:` block whose folder a mutation changed to a text in the
/// fuzzer's own folder (a relative name would write into the working folder).
fn confine_traces(v: &mut Value) {
    let Some(Value::String(dir)) = v.get_mut("trace").and_then(|t| t.get_mut("dir")) else {
        return;
    };
    if !dir.is_empty() && !dir.contains('\u{0}') && !dir.starts_with("/proc/") {
        *dir = pcap_dir();
    }
}

/// Sets a seed scenario's duration, moving its flows' start and stop times and its failures
/// proportionally so that they still fall within the run.
fn rescale_time(v: &mut Value, duration: u64) {
    let old = v["duration"].as_u64().unwrap_or(duration).max(1);
    let scale = |t: &mut Value| {
        if let Some(x) = t.as_u64() {
            *t = json!((x as u128 * duration as u128 / old as u128) as u64);
        }
    };
    for f in flows(v).iter_mut() {
        for key in ["start", "stop", "start_jitter"] {
            scale(&mut f[key]);
        }
    }
    for f in list(v, "failures").into_iter().flatten() {
        scale(&mut f["at"]);
    }
    set_key(v, "duration", json!(duration));
}

/// Lowers the memory budget to [`MEMORY_CAP`] (the scenario's own, if lower and well-formed).
fn cap_memory(v: &mut Value) {
    let Value::Object(top) = v else { return };
    let limits = top.entry("limits").or_insert_with(|| json!({}));
    if let Value::Object(l) = limits {
        let own = l.get("memory").and_then(Value::as_u64).unwrap_or(u64::MAX);
        if l.get("memory").is_none_or(|m| m.as_u64().is_some()) {
            l.insert("memory".into(), json!(own.min(MEMORY_CAP)));
        }
    }
}

/// How a case ended.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Outcome {
    Ran,
    Refused(String),
    Slow,
}

type Answer = std::thread::Result<Result<Option<String>, airtcp::ConfigError>>;
type Job = (String, Arc<RunControl>, mpsc::Sender<Answer>);

/// The one thread every case runs on. One thread rather than one per case: memory a case frees
/// is then reused by the next, where threads of their own spread it over the allocator's
/// per-thread arenas and the process grew to many times the budget of any one case.
struct Worker {
    jobs: mpsc::Sender<Job>,
}

impl Worker {
    fn start() -> Self {
        let (jobs, inbox) = mpsc::channel::<Job>();
        std::thread::spawn(move || {
            for (input, control, reply) in inbox {
                let result =
                    std::panic::catch_unwind(|| airtcp::simulate_json_controlled(&input, &control));
                let _ = reply.send(result);
            }
        });
        Worker { jobs }
    }
}

/// Runs `json` on `worker` under the watchdog; `Err` for a broken invariant.
fn run_case(worker: &Worker, json: &str) -> Result<Outcome, String> {
    let control = Arc::new(RunControl::default());
    let (tx, rx) = mpsc::channel();
    worker
        .jobs
        .send((json.to_owned(), Arc::clone(&control), tx))
        .map_err(|_| "the worker is gone (a case before hung or panicked)".to_string())?;
    let started = Instant::now();
    let (mut last_time, mut last_change) = (0, Instant::now());
    let result = loop {
        match rx.recv_timeout(Duration::from_millis(20)) {
            Ok(r) => break r,
            Err(mpsc::RecvTimeoutError::Disconnected) => return Err("runner vanished".into()),
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
        let now = control.now();
        if now != last_time {
            (last_time, last_change) = (now, Instant::now());
        }
        if last_change.elapsed() > WALL_BUDGET {
            return Err(format!("hang: simulated time stuck at {now} ns"));
        }
        if started.elapsed() > WALL_BUDGET {
            control.request_stop();
            return match rx.recv_timeout(WALL_BUDGET) {
                Ok(Ok(Ok(None))) => Ok(Outcome::Slow),
                Ok(Ok(Ok(Some(_)))) => Ok(Outcome::Ran),
                Ok(Ok(Err(e))) => check_error(&e.path, &e.message),
                Ok(Err(_)) => Err("panic".into()),
                Err(_) => Err(format!(
                    "hang: did not stop when asked (simulated {now} ns)"
                )),
            };
        }
    };
    match result {
        Err(panic) => {
            let text = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            Err(format!("panic: {text}"))
        }
        Ok(Ok(Some(results))) => check_results(&results),
        Ok(Ok(None)) => Err("stopped though nobody asked".into()),
        Ok(Err(e)) => check_error(&e.path, &e.message),
    }
}

fn check_error(path: &str, message: &str) -> Result<Outcome, String> {
    if path.is_empty() || message.is_empty() || path.contains(char::is_whitespace) {
        return Err(format!(
            "error not in the form path: message: {path:?}: {message:?}"
        ));
    }
    let head = path.split(['.', '[']).next().unwrap_or(path).to_owned();
    Ok(Outcome::Refused(head))
}

fn check_results(json: &str) -> Result<Outcome, String> {
    let v: Value = serde_json::from_str(json).map_err(|e| format!("results not JSON: {e}"))?;
    let c = &v["conservation"];
    if c["ok"] != json!(true) {
        return Err(format!("conservation violated: {c}"));
    }
    Ok(Outcome::Ran)
}

fn cases() -> u32 {
    std::env::var("AIRTCP_FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(SHORT_CASES)
}

#[test]
fn the_core_answers_every_scenario() {
    let seeds = seeds();
    let fragments = fragments();
    let cases = cases();
    let long = cases > SHORT_CASES;
    let config = Config {
        cases,
        failure_persistence: None,
        // Shrinking reruns cases that may take the whole wall budget each: a few steps suffice.
        max_shrink_iters: 64,
        ..Config::default()
    };
    // A fixed seed: the short form is the same in every run; the long form varies it.
    let seed = if long {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64)
    } else {
        0x5eed
    };
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &bytes);
    let mut runner = TestRunner::new_with_rng(config, rng);
    let counts: Mutex<BTreeMap<String, u64>> = Mutex::default();
    let trace = std::env::var("AIRTCP_FUZZ_TRACE").ok();
    let worker = Worker::start();
    let started = Instant::now();
    let result = runner.run(&case(), |case| {
        let v = scenario(&case, &seeds, &fragments);
        let json = serde_json::to_string(&v).expect("serialises");
        if let Some(path) = &trace {
            // The case about to run, for a crash that takes the whole process (an abort).
            std::fs::write(path, &json).expect("trace written");
        }
        let outcome = run_case(&worker, &json).map_err(|why| {
            *counts.lock().unwrap().entry("FAILED".into()).or_default() += 1;
            // Printed at once: after a hang the worker stays stuck, so the cases proptest
            // shrinks to afterwards fail for that reason and the minimal one may mislead.
            eprintln!("fuzz failure: {why}\nscenario: {json}");
            TestCaseError::fail(format!("{why}\nscenario: {json}"))
        })?;
        let key = match outcome {
            Outcome::Ran => "ran".to_string(),
            Outcome::Slow => "slow (stopped at the wall budget)".to_string(),
            Outcome::Refused(field) => format!("refused: {field}"),
        };
        *counts.lock().unwrap().entry(key).or_default() += 1;
        Ok(())
    });
    let counts = counts.into_inner().unwrap();
    let total: u64 = counts.values().sum();
    let report = json!({
        "cases": total,
        "seed": seed,
        "wall_s": started.elapsed().as_secs_f64(),
        "outcomes": counts,
    });
    if long {
        println!("{}", serde_json::to_string_pretty(&report).unwrap());
    }
    if let Ok(path) = std::env::var("AIRTCP_FUZZ_REPORT") {
        if let Some(dir) = Path::new(&path).parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        std::fs::write(&path, serde_json::to_string_pretty(&report).unwrap())
            .expect("report written");
    }
    if let Err(e) = result {
        panic!(
            "{e}\noutcomes so far: {}",
            Value::Object(Map::from_iter(
                counts.into_iter().map(|(k, v)| (k, json!(v)))
            ))
        );
    }
}
