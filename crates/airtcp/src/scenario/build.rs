//! Turns a validated [`ScenarioConfig`] into a [`World`]. Every check names the offending field
//! the way the scenario file spells it; the Python front end performs the same checks first, so
//! these are the backstop for direct users of the library.

use std::collections::{BTreeMap, BTreeSet};

use super::budget::charge_scenario;
use super::config::{
    AppConfig, CcKind, Direction, FlowConfig, LossConfig, QueueConfig, RouteMetric, RoutingConfig,
    ScenarioConfig, TcpConfig, TransportConfig, UtilityConfig,
};
use super::flow_paths::PathsInput;
use super::topology::{place, Placed};
use super::usable_links;
use super::wireless_build::build_radios;
use crate::error::ConfigError;
use crate::link::loss::LossProcess;
use crate::link::{Channel, ChannelStats};
use crate::mac::downlink::Downlink;
use crate::metrics::goodput::GoodputMeter;
use crate::net::aodv::HelloParams;
use crate::net::cellular::BaseStation;
use crate::net::event::Event;
use crate::net::flow_paths::FlowPaths;
use crate::net::forwarding::priority_pairs::PriorityPairs;
use crate::net::forwarding::LayerSetup;
use crate::net::paths::{etx, weighted_next_hops};
use crate::net::routing::{Edge, Iface, RoutingTable};
use crate::net::wireless::{Wireless, NO_RADIO};
use crate::net::{AodvRouting, Network};
use crate::queue::droptail::DropTail;
use crate::sim::header::rlc::PACKET_BYTES;
use crate::sim::memory::MemoryBudget;
use crate::sim::{DropReason, EventClass, EventQueue, LazyTimer, NodeId, PacketArena, Rng};
use crate::transport::tcp::cc;
use crate::transport::tcp::receiver::TcpReceiver;
use crate::transport::tcp::sender::TcpSender;
use crate::transport::tcp_rlc::endpoint::AnySender;
use crate::transport::tcp_rlc::multipath::MultipathSender;
use crate::transport::tcp_rlc::receiver::RlcReceiver;
use crate::transport::tcp_rlc::sender::RlcSender;
use crate::transport::udp::{CbrSource, DatagramSource, PoissonSource, UdpSink, UtilitySource};
use crate::transport::utility_control::Utility;
use crate::world::{Endpoints, Flow, ShimSlot, Traces, World, WorldEvent};

fn err(path: impl Into<String>, message: impl Into<String>) -> ConfigError {
    ConfigError::new(path, message)
}

fn positive(path: String, v: u64) -> Result<(), ConfigError> {
    if v == 0 {
        return Err(err(path, "must be greater than zero"));
    }
    Ok(())
}

/// Validates `cfg` and builds the world.
pub fn build(cfg: &ScenarioConfig) -> Result<World, ConfigError> {
    build_noting_unreachable(cfg, &mut None)
}

/// [`build`], which on refusing a flow because no route joins its ends (an end out of radio
/// range, no usable path, no route) also sets `unreachable` to that flow's index: a drawing
/// leaves such a flow out and says why (`layout`), where a run stops.
pub(crate) fn build_noting_unreachable(
    cfg: &ScenarioConfig,
    unreachable: &mut Option<usize>,
) -> Result<World, ConfigError> {
    positive("duration".into(), cfg.duration)?;
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
    let node = |path: String, name: &str| {
        ids.get(name)
            .copied()
            .ok_or_else(|| err(path, format!("no node named '{name}'")))
    };

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
        let QueueConfig::Droptail { packets } = l.queue;
        positive(format!("links[{i}].queue.packets"), packets as u64)?;
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
                queue: Box::new(DropTail::new(packets as usize)),
                busy: false,
                loss,
                stats: ChannelStats::default(),
            });
        }
    }
    let downlink = build_downlink(cfg, &names, &node, &mut channels)?;
    let built_routers = super::router_build::build(cfg, &names, &node, &mut channels)?;
    let mut edges: Vec<Edge> = channels
        .iter()
        .enumerate()
        .map(|(i, c)| Edge {
            from: c.from,
            to: c.to,
            iface: Iface::Channel(i as u32),
        })
        .collect();
    if let Some(bs) = &downlink {
        edges.extend(bs.users.iter().enumerate().map(|(u, &user)| Edge {
            from: bs.node,
            to: user,
            iface: Iface::Downlink(u as u32),
        }));
    }
    edges.extend_from_slice(&built_routers.edges);
    let wireless = match (&cfg.topology, &cfg.radio) {
        (Some(_), Some(radio)) => {
            let built = build_radios(
                radio,
                &placed,
                cfg.nodes.len() as NodeId..names.len() as NodeId,
                cfg.seed,
                &cfg.link_errors,
                &node,
                &mut budget,
            )?;
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
            if !cfg.link_errors.is_empty() {
                return Err(err("link_errors", "link errors need wireless nodes"));
            }
            Wireless::empty(names.len())
        }
    };
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
    if let RoutingConfig::Aodv {
        hello_interval,
        allowed_hello_loss,
        ..
    } = cfg.routing
    {
        // Checked even with HELLOs off, so that switching them on cannot reveal a bad value.
        if hello_interval == 0 {
            return Err(err("routing.hello_interval", "must be greater than zero"));
        }
        if allowed_hello_loss == 0 {
            return Err(err(
                "routing.allowed_hello_loss",
                "must be at least 1 (a neighbour's entry would expire as it is made)",
            ));
        }
        if !cfg.links.is_empty() {
            return Err(err(
                "routing.kind",
                "aodv routes over radios only; this scenario has wired links (use static)",
            ));
        }
        if cfg.downlink.is_some() {
            return Err(err(
                "routing.kind",
                "aodv routes over radios only; this scenario has a downlink (use static)",
            ));
        }
        if !cfg.routers.is_empty() {
            return Err(err(
                "routing.kind",
                "aodv routes over radios only; this scenario has routers (use static)",
            ));
        }
    }
    let mut destinations = Vec::with_capacity(cfg.flows.len() * 2);
    for f in &cfg.flows {
        for name in [&f.src, &f.dst] {
            if let Some(&id) = ids.get(name.as_str()) {
                destinations.push(id);
            }
        }
    }
    let routes = match cfg.routing {
        RoutingConfig::Static { metric, .. } if metric != RouteMetric::Hops => {
            let weights = edge_weights(metric, &edges, &channels, &wireless, downlink.as_ref());
            weighted_next_hops(names.len(), &edges, &|i| weights[i], &destinations).into_table()
        }
        _ => RoutingTable::shortest_paths(names.len(), &edges, &destinations),
    };

    let m = &cfg.metrics;
    positive("metrics.bin".into(), m.bin)?;
    positive("metrics.trace_interval".into(), m.trace_interval)?;

    let mut net = Network {
        events: EventQueue::new(),
        packets: PacketArena::default(),
        channels,
        wireless,
        arrived: Vec::new(),
        node_names: names.clone(),
        routes,
        flow_paths: FlowPaths::default(),
        aodv: match cfg.routing {
            RoutingConfig::Aodv {
                local_repair,
                hello,
                hello_interval,
                allowed_hello_loss,
                ..
            } => {
                let hello = hello.then_some(HelloParams {
                    interval: hello_interval,
                    allowed_loss: allowed_hello_loss,
                });
                let mut aodv = AodvRouting::new(names.len(), cfg.seed, local_repair, hello);
                if min_delivery.is_some() {
                    aodv.hear_only(usable_links::usable_senders(names.len(), &edges));
                }
                Some(aodv)
            }
            _ => None,
        },
        base_station: downlink,
        routers: built_routers.routers,
        node_drops: vec![[0; DropReason::ALL.len()]; names.len()],
        delivered: 0,
        dropped: 0,
        shim_drops: Vec::new(),
        forwarding: None,
        effects: Vec::new(),
        arriving_from: None,
    };
    if net.base_station.is_some() {
        net.events.schedule(0, EventClass::Transmit, Event::Slot);
    }
    net.start_aodv(cfg.seed);

    let mut flows = Vec::with_capacity(cfg.flows.len());
    let mut names = BTreeSet::new();
    for (i, f) in cfg.flows.iter().enumerate() {
        let p = |field: &str| format!("flows[{i}].{field}");
        if f.start_jitter > 0 && f.start.saturating_add(f.start_jitter) > cfg.duration {
            return Err(err(
                p("start_jitter"),
                "start + start_jitter must not be later than the end of the run",
            ));
        }
        let drawn = FlowConfig {
            start: f.start + jittered_delay(cfg.seed, i, f.start_jitter),
            ..f.clone()
        };
        let f = &drawn;
        if !names.insert(cfg.flows[i].id.as_str()) {
            return Err(err(p("id"), format!("duplicate flow id '{}'", f.id)));
        }
        let src = node(p("src"), &f.src)?;
        let dst = node(p("dst"), &f.dst)?;
        if src == dst {
            return Err(err(p("dst"), "source and destination are the same node"));
        }
        if !net.routes.reachable(src, dst) || !net.routes.reachable(dst, src) {
            *unreachable = Some(i);
            // The unusable links are out of `edges`: the messages look at every link.
            let all = match min_delivery {
                Some(_) => usable_links::all_edges(&edges, &net.wireless),
                None => edges.clone(),
            };
            // Name the end that hears nobody, if one does: the usual cause in a mesh.
            for (n, name, field) in [(src, &f.src, "src"), (dst, &f.dst, "dst")] {
                let wireless = net.wireless.radio_of_node[n as usize] != NO_RADIO;
                if wireless && all.iter().all(|e| e.from != n) {
                    let placed_at = (n as usize).checked_sub(cfg.nodes.len());
                    let msg = out_of_range(name, cfg.radio.as_ref(), &placed, placed_at);
                    return Err(err(p(field), msg));
                }
            }
            // A flow that only links below the threshold connect: it would carry (next to)
            // nothing, which a run should not find out by itself.
            if let Some(threshold) = min_delivery {
                let ends = (src, dst);
                let names = &net.node_names;
                if let Some(msg) =
                    usable_links::no_usable_path(&net.wireless, &all, names, ends, threshold)
                {
                    return Err(err(format!("flows[{i}]"), msg));
                }
            }
            return Err(err(
                p("dst"),
                format!("no route between '{}' and '{}'", f.src, f.dst),
            ));
        }
        if f.start >= cfg.duration {
            return Err(err(p("start"), "the flow starts after the end of the run"));
        }
        let stop = f.stop.unwrap_or(cfg.duration).min(cfg.duration);
        if f.stop.is_some_and(|s| s <= f.start) {
            return Err(err(p("stop"), "stop must be later than start"));
        }
        let endpoints = match (&f.app, &f.transport) {
            (AppConfig::Bulk { bytes }, TransportConfig::Tcp(t)) => {
                check_tcp(t, &p("transport"))?;
                if *bytes == Some(0) {
                    return Err(err(p("app.bytes"), "must be greater than zero"));
                }
                let mut sender = TcpSender::new(t, cc::build(t), *bytes);
                if m.trace_rtt {
                    sender.rtt_log = Some(Vec::new());
                }
                Endpoints::Tcp {
                    sender: Box::new(sender),
                    receiver: TcpReceiver::new(t),
                    header_bytes: t.header_bytes,
                    rto_timer: LazyTimer::default(),
                    ack_timer: LazyTimer::default(),
                    shim: t.shim(cfg.seed, i).map(|s| Box::new(ShimSlot::new(s))),
                }
            }
            (AppConfig::Bulk { bytes }, TransportConfig::TcpRlc(t)) => {
                t.check(&p("transport"))?;
                if *bytes == Some(0) {
                    return Err(err(p("app.bytes"), "must be greater than zero"));
                }
                let frames = bytes.map(|b| b.div_ceil(PACKET_BYTES as u64));
                let rng = Rng::stream(cfg.seed, &format!("flows/{i}/tcp_rlc"));
                Endpoints::TcpRlc {
                    sender: Box::new(AnySender::Single(RlcSender::new(t.sender(frames), rng))),
                    receiver: Box::new(RlcReceiver::new(t.field(), t.mode(), t.literal_dup)),
                    rto_timer: LazyTimer::default(),
                }
            }
            (app, TransportConfig::Udp(u)) if !matches!(app, AppConfig::Bulk { .. }) => {
                Endpoints::Udp {
                    source: datagram_source(app, f, cfg.seed, &p)?,
                    sink: UdpSink::default(),
                    header_bytes: u.header_bytes,
                    running: false,
                }
            }
            (AppConfig::Bulk { .. }, _) => {
                return Err(err(
                    p("transport.kind"),
                    "a bulk application needs a tcp or tcp_rlc transport",
                ))
            }
            (app, _) => {
                return Err(err(
                    p("transport.kind"),
                    format!("a {} application needs a udp transport", app.kind()),
                ))
            }
        };
        let id = i as u32;
        net.events
            .schedule(f.start, EventClass::App, WorldEvent::AppStart(id).into());
        if stop < cfg.duration {
            net.events
                .schedule(stop, EventClass::App, WorldEvent::AppStop(id).into());
        }
        flows.push(Flow {
            name: f.id.clone(),
            src,
            dst,
            start: f.start,
            stop,
            endpoints,
            meter: GoodputMeter::new(f.start, stop, m.bin, cfg.duration),
            completion: None,
        });
    }

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

    // The forwarding layer last, once everything it may look at is built (its first timers
    // then follow every event scheduled so far).
    let flow_ends: Vec<(NodeId, NodeId)> = flows.iter().map(|f| (f.src, f.dst)).collect();
    let edge_weights = |metric: RouteMetric| {
        edge_weights(
            metric,
            &edges,
            &net.channels,
            &net.wireless,
            net.base_station.as_ref(),
        )
    };
    let flow_paths = super::flow_paths::build(
        cfg,
        &PathsInput {
            ids: &ids,
            names: &net.node_names,
            edges: &edges,
            flow_ends: &flow_ends,
            edge_weights: &edge_weights,
            min_delivery,
            unusable: &|a, b| match min_delivery {
                Some(t) => usable_links::why_unusable(&net.wireless, (a, b), &net.node_names, t),
                None => None,
            },
            all_edges: &|| usable_links::all_edges(&edges, &net.wireless),
        },
    )?;
    // A TCP-RLC flow with several paths codes across them: one path controller per path (§II-F).
    for (i, flow) in flows.iter_mut().enumerate() {
        let m = flow_paths.paths(i as u32).len();
        if let Endpoints::TcpRlc { sender, .. } = &mut flow.endpoints {
            if m >= 2 {
                let AnySender::Single(single) = sender.as_ref() else {
                    continue;
                };
                let params = single.source().cfg;
                let rng = Rng::stream(cfg.seed, &format!("flows/{i}/tcp_rlc"));
                **sender = AnySender::Multipath(MultipathSender::new(params, m, rng));
            }
        }
    }
    // A shim the routing block puts on every TCP flow (one that needs the flows' paths).
    for (i, flow) in flows.iter_mut().enumerate() {
        if let Endpoints::Tcp { shim, .. } = &mut flow.endpoints {
            if let Some(s) = cfg.routing.transport_shim(cfg, &flow_paths, i) {
                *shim = Some(Box::new(ShimSlot::new(s)));
            }
        }
    }
    let setup = LayerSetup {
        nodes: net.node_names.len(),
        edges: &edges,
        flow_ends: &flow_ends,
        wireless: &net.wireless,
        edge_weights: &edge_weights,
        flow_paths: &flow_paths,
    };
    let layer: Box<dyn crate::net::forwarding::Forwarding> =
        if let (Some(coding), Some(capacity)) = (&cfg.coding, super::coding::capacity(cfg)) {
            // Checked: coding runs over radios only, on static routes, one radio per node.
            coding.forwarding(capacity, &setup)
        } else if built_routers.pairs.is_empty() {
            cfg.routing.forwarding(cfg, &setup)
        } else {
            if !matches!(cfg.routing, RoutingConfig::Static { .. }) {
                return Err(err(
                    "routing.kind",
                    "routers with priority_pairs forward over static routes (use static)",
                ));
            }
            Box::new(PriorityPairs::new(
                net.node_names.len(),
                net.routers.list.len(),
                built_routers.pairs,
            ))
        };
    net.flow_paths = flow_paths;
    net.install_forwarding(layer);

    let traces = Traces {
        sample_interval: (m.trace_cwnd || m.trace_queues).then_some(m.trace_interval),
        cwnd_on: m.trace_cwnd,
        cwnd: Default::default(),
        queues_on: m.trace_queues,
        queues: Default::default(),
        cwnd_delay: flows.iter().any(|f| match &f.endpoints {
            Endpoints::Tcp { sender, .. } => sender.delay_state().is_some(),
            _ => false,
        }),
    };
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
    })
}

/// The error for a flow end that hears no other node: with the receive range the radio
/// settings give (the distance at which the mean power falls to the receive threshold) and the
/// nearest node's distance, so the fix (closer nodes, more power, another propagation) is plain.
fn out_of_range(
    name: &str,
    radio: Option<&super::config::RadioConfig>,
    placed: &[Placed],
    index: Option<usize>,
) -> String {
    let mut msg = format!("'{name}' is out of radio range of every other node");
    if let Some(r) = radio {
        let loss = crate::phy::propagation::PathLoss::from_config(&r.propagation);
        let reach = loss.reach(r.tx_power, r.rx_threshold_dbm());
        msg += &format!(" (receive range {reach:.1} m");
        let me = index.and_then(|i| placed.get(i));
        let nearest = me.and_then(|m| {
            placed
                .iter()
                .filter(|o| o.name != m.name)
                .map(|o| ((o.x - m.x).hypot(o.y - m.y), &o.name))
                .min_by(|a, b| a.0.total_cmp(&b.0))
        });
        if let Some((d, other)) = nearest {
            msg += &format!("; the nearest node, '{other}', is {d:.1} m away");
        }
        msg += ")";
    }
    msg
}

/// The datagram source of a UDP flow's application (anything but `bulk`).
fn datagram_source(
    app: &AppConfig,
    f: &FlowConfig,
    seed: u64,
    p: &dyn Fn(&str) -> String,
) -> Result<DatagramSource, ConfigError> {
    Ok(match *app {
        AppConfig::Cbr { rate, packet_size } => {
            positive(p("app.rate"), rate)?;
            positive(p("app.packet_size"), packet_size as u64)?;
            DatagramSource::Cbr(CbrSource::new(packet_size, rate, f.start))
        }
        AppConfig::Poisson { rate, packet_size } => {
            positive(p("app.rate"), rate)?;
            positive(p("app.packet_size"), packet_size as u64)?;
            let rng = Rng::stream(seed, &format!("flow/{}/poisson", f.id));
            DatagramSource::Poisson(PoissonSource::new(packet_size, rate, f.start, rng))
        }
        AppConfig::Utility {
            packet_size,
            r_max,
            m,
            utility,
            slot,
        } => {
            positive(p("app.packet_size"), packet_size as u64)?;
            positive(p("app.r_max"), r_max)?;
            positive(p("app.slot"), slot)?;
            if !(m.is_finite() && m > 0.0) {
                return Err(err(p("app.m"), format!("must be finite and > 0, got {m}")));
            }
            let utility = match utility {
                UtilityConfig::Log => Utility::Log,
                UtilityConfig::AlphaFair { alpha } => {
                    if !(alpha.is_finite() && alpha > 0.0) {
                        return Err(err(
                            p("app.utility.alpha"),
                            format!("must be finite and > 0, got {alpha}"),
                        ));
                    }
                    Utility::AlphaFair { alpha }
                }
            };
            DatagramSource::Utility(UtilitySource::new(
                packet_size,
                slot,
                r_max,
                m,
                utility,
                f.start,
            ))
        }
        AppConfig::Bulk { .. } => unreachable!("bulk applications run over tcp"),
    })
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

/// The weight of every edge under a route metric: 1 (hops), its ETX ([`edge_etx`]) or its ETT
/// ([`edge_ett`]).
fn edge_weights(
    metric: RouteMetric,
    edges: &[Edge],
    channels: &[Channel],
    wireless: &Wireless,
    downlink: Option<&BaseStation>,
) -> Vec<f64> {
    match metric {
        RouteMetric::Hops => vec![1.0; edges.len()],
        RouteMetric::Etx => edge_etx(edges, channels, wireless, downlink),
        RouteMetric::Ett => edge_ett(edges, channels, wireless, downlink),
    }
}

/// Bytes of the reference packet ETT weighs a link by (Draves et al.'s 1500-byte probe; paper
/// 003 §5.4).
pub const ETT_PACKET_BYTES: u32 = 1500;

/// ETT weight of every edge, in microseconds: the ETX of [`edge_etx`] times the time the link
/// takes to carry a 1500-byte packet once. A radio link's time is the air time of the packet
/// plus the MAC's overhead bytes at the link's rate from the rate table (preamble included, no
/// backoff or ACK: those cost every link of a standard alike); a wired channel's is the
/// packet's serialisation at its bandwidth. Every path to a downlink or router user takes that
/// user's own edge from the base station or router, so those edges weigh ETX x 1 us and never
/// decide a route.
fn edge_ett(
    edges: &[Edge],
    channels: &[Channel],
    wireless: &Wireless,
    downlink: Option<&BaseStation>,
) -> Vec<f64> {
    let etx = edge_etx(edges, channels, wireless, downlink);
    let bits = f64::from(ETT_PACKET_BYTES) * 8.0;
    edges
        .iter()
        .zip(etx)
        .map(|(e, etx)| {
            let once_us = match e.iface {
                Iface::Radio(r) => {
                    let channel = wireless.radios[r as usize].channel;
                    let rate = wireless
                        .peer_radio(e.to, channel)
                        .and_then(|peer| wireless.rate_to(r, peer))
                        .unwrap_or_else(|| wireless.macs[r as usize].data_rate());
                    let mac = &wireless.macs[r as usize];
                    let bytes = ETT_PACKET_BYTES + mac.mac_overhead();
                    crate::sim::time::to_secs(mac.timing().airtime(bytes, rate)) * 1e6
                }
                Iface::Channel(c) => bits / channels[c as usize].rate_bps as f64 * 1e6,
                Iface::Router(_) | Iface::Downlink(_) => 1.0,
            };
            etx * once_us
        })
        .collect()
}

/// ETX weight of every edge: wired edges from the delivery ratios of the two directions of their
/// link, radio edges from those of the edge's own pair of radios (the sender's radio and the
/// receiver's radio on the same channel), so that a bridge's radios are weighed apart. The
/// downlink's AMC and erasures are not a per-frame loss ETX could weigh: its slots count as
/// delivering everything.
fn edge_etx(
    edges: &[Edge],
    channels: &[Channel],
    wireless: &Wireless,
    downlink: Option<&BaseStation>,
) -> Vec<f64> {
    let on_downlink = |from: NodeId, to: NodeId| {
        downlink.is_some_and(|b| b.node == from && b.users.contains(&to))
    };
    let wired = |from: NodeId, to: NodeId| {
        if on_downlink(from, to) {
            1.0
        } else {
            wired_delivery(channels, from, to)
        }
    };
    let incoming = incoming_deliveries(wireless);
    edges
        .iter()
        .map(|e| match e.iface {
            Iface::Radio(r) => {
                let channel = wireless.radios[r as usize].channel;
                match wireless.peer_radio(e.to, channel) {
                    Some(peer) => etx(
                        wireless.delivery(r, peer),
                        delivery_from(&incoming[r as usize], peer),
                    ),
                    None => f64::INFINITY,
                }
            }
            Iface::Channel(_) | Iface::Downlink(_) => etx(wired(e.from, e.to), wired(e.to, e.from)),
            // A router's erasures, like the downlink's, count as delivering everything; the
            // user's answers go over its wired uplink.
            Iface::Router(_) => etx(1.0, wired(e.to, e.from)),
        })
        .collect()
}

/// For each radio, the delivery ratio of every radio that hears it *to* it, sorted by sender:
/// `(sender, fraction delivered)`. ETX weighs an edge by both directions; looking the reverse
/// direction up in the sender's neighbour list would visit a different list (out of cache) for
/// every edge of a dense mesh, here both lookups of a radio's edges stay in that radio's lists.
fn incoming_deliveries(wireless: &Wireless) -> Vec<Vec<(u32, f64)>> {
    let mut incoming: Vec<Vec<(u32, f64)>> = vec![Vec::new(); wireless.radios.len()];
    // Senders in increasing order, so every list comes out sorted.
    for (rf, radio) in wireless.radios.iter().enumerate() {
        for nb in &radio.neighbors {
            let delivery = wireless.neighbour_delivery(rf as u32, nb);
            incoming[nb.radio as usize].push((rf as u32, delivery));
        }
    }
    incoming
}

/// The delivery ratio from `sender` in a radio's incoming list (0 if `sender` is not heard).
fn delivery_from(incoming: &[(u32, f64)], sender: u32) -> f64 {
    incoming
        .binary_search_by_key(&sender, |&(rf, _)| rf)
        .map_or(0.0, |i| incoming[i].1)
}

/// Fraction of packets the wired channel `from -> to` delivers (1 - its Bernoulli loss rate;
/// 0 if there is none).
fn wired_delivery(channels: &[Channel], from: NodeId, to: NodeId) -> f64 {
    match channels.iter().find(|c| c.from == from && c.to == to) {
        Some(c) => match &c.loss {
            LossProcess::Bernoulli { per, .. } => 1.0 - per,
            _ => 1.0,
        },
        None => 0.0,
    }
}

fn check_tcp(t: &TcpConfig, p: &str) -> Result<(), ConfigError> {
    positive(format!("{p}.mss"), t.mss as u64)?;
    positive(format!("{p}.delayed_ack"), t.delayed_ack as u64)?;
    positive(format!("{p}.initial_cwnd"), t.initial_cwnd as u64)?;
    positive(format!("{p}.dupthresh"), t.dupthresh as u64)?;
    positive(format!("{p}.min_rto"), t.min_rto)?;
    if t.rwnd < t.mss as u64 {
        return Err(err(
            format!("{p}.rwnd"),
            "the receiver window must hold at least one segment",
        ));
    }
    if t.max_rto < t.min_rto {
        return Err(err(
            format!("{p}.max_rto"),
            "must not be smaller than min_rto",
        ));
    }
    if t.initial_ssthresh == Some(0) {
        return Err(err(
            format!("{p}.initial_ssthresh"),
            "must be greater than zero",
        ));
    }
    t.check_shim(p)?;
    check_cc_params(t, p)
}

/// A congestion controller's parameter block: only beside its own `cc`, every value in range
/// (the same rules and messages as the Python front end).
fn check_cc_params(t: &TcpConfig, p: &str) -> Result<(), ConfigError> {
    let cc_name = serde_json::to_value(t.cc)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    let blocks = [
        ("cubic", t.cubic.is_some(), CcKind::Cubic),
        ("compound", t.compound.is_some(), CcKind::Compound),
        ("vegas", t.vegas.is_some(), CcKind::Vegas),
        ("fast", t.fast.is_some(), CcKind::Fast),
        ("quic_tcp", t.quic_tcp.is_some(), CcKind::QuicTcp),
    ];
    for (name, given, owner) in blocks {
        if given && t.cc != owner {
            return Err(err(
                format!("{p}.{name}"),
                format!("only used with cc: {name} (cc is {cc_name})"),
            ));
        }
    }
    // (field, value, low, high, whether each end is included)
    let mut ranges: Vec<(String, f64, f64, f64, bool, bool)> = Vec::new();
    if let Some(c) = t.cubic {
        ranges.push((
            format!("{p}.cubic.c"),
            c.c,
            0.0,
            f64::INFINITY,
            false,
            false,
        ));
        ranges.push((format!("{p}.cubic.beta"), c.beta, 0.0, 1.0, false, false));
    }
    if let Some(c) = t.compound {
        let q = format!("{p}.compound");
        ranges.push((
            format!("{q}.alpha"),
            c.alpha,
            0.0,
            f64::INFINITY,
            false,
            false,
        ));
        ranges.push((format!("{q}.beta"), c.beta, 0.0, 1.0, false, false));
        ranges.push((format!("{q}.k"), c.k, 0.0, 1.0, false, true));
        ranges.push((
            format!("{q}.gamma"),
            c.gamma,
            0.0,
            f64::INFINITY,
            false,
            false,
        ));
        ranges.push((
            format!("{q}.zeta"),
            c.zeta,
            0.0,
            f64::INFINITY,
            false,
            false,
        ));
    }
    for (path, v, low, high, low_in, high_in) in ranges {
        let above = if low_in { v >= low } else { v > low };
        let below = if high_in { v <= high } else { v < high };
        if !(above && below && v.is_finite()) {
            // Worded as the Python front end words it.
            let message = if high.is_infinite() {
                format!("must be greater than {low}, got {v}")
            } else {
                let interval = format!(
                    "{}{low}, {high}{}",
                    if low_in { '[' } else { '(' },
                    if high_in { ']' } else { ')' }
                );
                format!("must be within {interval}, got {v}")
            };
            return Err(err(path, message));
        }
    }
    // `{v}` prints like Python's `{v:g}` for the values users write (2, 0.5, 1e-3).
    let check = |field: &str, v: f64, ok: bool, rule: String| {
        if v.is_finite() && ok {
            Ok(())
        } else {
            Err(err(format!("{p}.{field}"), format!("{rule}, got {v}")))
        }
    };
    let above_zero = || "must be greater than 0".to_string();
    if let Some(v) = &t.vegas {
        let non_negative = || "must not be negative".to_string();
        check("vegas.alpha", v.alpha, v.alpha >= 0.0, non_negative())?;
        check("vegas.beta", v.beta, v.beta >= 0.0, non_negative())?;
        check("vegas.gamma", v.gamma, v.gamma >= 0.0, non_negative())?;
        let rule = format!("must not be smaller than alpha ({})", v.alpha);
        check("vegas.beta", v.beta, v.beta >= v.alpha, rule)?;
    }
    if let Some(f) = &t.fast {
        check("fast.alpha", f.alpha, f.alpha > 0.0, above_zero())?;
        check("fast.gamma", f.gamma, f.gamma > 0.0, above_zero())?;
    }
    if let Some(q) = &t.quic_tcp {
        check("quic_tcp.kappa", q.kappa, q.kappa > 0.0, above_zero())?;
        let in_unit = (0.0..=1.0).contains(&q.rho);
        check(
            "quic_tcp.rho",
            q.rho,
            in_unit,
            "must be within [0, 1]".into(),
        )?;
        check("quic_tcp.p_s", q.p_s, q.p_s > 0.0, above_zero())?;
        if let Err((field, message)) = q.resolved_cadence() {
            return Err(err(format!("{p}.quic_tcp.{field}"), message.to_string()));
        }
    }
    Ok(())
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

/// Flow `i`'s random start delay, uniform in [0, jitter) ns, from its own stream.
fn jittered_delay(seed: u64, i: usize, jitter: u64) -> u64 {
    drawn_below(seed, &format!("flow/{i}/start"), jitter)
}

/// A duration uniform in [0, `spread`) from the run's stream `component` (0 without a spread).
fn drawn_below(seed: u64, component: &str, spread: u64) -> u64 {
    if spread == 0 {
        return 0;
    }
    let mut rng = Rng::stream(seed, component);
    ((rng.uniform() * spread as f64) as u64).min(spread - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Radios scattered so that some pairs are out of range, with an error process on one
    /// direction of one pair only: the two directions of that pair differ.
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

    fn scattered_with_one_way_errors() -> ScenarioConfig {
        serde_json::from_value(serde_json::json!({
            "name": "incoming", "duration": 1_000_000, "seed": 3,
            "radio": {"standard": "802.11b", "data_rate": 2_000_000, "basic_rate": 1_000_000,
                      "propagation": {"kind": "log_distance", "exponent": 3.0}},
            "topology": {"kind": "random", "n": 40, "width": 900.0, "height": 900.0},
            "link_errors": [{"from": "n0", "to": "n1", "direction": "forward",
                             "error": {"kind": "bernoulli", "per": 0.5}}],
            "routing": {"kind": "static", "metric": "etx"},
            "flows": []
        }))
        .expect("valid scenario")
    }

    #[test]
    fn incoming_deliveries_hold_each_reverse_direction_exactly_once() {
        let world = build(&scattered_with_one_way_errors()).expect("builds");
        let wireless = &world.net.wireless;
        let incoming = incoming_deliveries(wireless);
        let mut pairs = 0;
        for (rf, radio) in wireless.radios.iter().enumerate() {
            for nb in &radio.neighbors {
                pairs += 1;
                let direct = wireless.delivery(rf as u32, nb.radio);
                let looked_up = delivery_from(&incoming[nb.radio as usize], rf as u32);
                assert_eq!(
                    direct.to_bits(),
                    looked_up.to_bits(),
                    "{rf} -> {}",
                    nb.radio
                );
            }
        }
        assert!(
            pairs > 0 && pairs < 40 * 39,
            "{pairs} pairs: some, not all, in range"
        );
        assert_eq!(incoming.iter().map(Vec::len).sum::<usize>(), pairs);
        for list in &incoming {
            assert!(list.windows(2).all(|w| w[0].0 < w[1].0), "sorted by sender");
        }
        // A radio that does not hear a sender gets nothing from it.
        let deaf = (0..40u32)
            .flat_map(|a| (0..40u32).map(move |b| (a, b)))
            .find(|&(a, b)| a != b && wireless.delivery(a, b) == 0.0)
            .expect("an out-of-range pair");
        assert_eq!(delivery_from(&incoming[deaf.1 as usize], deaf.0), 0.0);
    }
}
