//! What a forwarding layer's hook may do ([`ForwardingCtx`]: read the clock, the packets, the
//! routes and the radios; send, hand to a radio, drop, deliver, set timers), and the network's
//! side of the seam (installing the layer, running its hooks, carrying out their effects).

use super::{Effect, Forwarding, ForwardingCtx, Native, Route};
use crate::mac::frame::{Frame, RadioId};
use crate::metrics::results::LayerTable;
use crate::net::event::Event;
use crate::net::flow_paths::{FlowPaths, Way, NO_PATH};
use crate::net::routing::{Hop, Iface};
use crate::net::wireless::{Wireless, NO_RADIO};
use crate::net::Network;
use crate::sim::packet::DropReason;
use crate::sim::{EventClass, FlowId, NodeId, Packet, PacketId, Rng, Time};

impl ForwardingCtx<'_> {
    /// Current time.
    #[inline]
    pub fn now(&self) -> Time {
        self.net.events.now()
    }

    /// A live packet.
    #[inline]
    pub fn packet(&self, id: PacketId) -> &Packet {
        self.net.packets.get(id)
    }

    /// The neighbour the packet handed to [`Forwarding::on_packet`] came from (`None`: from
    /// the node's own transport, a shim, or over a wired channel). Meaningful only inside
    /// `on_packet`.
    #[inline]
    pub fn previous_hop(&self) -> Option<NodeId> {
        self.net.arriving_from
    }

    /// A live packet, to change (its `next_hop`, say).
    #[inline]
    pub fn packet_mut(&mut self, id: PacketId) -> &mut Packet {
        self.net.packets.get_mut(id)
    }

    /// Creates a packet (a control packet of the layer's carries `Header::Forwarding`).
    pub fn insert_packet(&mut self, p: Packet) -> PacketId {
        self.net.packets.insert(p)
    }

    /// The radios: neighbour lists, which node each belongs to, which have failed.
    #[inline]
    pub fn wireless(&self) -> &Wireless {
        &self.net.wireless
    }

    /// The layer's own random stream, `forwarding` from the run's seed: its draws move no other
    /// stream, so a layer's random choices leave the MACs' and the flows' draws as they were.
    #[inline]
    pub fn rng(&mut self) -> &mut Rng {
        &mut self.net.wireless.layer_rng
    }

    /// The data rate of radio `r`'s unicast frames to neighbour radio `to`, bit/s (its rate
    /// table's entry, `Neighbor::rate_bps`); `None` if `to` is not a neighbour.
    pub fn link_rate(&self, r: RadioId, to: RadioId) -> Option<u64> {
        self.net.wireless.rate_to(r, to)
    }

    /// Node names, indexed by node id.
    pub fn node_names(&self) -> &[String] {
        &self.net.node_names
    }

    /// Asks the routing service where `node` sends packet `id`: for a packet pinned to a path of
    /// its flow ([`pin`](Self::pin)) at a node on that path, the path's next hop towards the
    /// packet's destination; otherwise static routes, or AODV (which may take the packet into its
    /// buffer and start a route discovery; its control packets go out when the hook returns).
    // Always inlined, with the pinned case out of line: this runs for every packet at every hop,
    // and most packets are not pinned.
    #[inline(always)]
    pub fn route(&mut self, node: NodeId, id: PacketId) -> Route {
        let p = self.net.packets.get(id);
        if p.path != NO_PATH {
            if let Some(hop) = self.pinned_route(node, id) {
                return Route::Via(hop);
            }
        }
        let dst = p.dst;
        if self.net.on_demand.is_some() {
            return self.net.on_demand_route(node, id);
        }
        match self.net.routes.next_hop(node, dst) {
            Some(hop) => Route::Via(hop),
            None => Route::Unreachable,
        }
    }

    #[inline(never)]
    fn pinned_route(&self, node: NodeId, id: PacketId) -> Option<Hop> {
        self.net
            .flow_paths
            .pinned_hop(self.net.packets.get(id), node)
    }

    /// Pushes packet `id` to the queue of `hop`'s interface (on a radio, addressed to `hop.node`):
    /// an idle wired transmitter takes it at once, a radio's MAC is woken. A full queue drops
    /// (the framework counts it).
    // Always inlined: the default forwarding's every packet and hop goes through it.
    #[inline(always)]
    pub fn push(&mut self, hop: Hop, id: PacketId) {
        match hop.iface {
            Iface::Channel(ch) => self.net.offer(ch, id),
            Iface::Radio(r) => {
                self.net.packets.get_mut(id).next_hop = hop.node;
                self.push_radio(r, id);
            }
            Iface::Downlink(user) => self.net.offer_downlink(user, id),
            Iface::Router(port) => self.net.offer_router(port, id),
        }
    }

    /// Pushes packet `id` to radio `r`'s interface queue as it is (its `next_hop` set, or
    /// `NodeId::MAX` for a broadcast) and wakes the radio's MAC. A failed radio or a full queue
    /// drops (the framework counts it).
    #[inline]
    pub fn push_radio(&mut self, r: RadioId, id: PacketId) {
        if self.net.offer_radio(r, id) {
            self.net.effects.push(Effect::Wake(r));
        }
    }

    /// Pushes packet `id` to the head of radio `r`'s interface queue, ahead of what is queued (a
    /// control packet that must not wait behind data), and wakes the radio's MAC. A failed radio
    /// or a full queue drops (the framework counts it).
    #[inline]
    pub fn push_radio_front(&mut self, r: RadioId, id: PacketId) {
        if self.net.offer_radio_at(r, id, true) {
            self.net.effects.push(Effect::Wake(r));
        }
    }

    /// The default forwarding: the routed next hop's interface queue (a pinned packet's path's
    /// next hop, [`route`](Self::route)), or a drop for want of a route.
    #[inline]
    pub fn forward_routed(&mut self, node: NodeId, id: PacketId) {
        match self.route(node, id) {
            Route::Via(hop) => self.push(hop, id),
            Route::Taken => {}
            Route::Unreachable => self.drop_at_node(node, id, DropReason::NoRoute),
        }
    }

    /// The natives coded into `frame` (none for a frame that carries one packet), while a hook
    /// that was handed the frame runs.
    #[inline]
    pub fn natives(&self, frame: &Frame) -> &[Native] {
        self.net.wireless.units.natives(frame.unit)
    }

    /// `node` takes a copy of `packet` (a native of a coded frame it decoded), received from
    /// neighbour `from`: when the hook returns, the copy is a new packet that `node` receives as
    /// if it had come alone (its destination's transport gets it, or the layer forwards it). The
    /// layer at the sender still holds the original, and retires it once it knows the copy
    /// carries on.
    pub fn accept(&mut self, node: NodeId, packet: Packet, from: NodeId) {
        self.net.effects.push(Effect::Accept { node, from, packet });
    }

    /// Frees packet `id`, which the layer holds and a copy of which carries on (see
    /// [`MacView::retire`]).
    pub fn retire(&mut self, id: PacketId) {
        self.net.packets.retire(id);
    }

    /// The flows' paths (`flows[].paths`): each flow's paths as node lists, and their hops
    /// ([`FlowPaths::next_hop`], O(1)).
    #[inline]
    pub fn flow_paths(&self) -> &FlowPaths {
        &self.net.flow_paths
    }

    /// The next hop of path `path` of `flow` at `node`, going `way` (`None`: no such path, `node`
    /// not on it, or its end that way). O(1).
    #[inline]
    pub fn path_next_hop(&self, flow: FlowId, path: u8, node: NodeId, way: Way) -> Option<Hop> {
        self.net.flow_paths.next_hop(flow, path, node, way)
    }

    /// Pins packet `id` to path `path` of its flow: [`route`](Self::route) (and so the default
    /// forwarding) sends it along that path from every node on it. [`NO_PATH`] unpins it: it is
    /// routed from here on. The framework pins every new packet of a flow with paths when it
    /// enters the network (round robin over the flow's paths); a layer that chooses a path per
    /// packet pins it again at the source. Panics if the packet's flow has no path `path`.
    #[inline]
    pub fn pin(&mut self, id: PacketId, path: u8) {
        let p = self.net.packets.get_mut(id);
        assert!(
            path == NO_PATH || usize::from(path) < self.net.flow_paths.paths(p.flow).len(),
            "flow {} has no path {path}",
            p.flow
        );
        p.path = path;
    }

    /// Lets radio `r`'s MAC contend (when the hook returns): the layer has something for it it
    /// did not have before. Harmless if the MAC is busy or the layer has nothing after all.
    #[inline]
    pub fn wake(&mut self, r: RadioId) {
        self.net.effects.push(Effect::Wake(r));
    }

    /// Lets wireless router `router`'s transmitter start (when the hook returns) if it is idle:
    /// the layer holds something for it it did not hold before.
    #[inline]
    pub fn wake_router(&mut self, router: u32) {
        self.net.effects.push(Effect::WakeRouter(router));
    }

    /// The wireless routers and their ports.
    #[inline]
    pub fn routers(&self) -> &crate::net::router::Routers {
        &self.net.routers
    }

    /// Arms a timer of the layer's: [`Forwarding::on_timer`] runs at `at` with `token` (events of
    /// class `Timer`). Not cancellable: a layer ignores a token it no longer wants.
    #[inline]
    pub fn set_timer(&mut self, at: Time, token: u64) {
        self.net.effects.push(Effect::Timer(at, token));
    }

    /// Drops packet `id`, which the layer holds for radio `r`, for `reason`: counted in the
    /// radio's drops (its queue "radio NODE"), and a shim's packet dropped for a full buffer at
    /// the node that originated it is reported to its shim.
    pub fn drop_at_radio(&mut self, r: RadioId, id: PacketId, reason: DropReason) {
        let radio = &mut self.net.wireless.radios[r as usize];
        radio.stats.count_drop(reason);
        let node = radio.node;
        self.net.discard_dropped(node, id, reason);
    }

    /// Drops packet `id` at `node` for `reason`: counted in the node's drops ("node NAME"), and
    /// reported to a shim as [`drop_at_radio`](Self::drop_at_radio) does.
    pub fn drop_at_node(&mut self, node: NodeId, id: PacketId, reason: DropReason) {
        self.net.node_drops[node as usize][reason as usize] += 1;
        self.net.discard_dropped(node, id, reason);
    }

    /// Drops packet `id`, which the layer holds for wireless router `router`, for `reason`:
    /// counted in the router's drops (its queue "router NODE").
    pub fn drop_at_router(&mut self, router: u32, id: PacketId, reason: DropReason) {
        let rt = &mut self.net.routers.list[router as usize];
        rt.stats.count_drop(reason);
        let node = rt.node;
        self.net.discard_dropped(node, id, reason);
    }

    /// Counts a packet the layer took for wireless router `router` in the router's queue
    /// statistics ("router NODE": enqueued, and the largest backlog, its interface queue's plus
    /// `held`, what the layer holds for it).
    pub fn router_enqueued(&mut self, router: u32, held: u64) {
        let rt = &mut self.net.routers.list[router as usize];
        rt.stats.enqueued += 1;
        let backlog = (rt.ifq.len() as u64 + held).min(u32::MAX as u64) as u32;
        rt.stats.max_backlog = rt.stats.max_backlog.max(backlog);
    }

    /// Counts a packet the layer took for radio `r` in the radio's queue statistics ("radio
    /// NODE": enqueued, and the largest backlog, its interface queue's plus `held`, what the
    /// layer holds for it).
    pub fn radio_enqueued(&mut self, r: RadioId, held: usize) {
        let radio = &mut self.net.wireless.radios[r as usize];
        radio.stats.enqueued += 1;
        let backlog = (radio.ifq.len() + held) as u32;
        radio.stats.max_backlog = radio.stats.max_backlog.max(backlog);
    }

    /// Packets waiting in radio `r`'s interface queue (what a layer pushed and the MAC has not
    /// taken yet): a layer that hands packets over only while the queue is short (a custody
    /// threshold) reads it before it pushes.
    #[inline]
    pub fn radio_backlog(&self, r: RadioId) -> usize {
        self.net.wireless.radios[r as usize].ifq.len()
    }

    /// Whether radio `r` has failed (its node is down).
    #[inline]
    pub fn radio_failed(&self, r: RadioId) -> bool {
        self.net.wireless.radios[r as usize].failed
    }

    /// The first radio of `node` (`NO_RADIO` for a wired-only node); the others follow through
    /// [`Wireless::radios_of`].
    #[inline]
    pub fn first_radio(&self, node: NodeId) -> RadioId {
        self.net
            .wireless
            .radio_of_node
            .get(node as usize)
            .copied()
            .unwrap_or(NO_RADIO)
    }
}

impl Network {
    /// Installs the forwarding layer (once, when the network is built): asks it what it needs and
    /// lets it arm its first timers.
    pub fn install_forwarding(&mut self, layer: Box<dyn Forwarding>) {
        self.wireless.layer_needs = layer.needs();
        self.forwarding = Some(layer);
        self.with_layer(|layer, ctx| layer.on_start(ctx));
    }

    /// Runs a hook of the layer with a context over the rest of the network, then what it asked
    /// for: wakes and timers in order, and the routing service's pending work (AODV's control
    /// packets).
    #[inline(always)]
    pub(in crate::net) fn with_layer<R>(
        &mut self,
        f: impl FnOnce(&mut dyn Forwarding, &mut ForwardingCtx<'_>) -> R,
    ) -> R {
        // Taken out while the hook runs, so that the context can lend the rest of the network;
        // nothing the context does needs the layer (MACs are woken afterwards).
        let mut layer = self.forwarding.take().expect("forwarding hooks never nest");
        let r = f(&mut *layer, &mut ForwardingCtx { net: self });
        self.forwarding = Some(layer);
        self.settle_effects();
        r
    }

    /// Carries out what the hook that just returned asked for, in order.
    // Inlined: after most hooks there is nothing to do (a packet pushed to a wired channel).
    #[inline(always)]
    pub(in crate::net) fn settle_effects(&mut self) {
        if !self.effects.is_empty() || self.on_demand.is_some() {
            self.settle_pending_effects();
        }
    }

    #[inline(never)]
    fn settle_pending_effects(&mut self) {
        if !self.effects.is_empty() {
            let mut effects = std::mem::take(&mut self.effects);
            for e in &effects {
                match *e {
                    Effect::Wake(r) => self.kick(r),
                    Effect::WakeRouter(r) => self.router_kick(r),
                    Effect::Timer(at, token) => {
                        self.events
                            .schedule(at, EventClass::Timer, Event::Forwarding(token));
                    }
                    Effect::Accept { node, from, packet } => {
                        let id = self.packets.insert_copy(packet);
                        self.receive(node, id, Some(from));
                    }
                }
            }
            // Give the buffer back so that its capacity is reused. Waking a MAC runs no hook that
            // could leave effects (MACs call the layer without a context); a packet accepted may
            // (the layer forwards it), and those were settled by the hook's own return.
            effects.clear();
            if self.effects.is_empty() {
                self.effects = effects;
            }
        }
        if self.on_demand.is_some() {
            self.apply_on_demand();
        }
    }

    /// The layer, outside its hooks.
    #[inline]
    pub(in crate::net) fn layer(&self) -> &dyn Forwarding {
        self.forwarding.as_deref().expect("a forwarding layer")
    }

    /// A timer of the layer's expired.
    pub fn on_forwarding_timer(&mut self, token: u64) {
        self.with_layer(|layer, ctx| layer.on_timer(token, ctx));
        self.process_upcalls();
    }

    /// The layer's tables for the results.
    pub fn forwarding_report(&self) -> Vec<LayerTable> {
        self.layer().report(&self.node_names, self.events.now())
    }

    /// The name the results give drops for `reason`, the layer's own if it has one
    /// ([`Forwarding::drop_name`]).
    pub fn drop_name(&self, reason: DropReason) -> &'static str {
        self.layer().drop_name(reason)
    }
}
