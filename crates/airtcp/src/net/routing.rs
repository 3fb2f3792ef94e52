//! Static shortest-path routing by hop count over every kind of interface.
//!
//! Breadth-first search backwards from each destination over the directed edges
//! (from, to, interface); among equal-length paths the edge found first wins (wired channels in
//! link order, then wireless neighbours in node order), so routes depend only on the scenario.
//! Tables are kept only for destinations that traffic uses, so a 10,000-node mesh with a few
//! hundred flow end points needs megabytes, not the gigabytes of an all-pairs table.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use crate::sim::NodeId;

/// The default delivery threshold of a radio link for routing: a full-size data frame gets
/// through at least every other attempt, both ways (the argument is in docs/routing_paths.md).
pub fn default_min_delivery() -> f64 {
    0.5
}

/// The `static` routing block: shortest paths computed once over the links that deliver data
/// (`min_delivery`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StaticConfig {
    /// Path metric.
    #[serde(default)]
    pub metric: RouteMetric,
    /// The delivery threshold of a radio link (`scenario::usable_links`): routes and flow
    /// paths use a link only if a full-size data frame at its rate gets through with at
    /// least this probability both ways; 0 uses every link the receiver locks onto.
    #[serde(default = "default_min_delivery")]
    #[schemars(transform = crate::quantity::probability)]
    #[schemars(extend("x-omit-default" = true))]
    pub min_delivery: f64,
    /// Routes that the reverse traffic retraces (ACKs, a shim's packets from the destination):
    /// a flow without `paths` follows its least-weight path by `metric`, pinned both ways, as a
    /// symmetric routing protocol keeps them (Horizon's VRR, paper 003). Without it each
    /// direction takes the routing table's shortest path, and under exact ties (a ring, a grid)
    /// data and ACKs may go different ways.
    #[serde(default)]
    #[schemars(extend("x-omit-default" = true))]
    pub symmetric: bool,
}

impl Default for StaticConfig {
    fn default() -> Self {
        StaticConfig {
            metric: RouteMetric::Hops,
            min_delivery: default_min_delivery(),
            symmetric: false,
        }
    }
}

impl crate::net::forwarding::RoutingScheme for StaticConfig {
    fn min_delivery(&self) -> Option<f64> {
        Some(self.min_delivery)
    }

    /// Symmetric routes are the one least-weight path, reversed for the way back.
    fn implied_paths(&self) -> Option<(u32, RouteMetric)> {
        self.symmetric.then_some((1, self.metric))
    }
}

/// Static route metric.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum RouteMetric {
    /// Hop count.
    #[default]
    Hops,
    /// Expected transmission count 1 / (df dr) from the links' error processes.
    Etx,
    /// Expected transmission time: the air time of a 1500-byte packet at the link's data rate
    /// times its ETX (Draves et al., MobiCom 2004, with the rate from the rate table).
    Ett,
}

/// The interface a packet leaves by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Iface {
    /// A wired channel (one direction of a point-to-point link).
    Channel(u32),
    /// A radio; the next hop is addressed on the shared medium.
    Radio(u32),
    /// The base station's slotted downlink to the given user (see [`super::cellular`]).
    Downlink(u32),
    /// A wireless router's port to one of its users (see [`super::router`]).
    Router(u32),
}

/// Next hop towards a destination.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hop {
    /// Interface to send on.
    pub iface: Iface,
    /// Neighbour that receives the packet.
    pub node: NodeId,
}

/// A directed edge of the connectivity graph.
#[derive(Debug, Clone, Copy)]
pub struct Edge {
    /// Sending node.
    pub from: NodeId,
    /// Receiving node.
    pub to: NodeId,
    /// Interface used.
    pub iface: Iface,
}

const NONE: u32 = u32::MAX;

/// Next-hop tables for a set of destinations.
#[derive(Debug, Clone)]
pub struct RoutingTable {
    slot_of: Vec<u32>,
    next: Vec<Vec<Option<Hop>>>,
}

impl RoutingTable {
    /// Shortest paths for `n` nodes over `edges`, towards every node in `destinations`.
    pub fn shortest_paths(n: usize, edges: &[Edge], destinations: &[NodeId]) -> Self {
        let mut incoming: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (i, e) in edges.iter().enumerate() {
            incoming[e.to as usize].push(i as u32);
        }
        let mut slot_of = vec![NONE; n];
        let mut next = Vec::new();
        let mut seen = vec![false; n];
        let mut queue = VecDeque::new();
        for &dst in destinations {
            if slot_of[dst as usize] != NONE {
                continue;
            }
            slot_of[dst as usize] = next.len() as u32;
            let mut table = vec![None; n];
            seen.fill(false);
            seen[dst as usize] = true;
            queue.clear();
            queue.push_back(dst);
            while let Some(v) = queue.pop_front() {
                for &ei in &incoming[v as usize] {
                    let e = edges[ei as usize];
                    let u = e.from as usize;
                    if !seen[u] {
                        seen[u] = true;
                        table[u] = Some(Hop {
                            iface: e.iface,
                            node: e.to,
                        });
                        queue.push_back(e.from);
                    }
                }
            }
            next.push(table);
        }
        RoutingTable { slot_of, next }
    }

    /// A table from its parts: per node the index of its next-hop table (`u32::MAX` if the node
    /// is not a destination), and the tables (used by the weighted searches in `paths`).
    pub fn from_parts(slot_of: Vec<u32>, next: Vec<Vec<Option<Hop>>>) -> Self {
        RoutingTable { slot_of, next }
    }

    /// Next hop at `node` towards `dst` (`None` if unreachable, unknown, or `node == dst`).
    pub fn next_hop(&self, node: NodeId, dst: NodeId) -> Option<Hop> {
        let slot = *self.slot_of.get(dst as usize)?;
        if slot == NONE {
            return None;
        }
        self.next[slot as usize][node as usize]
    }

    /// Whether `dst` is reachable from `src`.
    pub fn reachable(&self, src: NodeId, dst: NodeId) -> bool {
        src == dst || self.next_hop(src, dst).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ch(from: NodeId, to: NodeId, id: u32) -> Edge {
        Edge {
            from,
            to,
            iface: Iface::Channel(id),
        }
    }

    #[test]
    fn chain_routes_hop_by_hop() {
        let edges = [ch(0, 1, 0), ch(1, 0, 1), ch(1, 2, 2), ch(2, 1, 3)];
        let t = RoutingTable::shortest_paths(3, &edges, &[0, 2]);
        assert_eq!(
            t.next_hop(0, 2),
            Some(Hop {
                iface: Iface::Channel(0),
                node: 1
            })
        );
        assert_eq!(t.next_hop(1, 2).unwrap().iface, Iface::Channel(2));
        assert_eq!(t.next_hop(2, 0).unwrap().iface, Iface::Channel(3));
        assert!(t.reachable(0, 2));
        // Node 1 is not a destination: no table for it.
        assert_eq!(t.next_hop(0, 1), None);
    }

    #[test]
    fn unreachable_is_reported() {
        let t = RoutingTable::shortest_paths(3, &[ch(0, 1, 0), ch(1, 0, 1)], &[2]);
        assert_eq!(t.next_hop(0, 2), None);
        assert!(!t.reachable(0, 2));
    }

    #[test]
    fn radio_edges_route_through_the_medium() {
        let r = |from, to| Edge {
            from,
            to,
            iface: Iface::Radio(from),
        };
        let t = RoutingTable::shortest_paths(3, &[r(0, 1), r(1, 0), r(1, 2), r(2, 1)], &[2]);
        assert_eq!(
            t.next_hop(0, 2),
            Some(Hop {
                iface: Iface::Radio(0),
                node: 1
            })
        );
    }
}
