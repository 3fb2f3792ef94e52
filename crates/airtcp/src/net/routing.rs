//! Static shortest-path routing by hop count.
//!
//! Breadth-first search from every node over the channel graph; among equal-length paths the one
//! through the lowest channel id wins, so routes depend only on the scenario's order of links.

use std::collections::VecDeque;

use crate::sim::{ChannelId, NodeId};

/// No route marker in the table.
pub const NO_ROUTE: ChannelId = ChannelId::MAX;

/// Next-hop table: `next[node * n + dst]` is the channel to send on.
#[derive(Debug, Clone)]
pub struct RoutingTable {
    n: usize,
    next: Vec<ChannelId>,
}

impl RoutingTable {
    /// Builds shortest-path routes for `n` nodes over `channels` given as (from, to), indexed by
    /// channel id.
    pub fn shortest_paths(n: usize, channels: &[(NodeId, NodeId)]) -> Self {
        // Reverse adjacency: to reach `dst`, BFS backwards from it; the first channel found into
        // each node on the way is that node's next hop towards `dst`.
        let mut incoming: Vec<Vec<ChannelId>> = vec![Vec::new(); n];
        for (id, &(from, to)) in channels.iter().enumerate() {
            let _ = from;
            incoming[to as usize].push(id as ChannelId);
        }
        let mut next = vec![NO_ROUTE; n * n];
        let mut dist = vec![u32::MAX; n];
        let mut queue = VecDeque::new();
        for dst in 0..n {
            dist.fill(u32::MAX);
            dist[dst] = 0;
            queue.clear();
            queue.push_back(dst);
            while let Some(v) = queue.pop_front() {
                for &ch in &incoming[v] {
                    let u = channels[ch as usize].0 as usize;
                    if dist[u] == u32::MAX {
                        dist[u] = dist[v] + 1;
                        next[u * n + dst] = ch;
                        queue.push_back(u);
                    }
                }
            }
        }
        RoutingTable { n, next }
    }

    /// Channel to use at `node` for packets to `dst` (`NO_ROUTE` if unreachable or `node == dst`).
    pub fn next_hop(&self, node: NodeId, dst: NodeId) -> ChannelId {
        self.next[node as usize * self.n + dst as usize]
    }

    /// Whether `dst` is reachable from `src`.
    pub fn reachable(&self, src: NodeId, dst: NodeId) -> bool {
        src == dst || self.next_hop(src, dst) != NO_ROUTE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chain_routes_hop_by_hop() {
        // 0 <-> 1 <-> 2, channels: 0:(0,1) 1:(1,0) 2:(1,2) 3:(2,1)
        let t = RoutingTable::shortest_paths(3, &[(0, 1), (1, 0), (1, 2), (2, 1)]);
        assert_eq!(t.next_hop(0, 2), 0);
        assert_eq!(t.next_hop(1, 2), 2);
        assert_eq!(t.next_hop(2, 0), 3);
        assert_eq!(t.next_hop(1, 0), 1);
        assert!(t.reachable(0, 2));
    }

    #[test]
    fn unreachable_is_reported() {
        let t = RoutingTable::shortest_paths(3, &[(0, 1), (1, 0)]);
        assert_eq!(t.next_hop(0, 2), NO_ROUTE);
        assert!(!t.reachable(0, 2));
    }
}
