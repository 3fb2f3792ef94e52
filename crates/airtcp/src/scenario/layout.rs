//! What a drawing of a scenario needs: where the nodes are, how far their radios reach, which
//! links exist and which route each flow takes, all as the simulator builds them (the same
//! placement, propagation and routing a run uses), without simulating.
//!
//! Ranges are the distances at which the *mean* received power (path loss only, no fading) falls
//! to the receive and carrier-sense thresholds; with fading a frame may reach further or fall
//! short. A route is given for static routing only: AODV finds its routes while the run goes,
//! so a drawing of an AODV scenario shows link usage from a finished run instead.

use serde::Serialize;

mod ht;

pub use self::ht::{LayoutAggregation, LayoutHt, LayoutMcs};
use super::build::build_noting_unreachable;
use super::config::{RoutingConfig, ScenarioConfig};
use super::topology::place;
use super::usable_links;
use crate::error::ConfigError;
use crate::mac::block_ack::BLOCK_ACK_BYTES;
use crate::mac::frame::RadioId;
use crate::net::Network;
use crate::phy::propagation::PathLoss;
use crate::sim::NodeId;
use crate::world::World;

/// A scenario laid out for drawing.
#[derive(Debug, Clone, Serialize)]
pub struct Layout {
    /// Every node, in node-id order (wired-only nodes first).
    pub nodes: Vec<LayoutNode>,
    /// Mean receive and carrier-sense ranges of the radios, m (None without radios).
    pub radio: Option<RadioRanges>,
    /// The DCF's constants (None without radios).
    pub timing: Option<LayoutTiming>,
    /// Every directed link a packet can cross.
    pub links: Vec<LayoutLink>,
    /// Each flow's route, in scenario order.
    pub flows: Vec<LayoutFlow>,
    /// The paths of the nodes that move (`mobility`), over the whole run; the links are those
    /// of the start.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub trajectories: Vec<LayoutTrajectory>,
}

/// The path of a node that moves.
#[derive(Debug, Clone, Serialize)]
pub struct LayoutTrajectory {
    /// The node's name.
    pub name: String,
    /// Times, s: the start of each straight leg of its path (a pause shows as two points at one
    /// place) and the end of the run.
    pub t_s: Vec<f64>,
    /// x at those times, m.
    pub x: Vec<f64>,
    /// y at those times, m.
    pub y: Vec<f64>,
}

/// A node, with its position at the start (none for a wired-only node).
#[derive(Debug, Clone, Serialize)]
pub struct LayoutNode {
    /// Name.
    pub name: String,
    /// Position, m (None for a node without a place: wired-only nodes).
    pub x: Option<f64>,
    /// Position, m.
    pub y: Option<f64>,
}

/// How far a radio reaches, from the propagation model and the thresholds.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct RadioRanges {
    /// Distance at which the mean power falls to the receive threshold, m.
    pub receive_m: f64,
    /// Distance at which it falls to the carrier-sense threshold, m.
    pub carrier_sense_m: f64,
    /// Distance within which a frame holds a radio's clear-channel assessment busy, m: the
    /// larger of the two, since a radio senses the medium busy both while a frame it could lock
    /// onto arrives (the receive threshold, ns-3's CCA sensitivity) and while the energy reaches
    /// the carrier-sense threshold (`phy`'s reception model). Where the receive threshold is the
    /// lower one (802.11a and 802.11n: -82 against -62 dBm) this is the receive range.
    pub busy_m: f64,
}

/// DCF constants, microseconds where a time.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct LayoutTiming {
    /// Slot time.
    pub slot_us: f64,
    /// Short interframe space.
    pub sifs_us: f64,
    /// DCF interframe space.
    pub difs_us: f64,
    /// Minimum contention window (slots drawn from 0..=cw_min).
    pub cw_min: u32,
    /// PLCP preamble and header.
    pub plcp_us: f64,
    /// OFDM symbols of 4 us (802.11a) rather than DSSS microseconds (802.11b).
    pub ofdm: bool,
    /// Bytes the MAC adds to a packet (header, FCS, LLC/SNAP).
    pub mac_overhead_bytes: u32,
    /// Whether unicast data frames are preceded by RTS/CTS.
    pub rts_cts: bool,
    /// RTS air time.
    pub rts_us: f64,
    /// CTS air time.
    pub cts_us: f64,
    /// 802.11n: the HT PHY's airtime parameters (None for the other standards).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ht: Option<LayoutHt>,
    /// 802.11n with aggregation: its limits (None without aggregation).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub aggregation: Option<LayoutAggregation>,
}

/// One directed link.
#[derive(Debug, Clone, Serialize)]
pub struct LayoutLink {
    /// Transmitting node.
    pub from: String,
    /// Receiving node.
    pub to: String,
    /// "wired", "radio" or "downlink".
    pub kind: &'static str,
    /// The radio channel (radio links only).
    pub channel: Option<u32>,
    /// Data rate of unicast frames on this link, bit/s (radio links only).
    pub rate_bps: Option<u64>,
    /// Expected fraction of data frames delivered per attempt (radio links only).
    pub delivery: Option<f64>,
    /// Air time of the MAC ACK answering a data frame on this link, us (radio links only).
    pub ack_us: Option<f64>,
    /// Air time of the compressed Block Ack answering an A-MPDU on this link, at the same
    /// control-response rate as the ACK, us (radio links of aggregating radios only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ba_us: Option<f64>,
    /// Whether the routing may send data over the link (`routing.min_delivery`, both
    /// directions: `usable_links`); every radio link where the routing takes every link (radio
    /// links only).
    pub usable: Option<bool>,
}

/// One flow and its route.
#[derive(Debug, Clone, Serialize)]
pub struct LayoutFlow {
    /// Flow name.
    pub id: String,
    /// Source node.
    pub src: String,
    /// Destination node.
    pub dst: String,
    /// Nodes from source to destination under static routing; None when routes are found at run
    /// time (AODV) or the destination is unreachable.
    pub route: Option<Vec<String>>,
    /// Why a run would refuse this flow (`flows[i].dst: 'n5' is out of radio range ...`) when no
    /// route joins its ends; the rest of the scenario is laid out without it.
    pub unreachable: Option<String>,
}

/// Builds the scenario (with every check a run makes) and lays it out. A flow whose ends no route
/// joins is the one refusal a drawing goes on past, since the drawing is where a reader sees why:
/// such a flow is left out of the build and listed with the run's error.
pub fn layout(cfg: &ScenarioConfig) -> Result<Layout, ConfigError> {
    let (mut world, refused) = world_without_unreachable_flows(cfg)?;
    let motion = world.net.wireless.motion.take();
    let net = &world.net;
    let placed = cfg
        .topology
        .as_ref()
        .map(|t| place(t, cfg.seed))
        .unwrap_or_default();
    let mut nodes: Vec<LayoutNode> = cfg
        .nodes
        .iter()
        .map(|n| LayoutNode {
            name: n.clone(),
            x: None,
            y: None,
        })
        .collect();
    nodes.extend(placed.iter().map(|p| LayoutNode {
        name: p.name.clone(),
        x: Some(p.x),
        y: Some(p.y),
    }));

    let radio = cfg.radio.as_ref().map(|r| {
        let loss = PathLoss::from_config(&r.propagation);
        let receive_m = loss.reach(r.tx_power, r.rx_threshold_dbm());
        let carrier_sense_m = loss.reach(r.tx_power, r.cs_threshold_dbm());
        RadioRanges {
            receive_m,
            carrier_sense_m,
            busy_m: receive_m.max(carrier_sense_m),
        }
    });

    let links = links(cfg, net)?;
    let timing = cfg.radio.as_ref().and_then(|r| {
        let mac = net.wireless.macs.first()?;
        let t = mac.timing();
        Some(LayoutTiming {
            slot_us: micros(t.slot),
            sifs_us: micros(t.sifs),
            difs_us: micros(t.difs),
            cw_min: t.cw_min,
            plcp_us: micros(t.plcp),
            ofdm: t.ofdm,
            mac_overhead_bytes: mac.mac_overhead(),
            rts_cts: r.rts_cts,
            rts_us: micros(t.rts_time()),
            cts_us: micros(t.cts_time()),
            ht: t.ht.map(ht::ht_of),
            aggregation: r.aggregation_params().map(|a| {
                let needs = net.wireless.layer_needs;
                ht::aggregation_of(a, needs.pulls && !needs.aggregates)
            }),
        })
    });

    let flows = flows(cfg, &world, refused);
    let mut trajectories = Vec::new();
    if let Some(motion) = motion {
        let first = cfg.nodes.len();
        for (i, path) in motion
            .mobility
            .waypoints(cfg.duration)
            .into_iter()
            .enumerate()
        {
            let node = &mut nodes[first + i];
            let Some(&(_, x0, y0)) = path.first() else {
                continue;
            };
            // Where the node is at the start (a steady-state start is not its placed position).
            (node.x, node.y) = (Some(x0), Some(y0));
            if path.iter().all(|&(_, x, y)| (x, y) == (x0, y0)) {
                continue;
            }
            trajectories.push(LayoutTrajectory {
                name: node.name.clone(),
                t_s: path
                    .iter()
                    .map(|p| crate::sim::time::to_secs(p.0))
                    .collect(),
                x: path.iter().map(|p| p.1).collect(),
                y: path.iter().map(|p| p.2).collect(),
            });
        }
    }
    Ok(Layout {
        nodes,
        radio,
        timing,
        links,
        flows,
        trajectories,
    })
}

/// The world of `cfg` built without the flows no route can carry (each pass leaves out one
/// more), and why each flow left out was refused (`None` for the flows kept), by scenario index.
fn world_without_unreachable_flows(
    cfg: &ScenarioConfig,
) -> Result<(World, Vec<Option<String>>), ConfigError> {
    // Each pass leaves out one more unreachable flow; `kept[k]` is the scenario index of flow k.
    let mut pruned = cfg.clone();
    // A drawing writes no capture.
    pruned.trace = None;
    let mut kept: Vec<usize> = (0..cfg.flows.len()).collect();
    let mut refused: Vec<Option<String>> = vec![None; cfg.flows.len()];
    let world = loop {
        let mut unreachable = None;
        match build_noting_unreachable(&pruned, &mut unreachable, None) {
            Ok(world) => break world,
            Err(e) => {
                let Some(k) = unreachable else { return Err(e) };
                let i = kept.remove(k);
                // The error names the flow by its index in the pruned list: name the scenario's.
                let path = e
                    .path
                    .replacen(&format!("flows[{k}]"), &format!("flows[{i}]"), 1);
                refused[i] = Some(format!("{path}: {}", e.message));
                pruned.flows.remove(k);
            }
        }
    };
    Ok((world, refused))
}

/// Every link to draw: the wired channels, the downlink's users and the radio links the
/// receivers lock onto.
fn links(cfg: &ScenarioConfig, net: &Network) -> Result<Vec<LayoutLink>, ConfigError> {
    let name = |n: NodeId| net.node_names[n as usize].clone();
    let mut links: Vec<LayoutLink> = net
        .channels
        .iter()
        .map(|c| LayoutLink {
            from: name(c.from),
            to: name(c.to),
            kind: "wired",
            ..LayoutLink::wired()
        })
        .collect();
    if let Some(bs) = &net.base_station {
        // The users' uplinks are wired channels above; the downlink itself is not a channel.
        links.extend(bs.users.iter().map(|&u| LayoutLink {
            from: name(bs.node),
            to: name(u),
            kind: "downlink",
            ..LayoutLink::wired()
        }));
    }
    if let Some(r) = &cfg.radio {
        // The links the receivers lock onto (mean power at or above the receive threshold); routing
        // uses those of them that pass `routing.min_delivery` (`usable_links`).
        let rx_mw = 10f64.powf(r.rx_threshold_dbm() / 10.0);
        let min_delivery = cfg.routing.min_delivery()?.unwrap_or(0.0);
        let aggregating = r.aggregation_params().is_some();
        let wireless = &net.wireless;
        let radios = &wireless.radios;
        for (rf, radio) in radios.iter().enumerate() {
            let timing = wireless.macs[rf].timing();
            for nb in radio.neighbors.iter().filter(|nb| nb.mean_mw >= rx_mw) {
                let rate = wireless.link_rate(rf as RadioId, nb);
                let delivery = usable_links::between_radios(wireless, rf as RadioId, nb.radio);
                // The Block Ack goes at the ACK's rate (`mac::dcf::aggregate`).
                let ba = timing.airtime(BLOCK_ACK_BYTES, timing.ack_rate_for(rate));
                links.push(LayoutLink {
                    from: name(radio.node),
                    to: name(radios[nb.radio as usize].node),
                    kind: "radio",
                    channel: Some(radio.channel),
                    rate_bps: Some(rate),
                    delivery: Some(wireless.neighbour_delivery(rf as RadioId, nb)),
                    ack_us: Some(micros(timing.ack_time_for(rate))),
                    ba_us: aggregating.then(|| micros(ba)),
                    usable: Some(delivery.worse() >= min_delivery),
                });
            }
        }
    }
    Ok(links)
}

/// Every flow of the scenario, with its static route if it has one, or why it was refused.
fn flows(cfg: &ScenarioConfig, world: &World, refused: Vec<Option<String>>) -> Vec<LayoutFlow> {
    let net = &world.net;
    let name = |n: NodeId| net.node_names[n as usize].clone();
    let static_routes = matches!(cfg.routing, RoutingConfig::Static { .. });
    let mut built = world.flows.iter();
    cfg.flows
        .iter()
        .zip(refused)
        .map(|(f, refused)| match refused {
            Some(why) => LayoutFlow {
                id: f.id.clone(),
                src: f.src.clone(),
                dst: f.dst.clone(),
                route: None,
                unreachable: Some(why),
            },
            None => {
                let f = built.next().expect("one built flow per flow kept");
                LayoutFlow {
                    id: f.name.clone(),
                    src: name(f.src),
                    dst: name(f.dst),
                    route: static_routes
                        .then(|| route(net, f.src, f.dst))
                        .flatten()
                        .map(|r| r.into_iter().map(name).collect()),
                    unreachable: None,
                }
            }
        })
        .collect()
}

impl LayoutLink {
    /// The fields a wired (or downlink) link leaves empty.
    fn wired() -> Self {
        LayoutLink {
            from: String::new(),
            to: String::new(),
            kind: "wired",
            channel: None,
            rate_bps: None,
            delivery: None,
            ack_us: None,
            ba_us: None,
            usable: None,
        }
    }
}

/// A simulator time in microseconds.
fn micros(t: crate::sim::Time) -> f64 {
    t as f64 / crate::sim::time::MICROS as f64
}

/// The nodes a packet from `src` visits to `dst` under the static routing table.
fn route(net: &crate::net::Network, src: NodeId, dst: NodeId) -> Option<Vec<NodeId>> {
    let mut path = vec![src];
    let mut at = src;
    while at != dst {
        let hop = net.routes.next_hop(at, dst)?;
        at = hop.node;
        if path.len() > net.node_names.len() {
            return None; // a loop: cannot happen with shortest paths, but never spin
        }
        path.push(at);
    }
    Some(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn chain(routing: &str) -> ScenarioConfig {
        serde_json::from_value(json!({
            "name": "chain", "duration": 1_000_000_000u64, "seed": 1,
            "radio": {"standard": "802.11b", "data_rate": 2_000_000, "basic_rate": 1_000_000,
                      "propagation": {"kind": "range", "range": 250.0}},
            "topology": {"kind": "chain", "hops": 3, "spacing": 200.0},
            "routing": {"kind": routing},
            "flows": [{"id": "f1", "src": "n0", "dst": "n3", "app": {"kind": "bulk"},
                       "transport": {"kind": "tcp"}}]
        }))
        .expect("valid scenario")
    }

    #[test]
    fn a_chain_is_laid_out_with_its_route_and_neighbour_links() {
        let l = layout(&chain("static")).unwrap();
        let xs: Vec<f64> = l.nodes.iter().map(|n| n.x.unwrap()).collect();
        assert_eq!(xs, vec![0.0, 200.0, 400.0, 600.0]);
        let r = l.radio.unwrap();
        assert_eq!(r.receive_m, 250.0);
        // Only adjacent nodes (200 m) are within 250 m: three pairs, both directions.
        let mut pairs: Vec<(String, String)> = l
            .links
            .iter()
            .map(|k| (k.from.clone(), k.to.clone()))
            .collect();
        pairs.sort();
        assert_eq!(pairs.len(), 6, "{pairs:?}");
        assert!(pairs.contains(&("n1".into(), "n2".into())));
        assert_eq!(
            l.flows[0].route.as_deref(),
            Some(&["n0".to_string(), "n1".into(), "n2".into(), "n3".into()][..])
        );
    }

    #[test]
    fn radio_links_carry_their_rate_delivery_and_ack_time() {
        let l = layout(&chain("static")).unwrap();
        let t = l.timing.unwrap();
        // 802.11b, long preamble: DIFS 50 us, the 14-byte ACK at the 1 Mbps basic rate 304 us.
        assert_eq!(
            (t.slot_us, t.difs_us, t.cw_min, t.plcp_us),
            (20.0, 50.0, 31, 192.0)
        );
        assert!(!t.ofdm && !t.rts_cts);
        assert_eq!(t.mac_overhead_bytes, 36);
        for link in &l.links {
            assert_eq!(link.rate_bps, Some(2_000_000));
            assert_eq!(link.ack_us, Some(304.0));
            assert_eq!(
                link.delivery,
                Some(1.0),
                "range propagation, no frame errors"
            );
        }
    }

    #[test]
    fn a_flow_out_of_range_is_listed_with_the_runs_error_and_the_rest_laid_out() {
        // n0..n3 at 200 m spacing, 250 m range, and a node 1 km beyond n3 that hears nobody.
        let mut v = serde_json::to_value(chain("static")).unwrap();
        v["topology"] = json!({"kind": "explicit", "nodes": [
            {"name": "n0", "x": 0.0, "y": 0.0}, {"name": "n1", "x": 200.0, "y": 0.0},
            {"name": "n2", "x": 400.0, "y": 0.0}, {"name": "n3", "x": 600.0, "y": 0.0},
            {"name": "far", "x": 1600.0, "y": 0.0}]});
        let far = json!({"id": "lost", "src": "n0", "dst": "far", "app": {"kind": "bulk"},
                         "transport": {"kind": "tcp"}});
        let flows = v["flows"].as_array_mut().unwrap();
        flows.insert(0, far.clone());
        flows.push(
            json!({"id": "back", "src": "far", "dst": "n1", "app": {"kind": "bulk"},
                          "transport": {"kind": "tcp"}}),
        );
        let cfg: ScenarioConfig = serde_json::from_value(v).unwrap();
        let run = crate::scenario::build::build(&cfg)
            .err()
            .expect("a run refuses it");
        assert_eq!(run.path, "flows[0].dst");

        let l = layout(&cfg).unwrap();
        let ids: Vec<&str> = l.flows.iter().map(|f| f.id.as_str()).collect();
        assert_eq!(ids, ["lost", "f1", "back"], "every flow, in scenario order");
        assert_eq!(l.flows[0].unreachable.as_deref(), Some(&*run.to_string()));
        // The second refusal is named by its own index in the scenario, not the pruned list's.
        let back = l.flows[2].unreachable.as_deref().unwrap();
        assert!(
            back.starts_with("flows[2].src: 'far' is out of radio range"),
            "{back}"
        );
        assert!(l.flows[0].route.is_none() && l.flows[1].unreachable.is_none());
        assert_eq!(l.flows[1].route.as_ref().map(Vec::len), Some(4));
        assert_eq!(l.nodes.len(), 5);
    }

    #[test]
    fn a_flow_refused_for_another_reason_still_fails_the_layout() {
        let mut cfg = chain("static");
        cfg.flows[0].dst = "n0".into();
        let e = layout(&cfg).expect_err("refused");
        assert_eq!(e.path, "flows[0].dst");
    }

    fn diamond_11n(routing: serde_json::Value) -> ScenarioConfig {
        serde_json::from_value(json!({
            "name": "d", "duration": 1_000_000_000u64, "seed": 1,
            "radio": {"standard": "802.11n", "data_rate": 65_000_000, "basic_rate": 6_000_000,
                      "tx_power": 16.0206,
                      "propagation": {"kind": "log_distance", "exponent": 3.0,
                                      "reference_distance": 1.0, "reference_loss": 46.6777}},
            "topology": {"kind": "diamond", "spacing": 24.0},
            "routing": routing,
            "flows": [{"id": "f1", "src": "n0", "dst": "n3", "app": {"kind": "bulk"},
                       "transport": {"kind": "tcp"}}]
        }))
        .expect("valid scenario")
    }

    #[test]
    fn an_aggregating_radio_lays_out_its_ht_timing_block_ack_and_limits() {
        let l = layout(&diamond_11n(json!({"kind": "static"}))).unwrap();
        let t = l.timing.unwrap();
        // AIFS[AC_BE] = 16 + 3 x 9 us in DIFS's place; QoS data: 2 bytes more MAC header.
        assert_eq!((t.difs_us, t.mac_overhead_bytes), (43.0, 38));
        let ht = t.ht.expect("802.11n");
        assert_eq!((ht.preamble_us, ht.short_guard_interval), (36.0, false));
        assert_eq!(ht.signal_extension_us, 0.0);
        let n_dbps: Vec<u32> = ht.mcs.iter().map(|m| m.n_dbps).collect();
        assert_eq!(n_dbps, [26, 52, 78, 104, 156, 208, 234, 260]);
        assert_eq!(ht.mcs[7].rate_bps, 65_000_000);
        let a = t.aggregation.expect("aggregating by default");
        assert_eq!(
            (a.max_ampdu_bytes, a.max_mpdus, a.ppdu_max_us),
            (65_535, 64, 5484.0)
        );
        assert!(
            !a.single_frames,
            "static routes forward from the interface queue"
        );
        for link in l.links {
            // The 32-byte Block Ack at 24 Mbit/s (MCS 7's control rate): 20 us and
            // ceil((16 + 256 + 6) / 96) = 3 symbols of 4 us; the 14-byte ACK: 20 + 2 x 4 us.
            assert_eq!((link.ba_us, link.ack_us), (Some(32.0), Some(28.0)));
            // The 34-m diagonals deliver nothing at MCS 7: locked onto, never usable.
            let diagonal = matches!(
                (link.from.as_str(), link.to.as_str()),
                ("n0", "n3") | ("n3", "n0") | ("n1", "n2") | ("n2", "n1")
            );
            assert_eq!(link.usable, Some(!diagonal), "{} {}", link.from, link.to);
        }
        // The diagonals are within the receive range, far beyond the -62 dBm energy range.
        let r = l.radio.unwrap();
        assert!(r.carrier_sense_m < 24.0 && r.busy_m == r.receive_m && r.receive_m > 34.0);
    }

    /// `single_frames` of the diamond under `routing` and `coding`.
    fn single_frames(routing: serde_json::Value, coding: Option<serde_json::Value>) -> bool {
        let mut s = diamond_11n(routing);
        s.coding = coding.map(|c| serde_json::from_value(c).expect("valid coding"));
        let t = layout(&s).unwrap().timing.unwrap();
        t.aggregation.unwrap().single_frames
    }

    #[test]
    fn only_a_pulling_layer_that_does_not_aggregate_sends_single_frames() {
        // Backpressure and Horizon pull and fill A-MPDUs through the seam (`pull_more`).
        assert!(!single_frames(json!({"kind": "backpressure"}), None));
        assert!(!single_frames(json!({"kind": "horizon"}), None));
        // COPE pulls each frame, which goes alone outside the agreement.
        assert!(single_frames(
            json!({"kind": "static"}),
            Some(json!({"scheme": "cope"}))
        ));
    }

    #[test]
    fn aodv_routes_are_not_known_before_the_run() {
        let l = layout(&chain("aodv")).unwrap();
        assert!(l.flows[0].route.is_none());
        assert_eq!(l.links.len(), 6);
    }
}
