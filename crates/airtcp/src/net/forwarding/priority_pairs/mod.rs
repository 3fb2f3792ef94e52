//! TCP-RLC's wireless-router discipline as a forwarding layer (`net::forwarding`): per-flow
//! priority queue pairs at the routers that ask for them (Ryu, Bhadra & Shakkottai, Allerton
//! 2009, §II-G, §IV; [`pairs`] has the rules).
//!
//! - A TCP-RLC data packet that a router node must send to one of its users joins its flow's pair
//!   there (high or low by the packet's mark) instead of the router's interface queue; when the
//!   router's transmitter is free and its interface queue empty, it asks the layer
//!   ([`Forwarding::pull_router`]), which answers from the pairs.
//! - Everything else, everywhere, is plain store-and-forward over the routes (feedback, other
//!   transports, nodes that are not such routers).
//! - A high packet refused by a full queue, and a low one pushed out of a full LIFO, are dropped
//!   as `queue_full` of the router's queue ("router NAME"); the pairs' own counters are the
//!   results' `priority_pairs` table.

pub mod config;
pub mod pairs;

use serde::Serialize;

use super::{Forwarding, ForwardingCtx, LayerNeeds, Route, RouterView};
use crate::metrics::results::LayerTable;
use crate::net::routing::{Hop, Iface};
use crate::sim::packet::DropReason;
use crate::sim::{NodeId, PacketId, Time};
use pairs::{LowOrder, LowPolicy, Offer, PairStats, QueuePairs, Queued};

/// The key of the layer's table in the results.
pub const TABLE: &str = "priority_pairs";

/// What one router's pairs are set up with.
#[derive(Debug, Clone)]
pub struct RouterPairsSetup {
    /// The router's index (`net::router`).
    pub router: u32,
    /// The router's node.
    pub node: NodeId,
    /// Each user's (high, low) capacity, packets, by user index.
    pub capacity: Vec<(usize, usize)>,
    /// Each user's node, by user index (for the results).
    pub user_nodes: Vec<NodeId>,
    /// Low queue order.
    pub order: LowOrder,
    /// Low queue policy.
    pub policy: LowPolicy,
}

struct RouterPairs {
    setup: RouterPairsSetup,
    pairs: QueuePairs,
}

/// One flow's pair at one router, a row of the results' table.
#[derive(Debug, Clone, Serialize)]
pub struct PairRow {
    /// The router's node.
    pub router: String,
    /// The flow's index in the scenario.
    pub flow: u32,
    /// The user's node.
    pub user: String,
    /// The pair's counters.
    #[serde(flatten)]
    pub stats: PairStats,
}

/// The layer (see the module header).
pub struct PriorityPairs {
    routers: Vec<Option<RouterPairs>>,
    /// Index into `routers` of each node's router (u32::MAX: none with pairs).
    router_of_node: Vec<u32>,
}

impl PriorityPairs {
    /// The layer over `nodes` nodes, with pairs at the routers of `setups` (`routers` routers in
    /// all).
    pub fn new(nodes: usize, routers: usize, setups: Vec<RouterPairsSetup>) -> Self {
        let mut layer = PriorityPairs {
            routers: (0..routers).map(|_| None).collect(),
            router_of_node: vec![u32::MAX; nodes],
        };
        for s in setups {
            layer.router_of_node[s.node as usize] = s.router;
            let r = s.router as usize;
            layer.routers[r] = Some(RouterPairs {
                pairs: QueuePairs::new(s.order, s.policy),
                setup: s,
            });
        }
        layer
    }

    /// Takes packet `id` into router `r`'s pairs if it is a TCP-RLC data packet for one of the
    /// router's users; false if it is not one (the caller forwards it).
    fn take(&mut self, r: u32, hop: Hop, id: PacketId, ctx: &mut ForwardingCtx<'_>) -> bool {
        let Iface::Router(port) = hop.iface else {
            return false;
        };
        let p = *ctx.packet(id);
        let Some(tag) = p.header.block_tag() else {
            return false;
        };
        let port = ctx.routers().ports[port as usize];
        let Some(rp) = self.routers[r as usize].as_mut() else {
            return false;
        };
        if port.router != r {
            return false;
        }
        ctx.packet_mut(id).next_hop = hop.node;
        let queued = Queued {
            id,
            block_start: tag.block_start,
            block_size: tag.block_size,
        };
        let capacity = rp.setup.capacity[port.user as usize];
        match rp
            .pairs
            .offer(p.flow, port.user, tag.high, queued, capacity)
        {
            Offer::Queued => ctx.router_enqueued(r, rp.pairs.held()),
            Offer::PushedOut(old) => {
                ctx.drop_at_router(r, old, DropReason::QueueFull);
                ctx.router_enqueued(r, rp.pairs.held());
            }
            Offer::Refused => ctx.drop_at_router(r, id, DropReason::QueueFull),
        }
        ctx.wake_router(r);
        true
    }
}

impl Forwarding for PriorityPairs {
    fn name(&self) -> &'static str {
        "priority_pairs"
    }

    fn needs(&self) -> LayerNeeds {
        LayerNeeds {
            packets: true,
            pulls: true,
            ..LayerNeeds::default()
        }
    }

    fn on_packet(&mut self, node: NodeId, id: PacketId, ctx: &mut ForwardingCtx<'_>) {
        let r = self.router_of_node[node as usize];
        if r == u32::MAX {
            ctx.forward_routed(node, id);
            return;
        }
        match ctx.route(node, id) {
            Route::Via(hop) => {
                if !self.take(r, hop, id, ctx) {
                    ctx.push(hop, id);
                }
            }
            Route::Taken => {}
            Route::Unreachable => ctx.drop_at_node(node, id, DropReason::NoRoute),
        }
    }

    fn pull_router(&mut self, router: u32, mut view: RouterView<'_>) -> Option<PacketId> {
        let rp = self.routers.get_mut(router as usize)?.as_mut()?;
        rp.pairs.next(&mut |user| view.success_probability(user))
    }

    fn count_held(&self) -> u64 {
        self.routers.iter().flatten().map(|r| r.pairs.held()).sum()
    }

    fn for_each_held(&self, node: NodeId, f: &mut dyn FnMut(PacketId)) {
        let r = self.router_of_node[node as usize];
        if let Some(Some(rp)) = self.routers.get(r as usize) {
            rp.pairs.for_each(f);
        }
    }

    fn report(&self, node_names: &[String], _end: Time) -> Vec<LayerTable> {
        let mut rows = Vec::new();
        for rp in self.routers.iter().flatten() {
            for pair in rp.pairs.pairs() {
                let user = rp.setup.user_nodes[pair.user as usize];
                rows.push(PairRow {
                    router: node_names[rp.setup.node as usize].clone(),
                    flow: pair.flow,
                    user: node_names[user as usize].clone(),
                    stats: pair.stats,
                });
            }
        }
        vec![LayerTable::new(TABLE, &rows)]
    }
}
