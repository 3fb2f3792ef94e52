use super::*;

fn link(from: NodeId, to: NodeId, capacity: u32, p_on: f64) -> Link {
    Link {
        from,
        to,
        capacity,
        p_on,
    }
}

fn single_link(capacity: u32, p_on: f64, source: FlowSource, slots: u64) -> SlottedConfig {
    SlottedConfig {
        num_nodes: 2,
        links: vec![link(0, 1, capacity, p_on)],
        conflicts: Conflicts::NodeExclusive,
        flows: vec![SlottedFlow {
            src: 0,
            dst: 1,
            source,
            allowed_links: None,
        }],
        differential: Differential::Classical,
        flow_control: None,
        backlogged_only: false,
        scheduler: SchedulerKind::default(),
        slots,
        seed: 1,
        trace_every: 0,
    }
}

#[test]
fn tables_beyond_the_memory_budget_are_refused() {
    let mut cfg = single_link(1, 1.0, FlowSource::Bernoulli { lambda: 0.5 }, 10);
    cfg.num_nodes = 1 << 40;
    assert_eq!(validate(&cfg).unwrap_err().path, "num_nodes");
    let mut cfg = single_link(1, 1.0, FlowSource::Bernoulli { lambda: 0.5 }, u64::MAX);
    cfg.trace_every = 1;
    assert_eq!(validate(&cfg).unwrap_err().path, "trace_every");
}

#[test]
fn single_link_below_capacity_is_stable() {
    let cfg = single_link(1, 1.0, FlowSource::Bernoulli { lambda: 0.6 }, 50_000);
    let r = run_slotted(&cfg).unwrap();
    // Arrivals join at the end of a slot and leave in the next: backlog is the last slot's
    // arrival, mean λ.
    assert!((r.mean_backlog - 0.6).abs() < 0.02, "{}", r.mean_backlog);
    // The per-queue averages add up to the total's.
    let per_queue: f64 = r.mean_queues.iter().sum();
    assert!((per_queue - r.mean_backlog).abs() < 1e-9, "{per_queue}");
    assert!(r.final_backlog <= 1.0);
    assert!((r.delivered[0] - r.admitted[0]).abs() <= 1.0);
    // With a flaky channel (effective capacity 0.8) the queue is still bounded.
    let cfg = single_link(1, 0.8, FlowSource::Bernoulli { lambda: 0.6 }, 50_000);
    let r = run_slotted(&cfg).unwrap();
    assert!(r.mean_backlog < 5.0, "{}", r.mean_backlog);
    assert!(r.final_backlog < 40.0, "{}", r.final_backlog);
}

#[test]
fn single_link_above_capacity_grows_at_lambda_minus_c() {
    let slots = 40_000;
    // Effective capacity R p_on = 0.5 against λ = 0.8.
    let cfg = single_link(1, 0.5, FlowSource::Bernoulli { lambda: 0.8 }, slots);
    let r = run_slotted(&cfg).unwrap();
    let slope = r.final_backlog / slots as f64;
    assert!((slope - 0.3).abs() < 0.01, "slope {slope}");
    // Linear growth: the time average is half the final backlog.
    assert!((r.mean_backlog / r.final_backlog - 0.5).abs() < 0.02);
    // Poisson λ = 2.5 into capacity 2.
    let cfg = single_link(2, 1.0, FlowSource::Poisson { lambda: 2.5 }, slots);
    let r = run_slotted(&cfg).unwrap();
    let slope = r.final_backlog / slots as f64;
    assert!((slope - 0.5).abs() < 0.02, "slope {slope}");
    assert!((r.admitted[0] / slots as f64 - 2.5).abs() < 0.03);
}

/// Three-node chain 0 -> 1 -> 2 whose two links conflict (they share node 1): each gets at
/// most half the slots, so the region is λ < 0.5.
fn chain(differential: Differential, lambda: f64) -> SlottedConfig {
    SlottedConfig {
        num_nodes: 3,
        links: vec![link(0, 1, 1, 1.0), link(1, 2, 1, 1.0)],
        conflicts: Conflicts::Protocol {
            positions: vec![(0.0, 0.0), (100.0, 0.0), (200.0, 0.0)],
            interference_range: 50.0,
        },
        flows: vec![SlottedFlow {
            src: 0,
            dst: 2,
            source: FlowSource::Bernoulli { lambda },
            allowed_links: None,
        }],
        differential,
        flow_control: None,
        backlogged_only: false,
        scheduler: SchedulerKind::default(),
        slots: 40_000,
        seed: 3,
        trace_every: 1000,
    }
}

#[test]
fn classical_and_tcp_aware_backpressure_are_stable_inside_the_region() {
    for d in [Differential::Classical, Differential::TcpAware { k: 5.0 }] {
        let r = run_slotted(&chain(d, 0.4)).unwrap();
        assert!(r.mean_backlog < 30.0, "{d:?}: {}", r.mean_backlog);
        // Stable: the second half's trace does not trend upwards.
        let tr = &r.backlog_trace;
        let first: f64 = tr[10..25].iter().map(|x| x.1).sum::<f64>() / 15.0;
        let last: f64 = tr[25..].iter().map(|x| x.1).sum::<f64>() / 15.0;
        assert!(last < first + 10.0, "{d:?}: {first} -> {last}");
        let thr = r.delivered[0] / 40_000.0;
        assert!((thr - 0.4).abs() < 0.01, "{d:?}: throughput {thr}");
        assert_eq!(r.inexact_slots, 0);
    }
    // Outside the region both queues grow. Fluid view: max-weight keeps U_0 - U_1 ≈ U_1, so
    // U_0 grows twice as fast as U_1: 0.7 - r0 = 2 (r0 - r1) with r0 + r1 = 1 gives
    // r0 = 0.54, delivery r1 = 0.46 and total growth 0.24 per slot (> λ - 0.5: max-weight
    // is throughput optimal only inside the region).
    let r = run_slotted(&chain(Differential::Classical, 0.7)).unwrap();
    let slope = r.final_backlog / 40_000.0;
    assert!((slope - 0.24).abs() < 0.01, "slope {slope}");
    assert!((r.delivered[0] / 40_000.0 - 0.46).abs() < 0.01);
}

#[test]
fn tcp_aware_serves_the_short_queue_of_example_2() {
    // Paper 000 Example 2: one transmitter I = 0, receivers 1 and 2 (one-hop flows, so each
    // is confined to its own link), U_I^1 = 1, U_I^2 = 3.
    // Classical backpressure serves flow 2 (the longer queue); with K = 10 both differentials
    // are 10 and the tie goes to the lower flow index, so the short queue is served too.
    let cfg = |differential| SlottedConfig {
        num_nodes: 3,
        links: vec![link(0, 1, 1, 1.0), link(0, 2, 1, 1.0)],
        conflicts: Conflicts::NodeExclusive,
        flows: vec![
            SlottedFlow {
                src: 0,
                dst: 1,
                source: FlowSource::Bernoulli { lambda: 0.0 },
                allowed_links: Some(vec![0]),
            },
            SlottedFlow {
                src: 0,
                dst: 2,
                source: FlowSource::Bernoulli { lambda: 0.0 },
                allowed_links: Some(vec![1]),
            },
        ],
        differential,
        flow_control: None,
        backlogged_only: false,
        scheduler: SchedulerKind::default(),
        slots: 1,
        seed: 0,
        trace_every: 0,
    };
    for (d, served) in [
        (Differential::Classical, 1),
        (Differential::TcpAware { k: 10.0 }, 0),
    ] {
        let mut sim = SlottedSim::new(&cfg(d)).unwrap();
        sim.queues[0] = 1.0; // U_0^0
        sim.queues[1] = 3.0; // U_0^1
        sim.total_backlog = 4.0;
        sim.step();
        let sched: Vec<_> = sim.last_schedule().collect();
        assert_eq!(sched, vec![(served, served)], "{d:?}");
    }
}

#[test]
fn flow_control_fills_the_link_with_backlog_near_m() {
    // One saturated log-utility flow over a capacity-1 link: the optimum is x = 1, reached
    // with U = M / x = M at the source (eq. (5): x = M / U).
    let mut cfg = single_link(
        1,
        1.0,
        FlowSource::Controlled {
            utility: Utility::Log,
        },
        20_000,
    );
    cfg.flow_control = Some(FlowControl {
        m: 20.0,
        r_max: 2.0,
    });
    let r = run_slotted(&cfg).unwrap();
    let thr = r.delivered[0] / 20_000.0;
    assert!(thr > 0.98, "throughput {thr}");
    assert!((r.final_backlog - 20.0).abs() < 2.0, "{}", r.final_backlog);
    // Missing flow control parameters are refused.
    cfg.flow_control = None;
    let e = SlottedSim::new(&cfg).err().unwrap();
    assert_eq!(e.path, "flow_control");
}

#[test]
fn configs_round_trip_through_json_and_bad_fields_are_named() {
    let cfg = chain(Differential::TcpAware { k: 2.0 }, 0.3);
    let json = serde_json::to_string(&cfg).unwrap();
    assert_eq!(serde_json::from_str::<SlottedConfig>(&json).unwrap(), cfg);
    let mut bad = cfg.clone();
    bad.links[1].p_on = 1.5;
    assert_eq!(SlottedSim::new(&bad).err().unwrap().path, "links[1].p_on");
    let mut bad = cfg;
    bad.conflicts = Conflicts::Explicit {
        pairs: vec![(0, 2)],
    };
    assert_eq!(
        SlottedSim::new(&bad).err().unwrap().path,
        "conflicts.pairs[0]"
    );
}

#[test]
fn grid_of_paper_size_is_scheduled_exactly() {
    // 4 x 3 grid, 200 m apart, both directions of every neighbour pair (34 links, like the
    // paper's Fig. 5c), protocol model with a 250 m range; two crossing flows.
    let (cols, rows) = (4u32, 3u32);
    let positions: Vec<_> = (0..rows * cols)
        .map(|v| ((v % cols) as f64 * 200.0, (v / cols) as f64 * 200.0))
        .collect();
    let mut links = Vec::new();
    for v in 0..rows * cols {
        if v % cols + 1 < cols {
            links.extend([link(v, v + 1, 1, 0.9), link(v + 1, v, 1, 0.9)]);
        }
        if v + cols < rows * cols {
            links.extend([link(v, v + cols, 1, 0.9), link(v + cols, v, 1, 0.9)]);
        }
    }
    assert_eq!(links.len(), 34);
    let flow = |src, dst| SlottedFlow {
        src,
        dst,
        source: FlowSource::Bernoulli { lambda: 0.15 },
        allowed_links: None,
    };
    let cfg = SlottedConfig {
        num_nodes: 12,
        links,
        conflicts: Conflicts::Protocol {
            positions,
            interference_range: 250.0,
        },
        flows: vec![flow(0, 11), flow(3, 8)],
        differential: Differential::TcpAware { k: 4.0 },
        flow_control: None,
        backlogged_only: false,
        scheduler: SchedulerKind::default(),
        slots: 20_000,
        seed: 9,
        trace_every: 0,
    };
    let r = run_slotted(&cfg).unwrap();
    assert_eq!(r.inexact_slots, 0);
    for s in 0..2 {
        let thr = r.delivered[s] / 20_000.0;
        assert!((thr - 0.15).abs() < 0.01, "flow {s}: {thr}");
    }
    assert!(r.final_backlog < 500.0, "{}", r.final_backlog);
}

#[test]
fn runs_are_reproducible() {
    let cfg = chain(Differential::TcpAware { k: 3.0 }, 0.45);
    assert_eq!(run_slotted(&cfg).unwrap(), run_slotted(&cfg).unwrap());
    let mut other = cfg.clone();
    other.seed = 4;
    assert_ne!(run_slotted(&cfg).unwrap(), run_slotted(&other).unwrap());
}
