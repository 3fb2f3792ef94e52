//! The flows of a scenario, built once the network is: each checked against it (its ends, a route
//! between them, its timing, its application and transport), turned into its endpoints and given
//! its start and stop in the event list. Once the flows' paths are known, [`fit_to_paths`] fits a
//! transport behind the transport seam to its paths and gives every TCP flow the routing block's
//! shim.

use std::collections::BTreeSet;

use super::build::drawn_below;
use super::config::{AppConfig, FlowConfig, ScenarioConfig, TransportConfig, UtilityConfig};
use super::topology::Placed;
use super::usable_links;
use crate::error::{positive, ConfigError};
use crate::metrics::goodput::GoodputMeter;
use crate::net::flow_paths::FlowPaths;
use crate::net::routing::Edge;
use crate::net::wireless::NO_RADIO;
use crate::net::Network;
use crate::sim::{EventClass, LazyTimer, NodeId, Rng};
use crate::transport::tcp::cc;
use crate::transport::tcp::receiver::TcpReceiver;
use crate::transport::tcp::sender::TcpSender;
use crate::transport::udp::{CbrSource, DatagramSource, PoissonSource, UdpSink, UtilitySource};
use crate::transport::utility_control::Utility;
use crate::world::{Endpoints, Flow, ShimSlot, WorldEvent};

fn err(path: impl Into<String>, message: impl Into<String>) -> ConfigError {
    ConfigError::new(path, message)
}

/// What the flows are built against: the scenario, its node names, the links that may carry
/// data (`edges`), where the topology put its nodes, and the delivery threshold routes obey.
pub(super) struct FlowContext<'a> {
    pub cfg: &'a ScenarioConfig,
    pub node: &'a dyn Fn(String, &str) -> Result<NodeId, ConfigError>,
    pub edges: &'a [Edge],
    pub placed: &'a [Placed],
    pub min_delivery: Option<f64>,
}

impl FlowContext<'_> {
    /// Every flow of the scenario, its start (and stop, before the end of the run) scheduled; on
    /// refusing a flow whose ends no route joins, `unreachable` is set to its index.
    pub(super) fn build_flows(
        &self,
        net: &mut Network,
        unreachable: &mut Option<usize>,
    ) -> Result<Vec<Flow>, ConfigError> {
        let FlowContext { cfg, node, .. } = *self;
        let m = &cfg.metrics;
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
            // With moving nodes, ends apart at the start may meet later.
            let moving = net.wireless.motion.is_some();
            if !moving && (!net.routes.reachable(src, dst) || !net.routes.reachable(dst, src)) {
                *unreachable = Some(i);
                return Err(self.no_route(i, f, (src, dst), net));
            }
            if f.start >= cfg.duration {
                return Err(err(p("start"), "the flow starts after the end of the run"));
            }
            let stop = f.stop.unwrap_or(cfg.duration).min(cfg.duration);
            if f.stop.is_some_and(|s| s <= f.start) {
                return Err(err(p("stop"), "stop must be later than start"));
            }
            let endpoints = self.endpoints(i, f, &p)?;
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
        Ok(flows)
    }

    /// Why no route joins flow `i`'s ends `ends`: an end that hears no other node, the usable
    /// links' threshold, or plainly no route.
    fn no_route(
        &self,
        i: usize,
        f: &FlowConfig,
        ends: (NodeId, NodeId),
        net: &Network,
    ) -> ConfigError {
        let FlowContext {
            cfg,
            edges,
            placed,
            min_delivery,
            ..
        } = *self;
        let (src, dst) = ends;
        let p = |field: &str| format!("flows[{i}].{field}");
        // The unusable links are out of `edges`: the messages look at every link.
        let all = match min_delivery {
            Some(_) => usable_links::all_edges(edges, &net.wireless),
            None => edges.to_vec(),
        };
        // Name the end that hears nobody, if one does: the usual cause in a mesh.
        for (n, name, field) in [(src, &f.src, "src"), (dst, &f.dst, "dst")] {
            let wireless = net.wireless.radio_of_node[n as usize] != NO_RADIO;
            if wireless && all.iter().all(|e| e.from != n) {
                let placed_at = (n as usize).checked_sub(cfg.nodes.len());
                let msg = out_of_range(name, cfg.radio.as_ref(), placed, placed_at);
                return err(p(field), msg);
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
                return err(format!("flows[{i}]"), msg);
            }
        }
        err(
            p("dst"),
            format!("no route between '{}' and '{}'", f.src, f.dst),
        )
    }

    /// Flow `i`'s endpoints, from its application and transport (`p` gives a field's path).
    fn endpoints(
        &self,
        i: usize,
        f: &FlowConfig,
        p: &dyn Fn(&str) -> String,
    ) -> Result<Endpoints, ConfigError> {
        let cfg = self.cfg;
        let m = &cfg.metrics;
        Ok(match (&f.app, &f.transport) {
            (AppConfig::Bulk { bytes }, TransportConfig::Tcp(t)) => {
                t.check(&p("transport"))?;
                if *bytes == Some(0) {
                    return Err(err(p("app.bytes"), "must be greater than zero"));
                }
                let mut controller = cc::build(t);
                controller.set_random(Rng::stream(cfg.seed, &format!("flow/{i}/cc")));
                let mut sender = TcpSender::new(t, controller, *bytes);
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
            (app, TransportConfig::Udp(u)) if !matches!(app, AppConfig::Bulk { .. }) => {
                Endpoints::Udp {
                    source: datagram_source(app, f, cfg.seed, &p)?,
                    sink: UdpSink::default(),
                    header_bytes: u.header_bytes,
                    running: false,
                }
            }
            (AppConfig::Bulk { bytes }, transport) => {
                let Some(scheme) = transport.scheme() else {
                    let message = format!(
                        "a bulk application needs {}",
                        TransportConfig::BULK_TRANSPORTS
                    );
                    return Err(err(p("transport.kind"), message));
                };
                let transport = scheme.endpoints(&p("transport"), *bytes, cfg.seed, i)?;
                if *bytes == Some(0) {
                    return Err(err(p("app.bytes"), "must be greater than zero"));
                }
                Endpoints::Seam {
                    transport,
                    timer: LazyTimer::default(),
                }
            }
            (app, _) => {
                return Err(err(
                    p("transport.kind"),
                    format!("a {} application needs a udp transport", app.kind()),
                ))
            }
        })
    }
}

/// Once the flows' paths are known: a TCP-RLC flow with several paths codes across them, and the
/// routing block may put a shim on every TCP flow (one that needs the flows' paths).
pub(super) fn fit_to_paths(cfg: &ScenarioConfig, flows: &mut [Flow], flow_paths: &FlowPaths) {
    // A transport behind the seam may use the paths (TCP-RLC codes across several).
    for (i, flow) in flows.iter_mut().enumerate() {
        if let Endpoints::Seam { transport, .. } = &mut flow.endpoints {
            transport.fit_to_paths(flow_paths.paths(i as u32).len());
        }
    }
    // A shim the routing block puts on every TCP flow (one that needs the flows' paths), else
    // the coding block's ordering agent on every TCP flow without a shim of its own (a flow
    // over the NC layer needs none: the layer hands up whole decoded blocks in order).
    for (i, flow) in flows.iter_mut().enumerate() {
        if let Endpoints::Tcp { shim, .. } = &mut flow.endpoints {
            if let Some(s) = cfg.routing.transport_shim(cfg, flow_paths, i) {
                *shim = Some(Box::new(ShimSlot::new(s)));
            } else if shim.is_none() {
                if let Some(s) = super::coding::transport_shim(cfg) {
                    *shim = Some(Box::new(ShimSlot::new(s)));
                }
            }
        }
    }
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

/// A datagram source sends at most one datagram per nanosecond, the clock's tick: a faster
/// rate would put every datagram at the same instant and simulated time would never move (a
/// fuzzer's find: 2^64 - 1 bit/s of 1-byte datagrams).
fn at_most_one_per_tick(path: String, rate: u64, packet_size: u32) -> Result<(), ConfigError> {
    let limit = u128::from(packet_size) * 8 * 1_000_000_000;
    if u128::from(rate) > limit {
        return Err(err(
            path,
            format!(
                "must be at most {limit} bit/s for {packet_size}-byte datagrams (one per \
                 nanosecond, the simulator's clock tick), got {rate}"
            ),
        ));
    }
    Ok(())
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
            at_most_one_per_tick(p("app.rate"), rate, packet_size)?;
            DatagramSource::Cbr(CbrSource::new(packet_size, rate, f.start))
        }
        AppConfig::Poisson { rate, packet_size } => {
            positive(p("app.rate"), rate)?;
            positive(p("app.packet_size"), packet_size as u64)?;
            at_most_one_per_tick(p("app.rate"), rate, packet_size)?;
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
            at_most_one_per_tick(p("app.r_max"), r_max, packet_size)?;
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

/// Flow `i`'s random start delay, uniform in [0, jitter) ns, from its own stream.
fn jittered_delay(seed: u64, i: usize, jitter: u64) -> u64 {
    drawn_below(seed, &format!("flow/{i}/start"), jitter)
}
