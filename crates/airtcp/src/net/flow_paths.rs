//! Flow paths, a framework service: the paths a flow's packets may be pinned to, and which of them
//! each packet follows.
//!
//! A scenario may give a flow paths (`flows[].paths`, docs/scenario-schema.md#flow-paths): node
//! lists of its own, or the `k` node-disjoint paths of least total hop count or ETX
//! ([`super::paths::node_disjoint_paths`]). They are resolved once, at set-up, into the hop
//! (interface and neighbour) each node on a path sends to, in both directions: forward from the
//! flow's source to its destination, back along the same nodes for the packets that go the other
//! way (TCP's ACKs, a shim's packets from the destination). Multipath systems read them: a
//! forwarding layer may choose a path per packet and let the packet follow it.
//!
//! **Pinning.** A packet carries the index of the path it follows (`Packet::path`, one byte that
//! the packet's padding had room for; [`NO_PATH`]: none, routed). When a packet of a flow with
//! paths enters the network at its source, the framework pins it, round robin over the flow's
//! paths (so a flow with one path follows it); packets going back are pinned the same way, over
//! the same paths reversed, unless the flow's reverse traffic is routed (`reverse: routes`). A
//! forwarding layer may re-pin a packet, or unpin it, at any hook with a context
//! (`ForwardingCtx::pin`). The routing service answers for a pinned packet at a node on its path
//! with the path's next hop, so the plain layer carries pinned packets along their paths; at a
//! node off its path (a layer sent it elsewhere) it is routed as any other.
//!
//! **Lookups** are O(1) and allocate nothing: nodes on any path get a dense index ("slot"), and
//! each path keeps, per slot, its position on the path (or none), and per position the hop
//! forward and the hop back. Memory: 4 bytes per node of the network, plus 4 bytes per path per
//! node on any path, plus the hops; nothing at all when no flow has paths, and the only cost per
//! event of a scenario without paths is a check of the packet's byte.

use super::routing::{Edge, Hop};
pub use crate::sim::packet::NO_PATH;
use crate::sim::{FlowId, NodeId, Packet};

/// Most paths a flow may have: their indices, 0 to `MAX_PATHS - 1`, fit `Packet::path` beside
/// [`NO_PATH`].
pub const MAX_PATHS: usize = NO_PATH as usize;

const NONE: u32 = u32::MAX;

/// Which way a packet travels along a path of its flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Way {
    /// From the flow's source to its destination (data).
    Forward,
    /// From the destination back to the source (TCP's ACKs, a shim's packets from the
    /// destination).
    Back,
}

/// One path of a flow: its nodes and the hop each of them sends to, both ways.
#[derive(Debug, Clone)]
pub struct FlowPath {
    /// The nodes from the flow's source to its destination, both included, none twice.
    nodes: Vec<NodeId>,
    /// `forward[i]`: the hop from `nodes[i]` to `nodes[i + 1]`.
    forward: Vec<Hop>,
    /// `back[i]`: the hop from `nodes[i + 1]` to `nodes[i]` (`None`: no link that way, allowed
    /// only when the flow's reverse traffic is routed).
    back: Vec<Option<Hop>>,
    /// Per slot (a node on some path of any flow), the node's position on this path (`NONE`:
    /// not on it).
    pos: Vec<u32>,
}

impl FlowPath {
    /// The nodes, source first.
    pub fn nodes(&self) -> &[NodeId] {
        &self.nodes
    }
}

/// The paths of one flow.
#[derive(Debug, Clone, Default)]
struct PathSet {
    paths: Vec<FlowPath>,
    /// Whether the framework pins the packets going back (`reverse: paths`).
    pin_back: bool,
    /// The path the next new packet is pinned to, per way (round robin).
    turn: [u8; 2],
}

/// What the scenario builder hands over to build one flow's paths.
#[derive(Debug, Clone)]
pub struct FlowSpec {
    /// The flow (its index in the scenario).
    pub flow: FlowId,
    /// The paths, as node lists from the source to the destination: at least two nodes each, none
    /// twice, at most [`MAX_PATHS`] paths (the builder checks this first).
    pub paths: Vec<Vec<NodeId>>,
    /// Whether packets going back are pinned too (and every hop must have a link back).
    pub pin_back: bool,
    /// Which of several links from one node to the next a hop takes: the lightest in ETX (the
    /// weights given to [`FlowPaths::new`]), the first in edge order among equals; without, the
    /// first in edge order.
    pub etx: bool,
}

impl FlowSpec {
    /// `paths` of `flow`; `pin_back`: its packets going back follow the paths reversed.
    pub fn new(flow: FlowId, paths: Vec<Vec<NodeId>>, pin_back: bool) -> Self {
        FlowSpec {
            flow,
            paths,
            pin_back,
            etx: false,
        }
    }
}

/// A hop of a path with no link in the routing graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MissingLink {
    /// Index of the flow's spec in the list given to [`FlowPaths::new`].
    pub spec: usize,
    /// The path, among the spec's.
    pub path: usize,
    /// The hop: from the path's node `hop` to node `hop + 1`.
    pub hop: usize,
    /// The link missing is the one back, from node `hop + 1` to node `hop`.
    pub back: bool,
}

/// Every flow's paths, and the O(1) lookups of their hops. See the module header.
#[derive(Debug, Clone, Default)]
pub struct FlowPaths {
    /// Per flow id; empty when no flow has paths.
    flows: Vec<PathSet>,
    /// Per node, its slot among the nodes on some path (`NONE`: on none); empty when no flow has
    /// paths.
    slot_of: Vec<u32>,
}

impl FlowPaths {
    /// The paths of `specs` for a network of `nodes` nodes whose routing graph is `edges` (with
    /// `etx`, the ETX weight of each edge, for specs that weigh parallel links by it), `flows`
    /// flows in all. Each hop takes a link of `edges` from one node to the next (and, for a flow
    /// whose packets going back are pinned, one back); a hop without is an error.
    pub fn new(
        nodes: usize,
        edges: &[Edge],
        etx: Option<&[f64]>,
        flows: usize,
        specs: &[FlowSpec],
    ) -> Result<FlowPaths, MissingLink> {
        if specs.is_empty() {
            return Ok(FlowPaths::default());
        }
        // Every ordered pair of nodes a hop needs, per weighting, resolved in one pass over the
        // edges each.
        let mut wanted: [Vec<(NodeId, NodeId)>; 2] = [Vec::new(), Vec::new()];
        for spec in specs {
            let group = &mut wanted[usize::from(spec.etx)];
            for p in &spec.paths {
                debug_assert!(p.len() >= 2, "a path has two nodes at least");
                for w in p.windows(2) {
                    group.extend([(w[0], w[1]), (w[1], w[0])]);
                }
            }
        }
        let unit = resolve(edges, None, &mut wanted[0]);
        let weighted = resolve(edges, etx, &mut wanted[1]);
        let lookup = |weighted_group: bool, from: NodeId, to: NodeId| -> Option<Hop> {
            let (pairs, hops) = if weighted_group {
                (&wanted[1], &weighted)
            } else {
                (&wanted[0], &unit)
            };
            let i = pairs.binary_search(&(from, to)).ok()?;
            hops[i]
        };

        let mut slot_of = vec![NONE; nodes];
        let mut slots = 0u32;
        for spec in specs {
            for p in &spec.paths {
                for &v in p {
                    if slot_of[v as usize] == NONE {
                        slot_of[v as usize] = slots;
                        slots += 1;
                    }
                }
            }
        }
        let mut sets = vec![PathSet::default(); flows];
        for (s, spec) in specs.iter().enumerate() {
            assert!(
                spec.paths.len() <= MAX_PATHS,
                "at most {MAX_PATHS} paths per flow"
            );
            let group = spec.etx;
            let mut paths = Vec::with_capacity(spec.paths.len());
            for (j, p) in spec.paths.iter().enumerate() {
                let mut forward = Vec::with_capacity(p.len() - 1);
                let mut back = Vec::with_capacity(p.len() - 1);
                for (hop, w) in p.windows(2).enumerate() {
                    let missing = |back| MissingLink {
                        spec: s,
                        path: j,
                        hop,
                        back,
                    };
                    forward.push(lookup(group, w[0], w[1]).ok_or(missing(false))?);
                    let b = lookup(group, w[1], w[0]);
                    if spec.pin_back && b.is_none() {
                        return Err(missing(true));
                    }
                    back.push(b);
                }
                let mut pos = vec![NONE; slots as usize];
                for (i, &v) in p.iter().enumerate() {
                    let slot = &mut pos[slot_of[v as usize] as usize];
                    debug_assert_eq!(*slot, NONE, "node {v} twice on a path");
                    *slot = i as u32;
                }
                paths.push(FlowPath {
                    nodes: p.clone(),
                    forward,
                    back,
                    pos,
                });
            }
            sets[spec.flow as usize] = PathSet {
                paths,
                pin_back: spec.pin_back,
                turn: [0, 0],
            };
        }
        Ok(FlowPaths {
            flows: sets,
            slot_of,
        })
    }

    /// Whether no flow has paths (then nothing is ever pinned).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.flows.is_empty()
    }

    /// The paths of `flow` (none for a flow without).
    pub fn paths(&self, flow: FlowId) -> &[FlowPath] {
        self.flows
            .get(flow as usize)
            .map_or(&[], |set| set.paths.as_slice())
    }

    /// The next hop of path `path` of `flow` at `node`, going `way`: `None` if the flow has no
    /// such path, `node` is not on it, or is its last node that way (or, going back, there is no
    /// link back). O(1).
    #[inline]
    pub fn next_hop(&self, flow: FlowId, path: u8, node: NodeId, way: Way) -> Option<Hop> {
        let p = self.flows.get(flow as usize)?.paths.get(path as usize)?;
        self.hop_on(p, node, way)
    }

    /// Where a pinned packet goes from `node`: the next hop of its path towards its destination
    /// (forward if that is the path's last node, back if it is the first). `None` if the packet
    /// is not pinned, its flow has no such path, it is addressed to neither end of the path, or
    /// `node` is not on the path. O(1).
    #[inline]
    pub fn pinned_hop(&self, packet: &Packet, node: NodeId) -> Option<Hop> {
        if packet.path == NO_PATH {
            return None;
        }
        let p = self
            .flows
            .get(packet.flow as usize)?
            .paths
            .get(packet.path as usize)?;
        let way = if packet.dst == *p.nodes.last()? {
            Way::Forward
        } else if packet.dst == p.nodes[0] {
            Way::Back
        } else {
            return None;
        };
        self.hop_on(p, node, way)
    }

    #[inline]
    fn hop_on(&self, p: &FlowPath, node: NodeId, way: Way) -> Option<Hop> {
        let slot = *self.slot_of.get(node as usize)?;
        if slot == NONE {
            return None;
        }
        let at = p.pos[slot as usize];
        if at == NONE {
            return None;
        }
        match way {
            Way::Forward => p.forward.get(at as usize).copied(),
            Way::Back => (at as usize).checked_sub(1).and_then(|i| p.back[i]),
        }
    }

    /// Pins a packet entering the network at its source to the flow's next path in turn (round
    /// robin per way): packets from the flow's source to its destination, and packets back
    /// unless the flow's reverse traffic is routed. Others (control packets, flows without
    /// paths) are left as they are.
    #[inline]
    pub(crate) fn pin_new(&mut self, packet: &mut Packet) {
        let Some(set) = self.flows.get_mut(packet.flow as usize) else {
            return;
        };
        let Some(first) = set.paths.first() else {
            return;
        };
        // A packet its transport pinned already (TCP-RLC's path controllers) keeps its path.
        if usize::from(packet.path) < set.paths.len() {
            return;
        }
        let (src, dst) = (first.nodes[0], first.nodes[first.nodes.len() - 1]);
        let way = if (packet.src, packet.dst) == (src, dst) {
            0
        } else if (packet.src, packet.dst) == (dst, src) && set.pin_back {
            1
        } else {
            return;
        };
        let turn = &mut set.turn[way];
        packet.path = *turn;
        *turn += 1;
        if usize::from(*turn) == set.paths.len() {
            *turn = 0;
        }
    }
}

/// For each pair of `pairs` (sorted and deduplicated here), the hop over the link of `edges` from
/// its first node to its second: the lightest in `weights` (by edge index; ties and no weights:
/// the first in edge order), `None` if there is none. One pass over the edges, a binary search
/// each.
fn resolve(
    edges: &[Edge],
    weights: Option<&[f64]>,
    pairs: &mut Vec<(NodeId, NodeId)>,
) -> Vec<Option<Hop>> {
    pairs.sort_unstable();
    pairs.dedup();
    let mut best: Vec<Option<(f64, Hop)>> = vec![None; pairs.len()];
    if pairs.is_empty() {
        return Vec::new();
    }
    for (i, e) in edges.iter().enumerate() {
        let Ok(k) = pairs.binary_search(&(e.from, e.to)) else {
            continue;
        };
        let w = weights.map_or(1.0, |w| w[i]);
        let lighter = match best[k] {
            Some((b, _)) => w < b,
            None => true,
        };
        if lighter {
            best[k] = Some((
                w,
                Hop {
                    iface: e.iface,
                    node: e.to,
                },
            ));
        }
    }
    best.into_iter().map(|b| b.map(|(_, hop)| hop)).collect()
}

#[cfg(test)]
mod tests {
    use super::super::routing::Iface;
    use super::*;
    use crate::sim::packet::Header;

    /// Both directions of every pair, channel ids in order (pair i: 2i forward, 2i + 1 back).
    fn undirected(pairs: &[(NodeId, NodeId)]) -> Vec<Edge> {
        let mut edges = Vec::new();
        for &(a, b) in pairs {
            for (from, to) in [(a, b), (b, a)] {
                let id = edges.len() as u32;
                edges.push(Edge {
                    from,
                    to,
                    iface: Iface::Channel(id),
                });
            }
        }
        edges
    }

    /// A ring 0-1-2-3-4-5-0: 0 to 3 clockwise (0 1 2 3) or counter-clockwise (0 5 4 3).
    fn ring() -> Vec<Edge> {
        undirected(&[(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 0)])
    }

    fn packet(flow: FlowId, src: NodeId, dst: NodeId) -> Packet {
        Packet::new(flow, src, dst, 100, 0, Header::Udp { seq: 0, len: 72 })
    }

    fn hop(ch: u32, node: NodeId) -> Option<Hop> {
        Some(Hop {
            iface: Iface::Channel(ch),
            node,
        })
    }

    #[test]
    fn hops_are_looked_up_both_ways_and_off_path_nodes_have_none() {
        let specs = [FlowSpec::new(
            1,
            vec![vec![0, 1, 2, 3], vec![0, 5, 4, 3]],
            true,
        )];
        let fp = FlowPaths::new(6, &ring(), None, 2, &specs).expect("linked");
        assert!(!fp.is_empty());
        assert!(fp.paths(0).is_empty(), "flow 0 has no paths");
        assert_eq!(fp.paths(1)[1].nodes(), &[0, 5, 4, 3]);
        // Forward along path 0: 0 -> 1 (channel 0), 1 -> 2 (2), 2 -> 3 (4); nothing at 3.
        assert_eq!(fp.next_hop(1, 0, 0, Way::Forward), hop(0, 1));
        assert_eq!(fp.next_hop(1, 0, 2, Way::Forward), hop(4, 3));
        assert_eq!(fp.next_hop(1, 0, 3, Way::Forward), None);
        // Back along path 1: 3 -> 4 (channel 6), 5 -> 0 (10); nothing at 0.
        assert_eq!(fp.next_hop(1, 1, 3, Way::Back), hop(6, 4));
        assert_eq!(fp.next_hop(1, 1, 5, Way::Back), hop(10, 0));
        assert_eq!(fp.next_hop(1, 1, 0, Way::Back), None);
        // Off the path, an unknown path or flow.
        assert_eq!(fp.next_hop(1, 0, 5, Way::Forward), None);
        assert_eq!(fp.next_hop(1, 2, 0, Way::Forward), None);
        assert_eq!(fp.next_hop(0, 0, 0, Way::Forward), None);
        assert_eq!(fp.next_hop(7, 0, 0, Way::Forward), None);
    }

    #[test]
    fn new_packets_are_pinned_round_robin_per_way() {
        let specs = [FlowSpec::new(
            0,
            vec![vec![0, 1, 2, 3], vec![0, 5, 4, 3]],
            true,
        )];
        let mut fp = FlowPaths::new(6, &ring(), None, 1, &specs).unwrap();
        let mut pinned = |src, dst| {
            let mut p = packet(0, src, dst);
            fp.pin_new(&mut p);
            p.path
        };
        let forward: Vec<u8> = (0..5).map(|_| pinned(0, 3)).collect();
        assert_eq!(forward, [0, 1, 0, 1, 0]);
        // The way back keeps a turn of its own.
        assert_eq!(pinned(3, 0), 0);
        assert_eq!(pinned(0, 3), 1);
        assert_eq!(pinned(3, 0), 1);
        // Not between the flow's ends (a control packet has flow u32::MAX): left alone.
        assert_eq!(pinned(1, 3), NO_PATH);
        let mut control = packet(u32::MAX, 0, 3);
        fp.pin_new(&mut control);
        assert_eq!(control.path, NO_PATH);
    }

    #[test]
    fn a_pinned_packet_follows_its_path_towards_its_destination() {
        let specs = [FlowSpec::new(0, vec![vec![0, 5, 4, 3]], true)];
        let fp = FlowPaths::new(6, &ring(), None, 1, &specs).unwrap();
        let mut data = packet(0, 0, 3);
        assert_eq!(fp.pinned_hop(&data, 0), None, "not pinned");
        data.path = 0;
        assert_eq!(fp.pinned_hop(&data, 0), hop(11, 5));
        assert_eq!(fp.pinned_hop(&data, 4), hop(7, 3));
        assert_eq!(fp.pinned_hop(&data, 1), None, "off the path: routed");
        let mut ack = packet(0, 3, 0);
        ack.path = 0;
        assert_eq!(fp.pinned_hop(&ack, 3), hop(6, 4));
        assert_eq!(fp.pinned_hop(&ack, 5), hop(10, 0));
        let mut elsewhere = packet(0, 0, 4);
        elsewhere.path = 0;
        assert_eq!(fp.pinned_hop(&elsewhere, 0), None);
    }

    #[test]
    fn reverse_traffic_may_be_left_to_the_routes() {
        // A one-way link 0 -> 1: a path over it is fine unless its packets back are pinned.
        let edges = [
            Edge {
                from: 0,
                to: 1,
                iface: Iface::Channel(0),
            },
            Edge {
                from: 1,
                to: 2,
                iface: Iface::Channel(1),
            },
            Edge {
                from: 2,
                to: 1,
                iface: Iface::Channel(2),
            },
        ];
        let routed = [FlowSpec::new(0, vec![vec![0, 1, 2]], false)];
        let mut fp = FlowPaths::new(3, &edges, None, 1, &routed).expect("one way is enough");
        assert_eq!(fp.next_hop(0, 0, 2, Way::Back), hop(2, 1));
        assert_eq!(fp.next_hop(0, 0, 1, Way::Back), None, "no link back");
        let mut ack = packet(0, 2, 0);
        fp.pin_new(&mut ack);
        assert_eq!(ack.path, NO_PATH, "packets back are routed");
        let pinned = [FlowSpec::new(0, vec![vec![0, 1, 2]], true)];
        let missing = FlowPaths::new(3, &edges, None, 1, &pinned).unwrap_err();
        assert_eq!(
            missing,
            MissingLink {
                spec: 0,
                path: 0,
                hop: 0,
                back: true
            }
        );
        let unlinked = [FlowSpec::new(0, vec![vec![0, 2]], false)];
        let missing = FlowPaths::new(3, &edges, None, 1, &unlinked).unwrap_err();
        assert!(!missing.back && missing.hop == 0);
    }

    #[test]
    fn parallel_links_take_the_first_or_the_lightest() {
        // Two links 0 -> 1 (radios on two channels, say) and one back.
        let edges = [
            Edge {
                from: 0,
                to: 1,
                iface: Iface::Radio(0),
            },
            Edge {
                from: 0,
                to: 1,
                iface: Iface::Radio(1),
            },
            Edge {
                from: 1,
                to: 0,
                iface: Iface::Radio(2),
            },
        ];
        let etx = [3.0, 1.5, 1.0];
        let mut weighted = FlowSpec::new(0, vec![vec![0, 1]], true);
        weighted.etx = true;
        let plain = FlowSpec::new(1, vec![vec![0, 1]], true);
        let fp = FlowPaths::new(2, &edges, Some(&etx), 2, &[weighted, plain]).unwrap();
        let radio = |r| {
            Some(Hop {
                iface: Iface::Radio(r),
                node: 1,
            })
        };
        assert_eq!(fp.next_hop(0, 0, 0, Way::Forward), radio(1));
        assert_eq!(fp.next_hop(1, 0, 0, Way::Forward), radio(0));
    }

    #[test]
    fn without_paths_there_is_nothing_to_pin_and_nothing_allocated() {
        let mut fp = FlowPaths::new(1000, &ring(), None, 3, &[]).unwrap();
        assert!(fp.is_empty() && fp.slot_of.is_empty());
        let mut p = packet(0, 0, 3);
        fp.pin_new(&mut p);
        assert_eq!(p.path, NO_PATH);
        assert_eq!(fp.pinned_hop(&p, 0), None);
    }
}
