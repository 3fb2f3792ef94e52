//! No allocation per packet after warm-up (paper 004's performance requirement): a counting
//! allocator measures a run of TCP-RLC flows through the wireless router, and the same run twice
//! as long. Once the packet arena, the event list, the router's queue pairs and the decoders'
//! buffers have grown to their working sizes, the second half adds only what grows with time
//! rather than with packets: the goodput series' rows of the results (one per flow and second)
//! and a few doublings; the extra minute carries some 470 000 packets and over a thousand blocks.
//!
//! The counting allocator is the integration binary's global allocator, and the other tests run
//! beside this one on their own threads: it counts per thread (a `const`-initialised thread
//! local, which allocates nothing itself), so only this test's run is counted. (A shared
//! counter picked up the allocations of tests running in parallel and failed now and then.)

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use serde_json::{json, Value};

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

fn count_one() {
    // `try_with`: a thread being torn down may still free and allocate after its locals are gone.
    let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
}

fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count_one();
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count_one();
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const MS: u64 = 1_000_000;
const S: u64 = 1_000_000_000;
const FLOWS: usize = 6;

/// FLOWS flows S_i -> R -> D_i, 1 Mbps each, p_1 = 0.5 a quarter of the time, channel-aware.
fn scenario(duration: u64) -> Value {
    let mut nodes = vec![json!("R")];
    let (mut links, mut users, mut flows) = (vec![], vec![], vec![]);
    for i in 0..FLOWS {
        nodes.push(json!(format!("S{i}")));
        nodes.push(json!(format!("D{i}")));
        links.push(
            json!({"from": format!("S{i}"), "to": "R", "rate": 100_000_000u64,
                          "delay": (100 + 20 * i as u64) * MS,
                          "queue": {"kind": "droptail", "packets": 10_000}}),
        );
        users.push(json!({"node": format!("D{i}"),
                          "channel": {"kind": "bimodal", "low": 0.5, "high": 1.0,
                                      "low_probability": 0.25, "hold_min": 100 * MS,
                                      "hold_max": 200 * MS}}));
        flows.push(json!({"id": format!("f{i}"), "src": format!("S{i}"), "dst": format!("D{i}"),
                          "app": {"kind": "bulk"}, "transport": {"kind": "tcp_rlc", "redundancy": 3}}));
    }
    json!({
        "name": "rlc-allocations", "duration": duration, "seed": 3, "nodes": nodes, "links": links,
        "routers": [{"node": "R", "rate": FLOWS as u64 * 1_024_000, "users": users,
                     "queue": {"kind": "droptail", "packets": 1000},
                     "priority_pairs": {"buffers": {"high": 150, "low": 150},
                                        "low_policy": {"kind": "channel_aware", "kappa": 2.0}}}],
        "flows": flows,
    })
}

/// Allocations of a whole run (building, simulating, results) and the packets it created.
fn allocations_of(duration: u64) -> (u64, u64) {
    let cfg = serde_json::from_value(scenario(duration)).expect("valid scenario");
    let before = allocations();
    let results = airtcp::simulate(&cfg).expect("scenario builds");
    let after = allocations();
    assert!(results.conservation.ok, "{:?}", results.conservation);
    (after - before, results.conservation.created)
}

#[test]
fn tcp_rlc_through_the_router_allocates_nothing_per_packet_after_warm_up() {
    let (short, packets_short) = allocations_of(60 * S);
    let (long, packets_long) = allocations_of(120 * S);
    let more_packets = packets_long - packets_short;
    assert!(
        more_packets > 50_000,
        "the second minute carries packets: {more_packets}"
    );
    // What the results add per second of run: one row of the goodput series per flow (its
    // flow-name string); a few more for the doublings of growing vectors.
    let per_time = FLOWS as u64 * 60;
    let more_allocations = long.saturating_sub(short);
    assert!(
        more_allocations <= per_time + 64,
        "{more_allocations} more allocations for {more_packets} more packets (series rows: {per_time})"
    );
}
