//! Turns a validated [`ScenarioConfig`] into a [`World`]. Every check names the offending field
//! the way the scenario file spells it; the Python front end performs the same checks first, so
//! these are the backstop for direct users of the library.

use std::collections::BTreeMap;

use super::budget::charge_scenario;
use super::config::{
    Direction, LossConfig, MetricsConfig, RouteMetric, RoutingConfig, ScenarioConfig, StaticConfig,
};
use super::flow_build::{fit_to_paths, FlowContext};
use super::flow_paths::PathsInput;
use super::route_weights::edge_weights;
use super::routers::{pairs_layer, RouterPairsSetup};
use super::topology::{place, Placed};
use super::usable_links;
use super::wireless_build::{build_radios, radio_edges, set_in_motion};
use crate::error::{positive, ConfigError};
use crate::link::loss::LossProcess;
use crate::link::{Channel, ChannelStats};
use crate::mac::downlink::Downlink;
use crate::net::cellular::BaseStation;
use crate::net::event::Event;
use crate::net::flow_paths::FlowPaths;
use crate::net::forwarding::{Forwarding, LayerSetup};
use crate::net::paths::weighted_next_hops;
use crate::net::routing::{Edge, Iface, RoutingTable};
use crate::net::wireless::{Wireless, NO_RADIO};
use crate::net::{Network, OnDemandRouting};
use crate::queue::droptail::DropTail;
use crate::sim::memory::MemoryBudget;
use crate::sim::{DropReason, EventClass, EventQueue, NodeId, PacketArena, Rng};
use crate::world::{Endpoints, Flow, RunControl, Traces, World, WorldEvent};

fn err(path: impl Into<String>, message: impl Into<String>) -> ConfigError {
    ConfigError::new(path, message)
}

/// Validates `cfg` and builds the world.
pub fn build(cfg: &ScenarioConfig) -> Result<World, ConfigError> {
    build_noting_unreachable(cfg, &mut None, None)
}

/// [`build`], publishing the set-up's progress to `control` and cutting it short on a stop
/// request (the world's run then returns no results: [`World::run_controlled`]).
pub fn build_controlled(cfg: &ScenarioConfig, control: &RunControl) -> Result<World, ConfigError> {
    build_noting_unreachable(cfg, &mut None, Some(control))
}

/// [`build`], which on refusing a flow because no route joins its ends (an end out of radio
/// range, no usable path, no route) also sets `unreachable` to that flow's index: a drawing
/// leaves such a flow out and says why (`layout`), where a run stops.
pub(crate) fn build_noting_unreachable(
    cfg: &ScenarioConfig,
    unreachable: &mut Option<usize>,
    control: Option<&RunControl>,
) -> Result<World, ConfigError> {
    let started = std::time::Instant::now();
    positive("duration", cfg.duration)?;
    // Before anything large is allocated (a placement of 10^9 nodes would abort the process).
    let mut budget = MemoryBudget::new(cfg.limits.memory);
    charge_scenario(cfg, &mut budget)?;
    // Node ids: wired-only nodes first, then the nodes the topology places.
    let placed: Vec<Placed> = cfg
        .topology
        .as_ref()
        .map(|t| place(t, cfg.seed))
        .unwrap_or_default();
    let mut names: Vec<String> = cfg.nodes.clone();
    names.extend(placed.iter().map(|p| p.name.clone()));
    if names.is_empty() {
        return Err(err(
            "nodes",
            "at least one node is needed (nodes or topology)",
        ));
    }
    let ids = node_ids(cfg, &names)?;
    let traced = super::trace_build::check(cfg, &ids)?;
    let node = |path: String, name: &str| {
        ids.get(name)
            .copied()
            .ok_or_else(|| err(path, format!("no node named '{name}'")))
    };

    let mut channels = wired_channels(cfg, &names, &node)?;
    let downlink = build_downlink(cfg, &names, &node, &mut channels)?;
    let built_routers = super::router_build::build(cfg, &names, &node, &mut channels)?;
    let mut edges = wired_edges(&channels, downlink.as_ref(), &built_routers.edges);
    let wireless = build_wireless(cfg, &placed, names.len(), &node, &mut budget, &mut edges)?;
    // The links that may carry data: a radio link the receiver locks onto but that loses most
    // full-size frames at its rate is no route (`usable_links`; none taken out under
    // backpressure, which weighs links by the loss it measures, or with a threshold of 0).
    let min_delivery = cfg.routing.min_delivery()?.filter(|&t| t > 0.0);
    if let Some(threshold) = min_delivery {
        usable_links::retain_usable(&mut edges, &wireless, threshold);
    }
    cfg.routing.check_forwarding(cfg)?;
    crate::scenario::coding::check(cfg)?;
    super::flow_paths::check(cfg)?;
    let routes = static_routes(
        cfg,
        &ids,
        &edges,
        &channels,
        &wireless,
        downlink.as_ref(),
        control,
    );

    let m = &cfg.metrics;
    positive("metrics.bin", m.bin)?;
    positive("metrics.trace_interval", m.trace_interval)?;

    let moving = wireless.motion.is_some();
    let mut net = Network {
        events: EventQueue::new(),
        packets: PacketArena::default(),
        channels,
        wireless,
        arrived: Vec::new(),
        node_names: names.clone(),
        routes,
        flow_paths: FlowPaths::default(),
        // The gray-zone filter judges links once, at the start: not for moving nodes, whose
        // links change (AODV then hears every neighbour, as RFC 3561 does).
        on_demand: on_demand_routing(cfg, names.len(), min_delivery.filter(|_| !moving), &edges),
        base_station: downlink,
        routers: built_routers.routers,
        node_drops: vec![[0; DropReason::ALL.len()]; names.len()],
        delivered: 0,
        dropped: 0,
        shim_drops: Vec::new(),
        congestion_owed: Vec::new(),
        forwarding: None,
        effects: Vec::new(),
        arriving_from: None,
        pcap: None,
    };
    if net.base_station.is_some() {
        net.events.schedule(0, EventClass::Transmit, Event::Slot);
    }
    if let Some(m) = net.wireless.motion.as_deref() {
        // The lists of time 0 were built with the radios; the next refresh one interval on.
        net.events
            .schedule(m.interval, EventClass::Timer, Event::Motion);
    }
    net.start_on_demand(cfg.seed);

    let mut flows = FlowContext {
        cfg,
        node: &node,
        edges: &edges,
        placed: &placed,
        min_delivery,
    }
    .build_flows(&mut net, unreachable)?;

    schedule_failures(cfg, &node, &mut net)?;

    // The forwarding layer last, once everything it may look at is built (its first timers
    // then follow every event scheduled so far).
    let around = LayerInputs {
        ids: &ids,
        edges: &edges,
        min_delivery,
    };
    around.install(cfg, &mut net, &mut flows, built_routers.pairs)?;

    let pcap = super::trace_build::plan(cfg, traced, &net, &flows)?;
    let traces = traces(m, &flows);
    if m.trace_rates {
        for radio in net.wireless.radios.iter_mut() {
            if let Some(rc) = radio.rate_control.as_mut() {
                rc.trace_changes();
            }
        }
    }
    if m.trace_cwnd || m.trace_queues {
        net.events
            .schedule(0, EventClass::Sample, WorldEvent::Sample.into());
    }
    Ok(World {
        name: cfg.name.clone(),
        seed: cfg.seed,
        duration: cfg.duration,
        net,
        flows,
        traces,
        budget,
        forwarding_tables: super::config::FORWARDING_TABLES,
        pcap,
        setup_s: started.elapsed().as_secs_f64(),
    })
}

/// Each node's id by name (wired-only nodes first, then the placed ones), refusing a name given
/// twice.
fn node_ids<'a>(
    cfg: &ScenarioConfig,
    names: &'a [String],
) -> Result<BTreeMap<&'a str, NodeId>, ConfigError> {
    let mut ids: BTreeMap<&str, NodeId> = BTreeMap::new();
    for (i, n) in names.iter().enumerate() {
        if ids.insert(n.as_str(), i as NodeId).is_some() {
            let path = if i < cfg.nodes.len() {
                format!("nodes[{i}]")
            } else {
                format!("topology.nodes[{}].name", i - cfg.nodes.len())
            };
            return Err(err(path, format!("'{n}' is already a node name")));
        }
    }
    Ok(ids)
}

/// The edges of the wired links, the downlink and the routers (radio links come with the
/// radios).
fn wired_edges(
    channels: &[Channel],
    downlink: Option<&BaseStation>,
    routers: &[Edge],
) -> Vec<Edge> {
    let mut edges: Vec<Edge> = channels
        .iter()
        .enumerate()
        .map(|(i, c)| Edge {
            from: c.from,
            to: c.to,
            iface: Iface::Channel(i as u32),
        })
        .collect();
    if let Some(bs) = downlink {
        edges.extend(bs.users.iter().enumerate().map(|(u, &user)| Edge {
            from: bs.node,
            to: user,
            iface: Iface::Downlink(u as u32),
        }));
    }
    edges.extend_from_slice(routers);
    edges
}

/// The radios of the nodes the topology places (their links appended to `edges`), or none.
fn build_wireless(
    cfg: &ScenarioConfig,
    placed: &[Placed],
    nodes: usize,
    node: &dyn Fn(String, &str) -> Result<NodeId, ConfigError>,
    budget: &mut MemoryBudget,
    edges: &mut Vec<Edge>,
) -> Result<Wireless, ConfigError> {
    Ok(match (&cfg.topology, &cfg.radio) {
        (Some(_), Some(radio)) => {
            let mut built = build_radios(
                radio,
                placed,
                cfg.nodes.len() as NodeId..nodes as NodeId,
                cfg.seed,
                &cfg.link_errors,
                node,
                budget,
            )?;
            if set_in_motion(radio, &cfg.mobility, placed, cfg.seed, &mut built.wireless)? {
                built.edges = radio_edges(&built.wireless);
            }
            edges.extend(built.edges);
            built.wireless
        }
        (Some(_), None) => return Err(err("radio", "a topology needs a radio")),
        (None, Some(_)) => {
            return Err(err(
                "topology",
                "a radio needs a topology to place its nodes",
            ))
        }
        (None, None) => {
            if !cfg.mobility.is_empty() {
                return Err(err("mobility", "moving nodes need a topology and a radio"));
            }
            if !cfg.link_errors.is_empty() {
                return Err(err("link_errors", "link errors need wireless nodes"));
            }
            Wireless::empty(nodes)
        }
    })
}

/// The static routes to every flow end: shortest paths in hops, or by the route metric's
/// weights.
fn static_routes(
    cfg: &ScenarioConfig,
    ids: &BTreeMap<&str, NodeId>,
    edges: &[Edge],
    channels: &[Channel],
    wireless: &Wireless,
    downlink: Option<&BaseStation>,
    control: Option<&RunControl>,
) -> RoutingTable {
    let mut destinations = Vec::with_capacity(cfg.flows.len() * 2);
    for f in &cfg.flows {
        for name in [&f.src, &f.dst] {
            if let Some(&id) = ids.get(name.as_str()) {
                destinations.push(id);
            }
        }
    }
    match cfg.routing {
        RoutingConfig::Static(StaticConfig { metric, .. }) if metric != RouteMetric::Hops => {
            let weights = edge_weights(metric, edges, channels, wireless, downlink);
            weighted_next_hops(ids.len(), edges, &|i| weights[i], &destinations)
                .into_table(ids.len(), edges)
        }
        _ => {
            let mut step = |done, total| control.is_none_or(|c| c.setup_step(done, total));
            RoutingTable::shortest_paths_observed(ids.len(), edges, &destinations, &mut step)
        }
    }
}

/// What the forwarding layer is built against besides the network and the flows.
struct LayerInputs<'a> {
    ids: &'a BTreeMap<&'a str, NodeId>,
    edges: &'a [Edge],
    min_delivery: Option<f64>,
}

impl LayerInputs<'_> {
    /// The flows' paths, the shims and controllers that depend on them ([`fit_to_paths`]), and
    /// the forwarding layer, installed in `net`.
    fn install(
        &self,
        cfg: &ScenarioConfig,
        net: &mut Network,
        flows: &mut [Flow],
        pairs: Vec<RouterPairsSetup>,
    ) -> Result<(), ConfigError> {
        let LayerInputs {
            ids,
            edges,
            min_delivery,
        } = *self;
        let flow_ends: Vec<(NodeId, NodeId)> = flows.iter().map(|f| (f.src, f.dst)).collect();
        let edge_weights = |metric: RouteMetric| {
            edge_weights(
                metric,
                edges,
                &net.channels,
                &net.wireless,
                net.base_station.as_ref(),
            )
        };
        let flow_paths = super::flow_paths::build(
            cfg,
            &PathsInput {
                ids,
                names: &net.node_names,
                edges,
                flow_ends: &flow_ends,
                edge_weights: &edge_weights,
                min_delivery,
                unusable: &|a, b| match min_delivery {
                    Some(t) => {
                        usable_links::why_unusable(&net.wireless, (a, b), &net.node_names, t)
                    }
                    None => None,
                },
                all_edges: &|| usable_links::all_edges(edges, &net.wireless),
                contend: &|a, b| net.wireless.hops_contend(&edges[a], &edges[b]),
            },
        )?;
        fit_to_paths(cfg, flows, &flow_paths);
        let setup = LayerSetup {
            nodes: net.node_names.len(),
            edges,
            flow_ends: &flow_ends,
            wireless: &net.wireless,
            edge_weights: &edge_weights,
            flow_paths: &flow_paths,
        };
        let layer = forwarding_layer(cfg, &setup, net.routers.list.len(), pairs)?;
        net.flow_paths = flow_paths;
        net.install_forwarding(layer);
        Ok(())
    }
}

/// The wired links' channels, two per link (forward, then reverse), each with its delay drawn
/// (`delay_spread`) and its loss process.
fn wired_channels(
    cfg: &ScenarioConfig,
    names: &[String],
    node: &dyn Fn(String, &str) -> Result<NodeId, ConfigError>,
) -> Result<Vec<Channel>, ConfigError> {
    let mut channels = Vec::with_capacity(cfg.links.len() * 2);
    for (i, l) in cfg.links.iter().enumerate() {
        let a = node(format!("links[{i}].from"), &l.from)?;
        let b = node(format!("links[{i}].to"), &l.to)?;
        if a == b {
            return Err(err(
                format!("links[{i}].to"),
                "a link needs two different nodes",
            ));
        }
        positive(format!("links[{i}].rate"), l.rate)?;
        l.queue.check(&format!("links[{i}].queue"))?;
        let delay = l.delay.saturating_add(drawn_below(
            cfg.seed,
            &format!("link/{i}/delay"),
            l.delay_spread,
        ));
        for (dir, from, to) in [(Direction::Forward, a, b), (Direction::Reverse, b, a)] {
            let loss = loss_process(cfg.seed, i, dir, l.loss.as_ref())?;
            channels.push(Channel {
                name: format!("{}->{}", names[from as usize], names[to as usize]),
                from,
                to,
                rate_bps: l.rate,
                delay,
                queue: l.queue.build(None),
                busy: false,
                loss,
                stats: ChannelStats::default(),
            });
        }
    }
    Ok(channels)
}

/// The on-demand routing protocol the routing block runs, if it does: hearing control messages
/// only over usable links when routes obey a delivery threshold.
fn on_demand_routing(
    cfg: &ScenarioConfig,
    nodes: usize,
    min_delivery: Option<f64>,
    edges: &[Edge],
) -> Option<OnDemandRouting> {
    let senders = || usable_links::usable_senders(nodes, edges);
    let senders: Option<&dyn Fn() -> Vec<Vec<NodeId>>> = min_delivery.map(|_| &senders as _);
    cfg.routing.scheme().on_demand(nodes, cfg.seed, senders)
}

/// The nodes that fail, each a `NodeDown` event at its time (if within the run).
fn schedule_failures(
    cfg: &ScenarioConfig,
    node: &dyn Fn(String, &str) -> Result<NodeId, ConfigError>,
    net: &mut Network,
) -> Result<(), ConfigError> {
    for (i, fl) in cfg.failures.iter().enumerate() {
        let n = node(format!("failures[{i}].node"), &fl.node)?;
        if net.wireless.radio_of_node[n as usize] == NO_RADIO {
            return Err(err(
                format!("failures[{i}].node"),
                "only wireless nodes can fail",
            ));
        }
        if fl.at < cfg.duration {
            net.events
                .schedule(fl.at, EventClass::App, Event::NodeDown(n));
        }
    }
    Ok(())
}

/// The forwarding layer: the coding block's, the routers' priority pairs, or the routing
/// block's.
fn forwarding_layer(
    cfg: &ScenarioConfig,
    setup: &LayerSetup<'_>,
    routers: usize,
    pairs: Vec<RouterPairsSetup>,
) -> Result<Box<dyn Forwarding>, ConfigError> {
    Ok(
        if let (Some(coding), Some(capacity)) = (&cfg.coding, super::coding::capacity(cfg)) {
            // Checked: coding runs over radios only, on static routes, one radio per node.
            coding.forwarding(capacity, setup)
        } else if pairs.is_empty() {
            cfg.routing.forwarding(cfg, setup)
        } else {
            let static_routes = matches!(cfg.routing, RoutingConfig::Static { .. });
            pairs_layer(setup.nodes, routers, pairs, static_routes)?
        },
    )
}

/// What the run traces, as `metrics` asks.
fn traces(m: &MetricsConfig, flows: &[Flow]) -> Traces {
    Traces {
        sample_interval: (m.trace_cwnd || m.trace_queues).then_some(m.trace_interval),
        cwnd_on: m.trace_cwnd,
        cwnd: Default::default(),
        queues_on: m.trace_queues,
        queues: Default::default(),
        cwnd_delay: flows.iter().any(|f| match &f.endpoints {
            Endpoints::Tcp { sender, .. } => sender.delay_state().is_some(),
            _ => false,
        }),
    }
}

/// The base station's downlink of `cfg`, if any, with each user's uplink appended to `channels`.
fn build_downlink(
    cfg: &ScenarioConfig,
    names: &[String],
    node: &dyn Fn(String, &str) -> Result<NodeId, ConfigError>,
    channels: &mut Vec<Channel>,
) -> Result<Option<BaseStation>, ConfigError> {
    let Some(d) = &cfg.downlink else {
        return Ok(None);
    };
    let bs = node("downlink.base_station".into(), &d.base_station)?;
    let mut users = Vec::with_capacity(d.users.len());
    for (i, u) in d.users.iter().enumerate() {
        let path = format!("downlink.users[{i}].node");
        let n = node(path.clone(), &u.node)?;
        if n == bs {
            return Err(err(path, "the base station cannot be one of its own users"));
        }
        if let Some(j) = users.iter().position(|&m| m == n) {
            return Err(err(
                path,
                format!("'{}' is already downlink.users[{j}]", u.node),
            ));
        }
        users.push(n);
    }
    let model = Downlink::new(d, cfg.seed, "downlink")?;
    for &u in &users {
        channels.push(Channel {
            name: format!("uplink {}->{}", names[u as usize], names[bs as usize]),
            from: u,
            to: bs,
            rate_bps: d.uplink_rate,
            delay: d.uplink_delay,
            queue: Box::new(DropTail::new(d.queue_packets as usize)),
            busy: false,
            loss: LossProcess::None,
            stats: ChannelStats::default(),
        });
    }
    let snrs = d.users.iter().map(|u| u.mean_snr).collect();
    Ok(Some(BaseStation::new(bs, users, snrs, model, names)))
}

fn loss_process(
    seed: u64,
    link: usize,
    dir: Direction,
    cfg: Option<&LossConfig>,
) -> Result<LossProcess, ConfigError> {
    let applies = |d: Direction| d == Direction::Both || d == dir;
    let tag = if dir == Direction::Forward {
        "fwd"
    } else {
        "rev"
    };
    Ok(match cfg {
        None => LossProcess::None,
        Some(LossConfig::Bernoulli { per, direction }) => {
            if !(0.0..=1.0).contains(per) {
                return Err(err(
                    format!("links[{link}].loss.per"),
                    "must be within [0, 1]",
                ));
            }
            if applies(*direction) && *per > 0.0 {
                LossProcess::Bernoulli {
                    per: *per,
                    rng: Rng::stream(seed, &format!("link/{link}/{tag}/loss")),
                }
            } else {
                LossProcess::None
            }
        }
        Some(LossConfig::Segments { seqs, direction }) => {
            if applies(*direction) {
                let mut left = BTreeMap::new();
                for &s in seqs {
                    *left.entry(s).or_insert(0u32) += 1;
                }
                LossProcess::Segments(left)
            } else {
                LossProcess::None
            }
        }
    })
}

/// A duration uniform in [0, `spread`) from the run's stream `component` (0 without a spread).
pub(super) fn drawn_below(seed: u64, component: &str, spread: u64) -> u64 {
    if spread == 0 {
        return 0;
    }
    let mut rng = Rng::stream(seed, component);
    ((rng.uniform() * spread as f64) as u64).min(spread - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_delay_spread_draws_one_delay_per_link_and_seed() {
        let world = |seed: u64| {
            let cfg: ScenarioConfig = serde_json::from_value(serde_json::json!({
                "name": "spread", "duration": 1_000_000, "seed": seed, "nodes": ["a", "b", "c"],
                "links": [
                    {"from": "a", "to": "b", "rate": 1_000_000, "delay": 100_000_000,
                     "delay_spread": 100_000_000},
                    {"from": "b", "to": "c", "rate": 1_000_000, "delay": 5}
                ],
                "flows": []
            }))
            .expect("valid scenario");
            build(&cfg).expect("builds")
        };
        let delays = |seed| {
            let w = world(seed);
            w.net.channels.iter().map(|c| c.delay).collect::<Vec<_>>()
        };
        let (one, again, other) = (delays(1), delays(1), delays(2));
        assert_eq!(one, again);
        // Both directions alike, within [100, 200) ms; the link without a spread keeps its delay.
        assert_eq!(one[0], one[1]);
        assert!((100_000_000..200_000_000).contains(&one[0]), "{one:?}");
        assert_eq!(&one[2..], &[5, 5]);
        assert_ne!(one[0], other[0]);
    }
}
