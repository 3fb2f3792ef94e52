//! Static shortest-path routing by hop count over every kind of interface.
//!
//! Breadth-first search backwards from each destination over the directed edges
//! (from, to, interface); among equal-length paths the edge found first wins (wired channels in
//! link order, then wireless neighbours in node order), so routes depend only on the scenario.
//! Tables are kept only for destinations that traffic uses, a byte or two per node and
//! destination ([`RoutingTable`]), so a 100,000-node mesh with 2,000 flow end points needs 200 MB,
//! not the gigabytes of an all-pairs table.

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
///
/// Stored compactly, because a city-sized mesh has many destinations and many nodes (2,000 flow
/// ends and 100,000 nodes are 2 * 10^8 entries: 2.4 GB as `Option<Hop>`, 200 MB here). A node's
/// next hop is always one of its own out-edges, so an entry is the position of that edge among
/// the node's out-edges, in the narrowest unsigned type that holds the largest out-degree (a
/// byte for a mesh of a few tens of neighbours); the hops themselves are kept once per edge.
#[derive(Debug, Clone)]
pub struct RoutingTable {
    /// Nodes.
    n: usize,
    /// Per node: the index of its table if it is a destination, else `NONE`.
    slot_of: Vec<u32>,
    /// Per node: where its out-edges' hops start in `hops` (`n + 1` entries).
    hop_start: Vec<u32>,
    /// Every node's out-edges as hops, node by node, each node's in edge order.
    hops: Vec<Hop>,
    /// Per table and node (`slot * n + node`): the next hop's position among the node's
    /// out-edges, or the type's maximum for none.
    choice: Choice,
}

/// The entries of every table, flat, in the narrowest width that fits; or, while that costs
/// little memory, the next hops themselves, whose lookup (one array read) is what the packets of
/// a small network pay on every hop.
#[derive(Debug, Clone)]
enum Choice {
    Hops(Vec<Option<Hop>>),
    U8(Vec<u8>),
    U16(Vec<u16>),
    U32(Vec<u32>),
}

/// Tables up to this size keep their next hops whole ([`Choice::Hops`]): on a two-node link the
/// narrow form's lookup (width, entry, the node's first out-edge, the hop) cost 2.4 % more
/// instructions per run than reading the hop.
const WHOLE_HOPS_BYTES: usize = 16 << 20;

impl Choice {
    /// This choice with the hops whole, if they fit [`WHOLE_HOPS_BYTES`].
    fn widened(self, n: usize, out_start: &[u32], hops: &[Hop]) -> Choice {
        let entries = match &self {
            Choice::Hops(_) => return self,
            Choice::U8(c) => c.len(),
            Choice::U16(c) => c.len(),
            Choice::U32(c) => c.len(),
        };
        if entries * std::mem::size_of::<Option<Hop>>() > WHOLE_HOPS_BYTES {
            return self;
        }
        let whole =
            |at: usize, k: Option<u32>| k.map(|k| hops[(out_start[at % n.max(1)] + k) as usize]);
        Choice::Hops(
            (0..entries)
                .map(|at| {
                    let k = match &self {
                        Choice::Hops(_) => None,
                        Choice::U8(c) => entry_at(c, at),
                        Choice::U16(c) => entry_at(c, at),
                        Choice::U32(c) => entry_at(c, at),
                    };
                    whole(at, k)
                })
                .collect(),
        )
    }
}

/// An unsigned width for table entries, whose maximum marks "no next hop".
trait Entry: Copy + PartialEq {
    const NONE: Self;
    /// Whether out-edge positions up to `max_degree - 1` fit below `NONE`.
    fn fits(max_degree: usize) -> bool;
    fn from_index(k: u32) -> Self;
    fn index(self) -> u32;
}

macro_rules! entry {
    ($t:ty) => {
        impl Entry for $t {
            const NONE: Self = <$t>::MAX;
            fn fits(max_degree: usize) -> bool {
                max_degree <= <$t>::MAX as usize
            }
            fn from_index(k: u32) -> Self {
                k as $t
            }
            fn index(self) -> u32 {
                self as u32
            }
        }
    };
}
entry!(u8);
entry!(u16);
entry!(u32);

/// The out-edges of every node as a compressed row (`start`, `n + 1` entries, into `hops`), and
/// each edge's position among its node's out-edges.
struct OutEdges {
    start: Vec<u32>,
    hops: Vec<Hop>,
    position: Vec<u32>,
    max_degree: usize,
}

impl OutEdges {
    fn new(n: usize, edges: &[Edge]) -> Self {
        let mut start = vec![0u32; n + 1];
        for e in edges {
            start[e.from as usize + 1] += 1;
        }
        let mut max_degree = 0;
        for i in 0..n {
            max_degree = max_degree.max(start[i + 1] as usize);
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut hops = vec![
            Hop {
                iface: Iface::Channel(0),
                node: 0,
            };
            edges.len()
        ];
        let mut position = vec![0u32; edges.len()];
        for (i, e) in edges.iter().enumerate() {
            let at = &mut fill[e.from as usize];
            hops[*at as usize] = Hop {
                iface: e.iface,
                node: e.to,
            };
            position[i] = *at - start[e.from as usize];
            *at += 1;
        }
        OutEdges {
            start,
            hops,
            position,
            max_degree,
        }
    }
}

/// The distinct destinations in order of first appearance (the order tables are made in).
fn distinct(n: usize, destinations: &[NodeId]) -> (Vec<u32>, Vec<NodeId>) {
    let mut slot_of = vec![NONE; n];
    let mut order = Vec::new();
    for &dst in destinations {
        if slot_of[dst as usize] == NONE {
            slot_of[dst as usize] = order.len() as u32;
            order.push(dst);
        }
    }
    (slot_of, order)
}

/// Breadth-first search backwards from each destination, writing each node's next hop (its
/// out-edge's position) into the destination's table. The search works in the numbering of
/// [`Incoming`], whose neighbours sit near each other in memory, and each finished table is
/// copied out in node order.
fn breadth_first<T: Entry>(
    order: &[NodeId],
    inc: &Incoming,
    step: &mut dyn FnMut(usize, usize) -> bool,
) -> Vec<T> {
    let n = inc.old_of.len();
    let mut choice = vec![T::NONE; order.len() * n];
    let mut table = vec![T::NONE; n];
    let mut queue: Vec<u32> = Vec::with_capacity(n);
    for (slot, &dst) in order.iter().enumerate() {
        if !step(slot, order.len()) {
            break;
        }
        let dst = inc.new_of[dst as usize];
        table.fill(T::NONE);
        queue.clear();
        queue.push(dst);
        let mut head = 0;
        while head < queue.len() {
            let v = queue[head] as usize;
            head += 1;
            for &(u, k) in &inc.rows[inc.start[v] as usize..inc.start[v + 1] as usize] {
                // Seen: the destination itself (no next hop) or a node already given one.
                if u != dst && table[u as usize] == T::NONE {
                    table[u as usize] = T::from_index(k);
                    queue.push(u);
                }
            }
        }
        let out = &mut choice[slot * n..(slot + 1) * n];
        for (new, &e) in table.iter().enumerate() {
            out[inc.old_of[new] as usize] = e;
        }
    }
    choice
}

/// Every node's incoming edges, for the searches: per node (a compressed row, `start`) its
/// incoming edges in edge order as (sender, the edge's position among the sender's out-edges),
/// the order in which a scan of the edge list meets them, which decides ties.
///
/// Nodes are renumbered so that neighbours sit near each other: in the order a breadth-first
/// search from node 0 meets them (Cuthill-McKee). A search then reads rows and table entries
/// close to those it just read, where in scenario order (a random placement) every row is a
/// cache miss: on a 100,000-node mesh with 2,000 destinations this took the searches from
/// 7.6 s to 6.0 s. (A bit set for the nodes seen, a demand load of the row a few nodes ahead in
/// the queue and a branch-free inner loop were tried there too: none helped, two were slower;
/// each search reads 8 MB of rows, a memory-latency cost that only fewer searches would cut.)
/// The numbering is internal; the search visits the same nodes in the same order and so gives
/// the same tables.
struct Incoming {
    start: Vec<u32>,
    rows: Vec<(u32, u32)>,
    new_of: Vec<u32>,
    old_of: Vec<u32>,
}

impl Incoming {
    fn new(n: usize, edges: &[Edge], position: &[u32]) -> Self {
        // The rows in scenario numbering first.
        let mut start = vec![0u32; n + 1];
        for e in edges {
            start[e.to as usize + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut rows = vec![(0u32, 0u32); edges.len()];
        for (i, e) in edges.iter().enumerate() {
            let at = &mut fill[e.to as usize];
            rows[*at as usize] = (e.from, position[i]);
            *at += 1;
        }
        // The order of a breadth-first search over those rows, each component from its
        // lowest-numbered node.
        let mut new_of = vec![NONE; n];
        let mut old_of: Vec<u32> = Vec::with_capacity(n);
        for root in 0..n {
            if new_of[root] != NONE {
                continue;
            }
            let mut head = old_of.len();
            new_of[root] = old_of.len() as u32;
            old_of.push(root as u32);
            while head < old_of.len() {
                let v = old_of[head] as usize;
                head += 1;
                for &(u, _) in &rows[start[v] as usize..start[v + 1] as usize] {
                    if new_of[u as usize] == NONE {
                        new_of[u as usize] = old_of.len() as u32;
                        old_of.push(u);
                    }
                }
            }
        }
        // The rows again in the new numbering, each row's edges still in edge order.
        let mut new_start = vec![0u32; n + 1];
        let mut new_rows = Vec::with_capacity(rows.len());
        for (new, &old) in old_of.iter().enumerate() {
            let row = &rows[start[old as usize] as usize..start[old as usize + 1] as usize];
            new_rows.extend(row.iter().map(|&(u, k)| (new_of[u as usize], k)));
            new_start[new + 1] = new_rows.len() as u32;
        }
        Incoming {
            start: new_start,
            rows: new_rows,
            new_of,
            old_of,
        }
    }
}

impl RoutingTable {
    /// Shortest paths for `n` nodes over `edges`, towards every node in `destinations`.
    pub fn shortest_paths(n: usize, edges: &[Edge], destinations: &[NodeId]) -> Self {
        Self::shortest_paths_observed(n, edges, destinations, &mut |_, _| true)
    }

    /// [`shortest_paths`](Self::shortest_paths), telling `step(done, total)` before each
    /// destination's search how many of the `total` searches are done; when it answers false the
    /// remaining searches are skipped (their tables stay empty: a run being stopped).
    pub fn shortest_paths_observed(
        n: usize,
        edges: &[Edge],
        destinations: &[NodeId],
        step: &mut dyn FnMut(usize, usize) -> bool,
    ) -> Self {
        let out = OutEdges::new(n, edges);
        let incoming = Incoming::new(n, edges, &out.position);
        let (slot_of, order) = distinct(n, destinations);
        let choice = match width(out.max_degree) {
            0 => Choice::U8(breadth_first(&order, &incoming, step)),
            1 => Choice::U16(breadth_first(&order, &incoming, step)),
            _ => Choice::U32(breadth_first(&order, &incoming, step)),
        };
        Self::assemble(n, slot_of, out, choice)
    }

    /// A table from per-destination next hops over `edges` (used by the weighted searches in
    /// `paths`): per node the index of its table in `next` (`u32::MAX` if the node is not a
    /// destination), and the tables, each hop one of the node's out-edges.
    pub fn from_parts(
        n: usize,
        edges: &[Edge],
        slot_of: Vec<u32>,
        next: Vec<Vec<Option<Hop>>>,
    ) -> Self {
        let out = OutEdges::new(n, edges);
        fn narrow<T: Entry>(n: usize, out: &OutEdges, next: &[Vec<Option<Hop>>]) -> Vec<T> {
            let mut choice = vec![T::NONE; next.len() * n];
            for (slot, table) in next.iter().enumerate() {
                for (u, hop) in table.iter().enumerate() {
                    let Some(hop) = hop else { continue };
                    let mine = &out.hops[out.start[u] as usize..out.start[u + 1] as usize];
                    let k = mine
                        .iter()
                        .position(|h| h == hop)
                        .expect("a next hop is one of the node's out-edges");
                    choice[slot * n + u] = T::from_index(k as u32);
                }
            }
            choice
        }
        let choice = match width(out.max_degree) {
            0 => Choice::U8(narrow(n, &out, &next)),
            1 => Choice::U16(narrow(n, &out, &next)),
            _ => Choice::U32(narrow(n, &out, &next)),
        };
        Self::assemble(n, slot_of, out, choice)
    }

    /// The table of `choice` over `out`, its hops whole if they are few ([`Choice::widened`]).
    fn assemble(n: usize, slot_of: Vec<u32>, out: OutEdges, choice: Choice) -> Self {
        let choice = choice.widened(n, &out.start, &out.hops);
        RoutingTable {
            n,
            slot_of,
            hop_start: out.start,
            hops: out.hops,
            choice,
        }
    }

    /// Next hop at `node` towards `dst` (`None` if unreachable, unknown, or `node == dst`).
    // Inlined into the forwarding of every packet, the narrow forms out of line: the lookup of a
    // small network stays one array read.
    #[inline]
    pub fn next_hop(&self, node: NodeId, dst: NodeId) -> Option<Hop> {
        let slot = *self.slot_of.get(dst as usize)?;
        if slot == NONE || node as usize >= self.n {
            return None;
        }
        let at = slot as usize * self.n + node as usize;
        match &self.choice {
            Choice::Hops(c) => c[at],
            _ => self.narrow_hop(node, at),
        }
    }

    /// The next hop of table entry `at` (node `node`'s) in a narrow form.
    #[inline(never)]
    fn narrow_hop(&self, node: NodeId, at: usize) -> Option<Hop> {
        let k = match &self.choice {
            Choice::Hops(c) => return c[at],
            Choice::U8(c) => entry_at(c, at)?,
            Choice::U16(c) => entry_at(c, at)?,
            Choice::U32(c) => entry_at(c, at)?,
        };
        Some(self.hops[(self.hop_start[node as usize] + k) as usize])
    }

    /// Whether `dst` is reachable from `src`.
    pub fn reachable(&self, src: NodeId, dst: NodeId) -> bool {
        src == dst || self.next_hop(src, dst).is_some()
    }
}

/// The narrowest entry width for out-degrees up to `max_degree`: 0 for bytes, 1 for 16 bits, 2
/// for 32.
fn width(max_degree: usize) -> u8 {
    if u8::fits(max_degree) {
        0
    } else if u16::fits(max_degree) {
        1
    } else {
        2
    }
}

fn entry_at<T: Entry>(c: &[T], at: usize) -> Option<u32> {
    let e = c[at];
    (e != T::NONE).then(|| e.index())
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

    /// A hub with 300 out-edges needs 16-bit entries; its last edges must still be found.
    #[test]
    fn wide_nodes_take_wider_entries() {
        let leaves = 300u32;
        let mut edges = Vec::new();
        for leaf in 1..=leaves {
            edges.push(ch(0, leaf, 2 * leaf));
            edges.push(ch(leaf, 0, 2 * leaf + 1));
        }
        let dsts: Vec<NodeId> = (1..=leaves).collect();
        let out = OutEdges::new(leaves as usize + 1, &edges);
        let incoming = Incoming::new(leaves as usize + 1, &edges, &out.position);
        let (_, order) = distinct(leaves as usize + 1, &dsts);
        let narrow: Vec<u16> = breadth_first(&order, &incoming, &mut |_, _| true);
        assert!(!u8::fits(300) && u16::fits(300));
        assert_eq!(narrow.len(), 300 * 301);
        // Small enough to be kept whole; the narrow entries give the same hops.
        let t = RoutingTable::shortest_paths(leaves as usize + 1, &edges, &dsts);
        assert!(matches!(t.choice, Choice::Hops(_)));
        let narrowed = RoutingTable {
            choice: Choice::U16(narrow),
            ..t.clone()
        };
        for (dst, node) in [(1, 0), (300, 0), (300, 7), (5, 299)] {
            assert_eq!(t.next_hop(node, dst), narrowed.next_hop(node, dst));
        }
        for leaf in 1..=leaves {
            let hop = t.next_hop(0, leaf).unwrap();
            assert_eq!((hop.node, hop.iface), (leaf, Iface::Channel(2 * leaf)));
        }
        assert_eq!(t.next_hop(7, 300).unwrap().node, 0);
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
