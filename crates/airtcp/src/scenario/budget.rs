//! The memory budget of a run: a scenario whose allocations would exceed it is refused with the
//! path of the field that makes them large, instead of the process aborting when an allocation
//! fails (which no caller can catch).
//!
//! Two parts:
//!
//! - **Fixed** allocations, known from the scenario before the first event and charged while the
//!   world is built ([`MemoryBudget::charge`]): nodes and radios, radio neighbour lists (an upper
//!   bound from the spatial grid, charged before the lists are built), static routing tables,
//!   the flows' paths, each TCP flow's largest possible window (its scoreboard entries and, with the NC layer, the
//!   coefficient vectors the source keeps per segment), and the time series the results will
//!   hold (goodput bins, cwnd samples).
//! - **Growth** during the run (packets alive in queues, pending events, RTT samples), checked
//!   every few thousand events by [`MemoryBudget::check_growth`]; a run that outgrows the budget
//!   stops with an error naming `limits.memory`.
//!
//! The byte counts are estimates from the in-memory sizes of the structures (`size_of`) plus
//! the per-row cost of the serialised results; they err on the high side. The default budget,
//! 4 GiB, leaves room for two runs side by side on an 8 GiB machine; `limits.memory` sets it.

use std::mem::size_of;

use super::config::{AppConfig, PathsConfig, ScenarioConfig, TransportConfig};
use super::topology::{node_count, Placed};
use crate::error::ConfigError;
use crate::mac::dcf::Dcf;
use crate::net::routing::{Edge, Hop};
use crate::net::wireless::{Neighbor, NeighborStats, RadioState};
use crate::sim::{NodeId, Packet};
use crate::transport::tcp::scoreboard::SegState;

use crate::sim::memory::{MemoryBudget, SERIES_ROW_BYTES};

/// Bytes per node: its radio and MAC, its placement, name, id and per-node tables.
fn node_bytes() -> u64 {
    (size_of::<RadioState>() + size_of::<Dcf>() + size_of::<Placed>() + 256) as u64
}

/// Bytes per directed radio neighbour pair: the neighbour entry, its statistics, the routing
/// edge, its index and weight, its share of a shortest-path search's heap (an edge may push one
/// entry) and its entry in ETX's table of incoming deliveries (sender id and ratio).
pub fn neighbour_pair_bytes() -> u64 {
    (size_of::<Neighbor>() + size_of::<NeighborStats>() + size_of::<Edge>() + 4 + 8 + 32 + 16)
        as u64
}

/// Charges what `cfg` fixes before its first event, except the radio neighbour lists (charged
/// once the nodes are placed, see [`neighbour_pairs_bound`]).
pub fn charge_scenario(cfg: &ScenarioConfig, budget: &mut MemoryBudget) -> Result<(), ConfigError> {
    let placed = cfg.topology.as_ref().map_or(0, node_count);
    let nodes = placed.saturating_add(cfg.nodes.len() as u64);
    let path = if cfg.topology.is_some() {
        "topology"
    } else {
        "nodes"
    };
    budget.charge(path, "nodes", nodes, node_bytes())?;
    // Static routes: one next-hop table over all nodes per distinct flow end point.
    let mut ends: Vec<&str> = cfg
        .flows
        .iter()
        .flat_map(|f| [f.src.as_str(), f.dst.as_str()])
        .collect();
    ends.sort_unstable();
    ends.dedup();
    let tables = (ends.len() as u64).saturating_mul(nodes);
    budget.charge(
        "flows",
        "routing table entries",
        tables,
        size_of::<Option<Hop>>() as u64,
    )?;
    charge_flow_paths(cfg, nodes, budget)?;
    let bins = cfg.duration.div_ceil(cfg.metrics.bin.max(1));
    let flows = cfg.flows.len() as u64;
    budget.charge(
        "metrics.bin",
        "goodput bins",
        bins.saturating_mul(flows),
        SERIES_ROW_BYTES,
    )?;
    let tcp_flows = cfg
        .flows
        .iter()
        .filter(|f| matches!(f.transport, TransportConfig::Tcp(_)))
        .count() as u64;
    if cfg.metrics.trace_cwnd {
        let samples = cfg.duration.div_ceil(cfg.metrics.trace_interval.max(1));
        let rows = samples.saturating_mul(tcp_flows);
        // A cwnd sample has five columns, eight with a delay-based law's estimates.
        let delay = cfg.flows.iter().any(|f| match &f.transport {
            TransportConfig::Tcp(t) => t.cc.traces_delay_state(),
            _ => false,
        });
        budget.charge(
            "metrics.trace_interval",
            "cwnd samples",
            rows,
            if delay { 3 } else { 2 } * SERIES_ROW_BYTES,
        )?;
    }
    if cfg.metrics.trace_queues {
        // A row per queue per sample: both directions of every wired link, every radio (one a
        // node, more where `node_channels` gives a node several), every wireless router.
        let radios = cfg.radio.as_ref().map_or(0, |r| {
            let extra: u64 = r
                .node_channels
                .values()
                .map(|c| (c.len() as u64).saturating_sub(1))
                .sum();
            nodes.saturating_add(extra)
        });
        let queues = (cfg.links.len() as u64)
            .saturating_mul(2)
            .saturating_add(radios)
            .saturating_add(cfg.routers.len() as u64);
        let samples = cfg.duration.div_ceil(cfg.metrics.trace_interval.max(1));
        budget.charge(
            "metrics.trace_interval",
            "queue samples",
            samples.saturating_mul(queues),
            SERIES_ROW_BYTES,
        )?;
    }
    for (i, f) in cfg.flows.iter().enumerate() {
        let (TransportConfig::Tcp(t), AppConfig::Bulk { .. }) = (&f.transport, &f.app) else {
            continue;
        };
        // The window never exceeds rwnd; every segment in it has a scoreboard entry and may
        // be a packet alive in a queue; a shim may keep something per segment too.
        let segments = t.rwnd.div_ceil(t.mss.max(1) as u64);
        let each =
            (size_of::<SegState>() + size_of::<Packet>() + 16) as u64 + t.shim_bytes_per_segment();
        budget.charge(
            &format!("flows[{i}].transport.rwnd"),
            "segments of window",
            segments,
            each,
        )?;
    }
    Ok(())
}

/// The flows' paths (`net::flow_paths`): a slot per node, and per path a position per node on
/// any path (at most every node) and a node and two hops per node on it (a disjoint path may pass
/// every node). Nothing without paths.
fn charge_flow_paths(
    cfg: &ScenarioConfig,
    nodes: u64,
    budget: &mut MemoryBudget,
) -> Result<(), ConfigError> {
    let per_path = |p: &PathsConfig| match p {
        PathsConfig::Explicit { paths, .. } => (
            paths.len() as u64,
            paths.iter().map(|p| p.len() as u64).sum::<u64>(),
        ),
        PathsConfig::Disjoint { k, .. } => (*k as u64, (*k as u64).saturating_mul(nodes)),
    };
    let on_paths: u64 = cfg
        .flows
        .iter()
        .filter_map(|f| f.paths.as_ref().map(|p| per_path(p).1))
        .fold(0, u64::saturating_add);
    let slots = on_paths.min(nodes);
    let mut first = true;
    for (i, f) in cfg.flows.iter().enumerate() {
        let Some(p) = &f.paths else {
            continue;
        };
        let path = format!("flows[{i}].paths");
        if first {
            budget.charge(&path, "path slots", nodes, 4)?;
            first = false;
        }
        let (count, hops) = per_path(p);
        budget.charge(&path, "path positions", count.saturating_mul(slots), 4)?;
        let hop = (size_of::<NodeId>() + 2 * size_of::<Option<Hop>>()) as u64;
        budget.charge(&path, "path hops", hops, hop)?;
    }
    Ok(())
}

/// Upper bound on the directed neighbour pairs of points bucketed into square cells as wide as
/// the reach: each point may neighbour every point of its own and the 8 surrounding cells
/// (which is where `neighbor_lists` looks). `cells` holds the occupancy of every non-empty cell,
/// keyed by (channel, column, row).
pub fn neighbour_pairs_bound(cells: &std::collections::BTreeMap<(u32, i64, i64), u64>) -> u64 {
    let mut pairs = 0u64;
    for (&(ch, cx, cy), &own) in cells {
        let mut around = 0u64;
        for dx in -1..=1 {
            for dy in -1..=1 {
                around += cells.get(&(ch, cx + dx, cy + dy)).copied().unwrap_or(0);
            }
        }
        pairs = pairs.saturating_add(own.saturating_mul(around.saturating_sub(1)));
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::memory::DEFAULT_MEMORY_BYTES;

    #[test]
    fn charges_add_up_and_the_first_one_over_names_its_field() {
        let mut b = MemoryBudget::new(1000);
        b.charge("nodes", "nodes", 10, 50).unwrap();
        b.charge("metrics.bin", "goodput bins", 5, 100).unwrap();
        let e = b.charge("topology.hops", "nodes", 1, 1).unwrap_err();
        assert_eq!(e.path, "topology.hops");
        assert!(
            e.message.contains("1000 B (limits.memory)"),
            "{}",
            e.message
        );
        assert_eq!(b.fixed(), 1001);
    }

    #[test]
    fn huge_counts_saturate_instead_of_wrapping() {
        let mut b = MemoryBudget::new(DEFAULT_MEMORY_BYTES);
        let e = b
            .charge("topology", "nodes", u64::MAX, u64::MAX)
            .unwrap_err();
        assert!(
            e.message.contains("18,446,744,073,709,551,615 nodes"),
            "{}",
            e.message
        );
    }

    #[test]
    fn growth_is_checked_on_top_of_the_fixed_part() {
        let mut b = MemoryBudget::new(1 << 20);
        b.charge("x", "things", 1, 1 << 19).unwrap();
        assert!(b.check_growth(1 << 19, 0, &String::new).is_ok());
        let detail = || "7 packets alive".to_string();
        let e = b
            .check_growth((1 << 19) + 1, 2_500_000_000, &detail)
            .unwrap_err();
        assert_eq!(e.path, "limits.memory");
        assert!(
            e.message
                .contains("1.0 MiB at 2.500000 s simulated (7 packets alive)"),
            "{}",
            e.message
        );
    }

    #[test]
    fn the_scenario_default_is_the_budget_default() {
        let limits = super::super::config::LimitsConfig::default();
        assert_eq!(limits.memory, DEFAULT_MEMORY_BYTES);
    }

    #[test]
    fn neighbour_bound_counts_the_nine_cells_around() {
        // Three points in one cell, two in the cell to its right, one far away.
        let mut cells = std::collections::BTreeMap::new();
        cells.insert((1, 0, 0), 3);
        cells.insert((1, 1, 0), 2);
        cells.insert((1, 9, 9), 1);
        // 3 x (5 - 1) + 2 x (5 - 1) + 1 x 0.
        assert_eq!(neighbour_pairs_bound(&cells), 20);
    }
}
