//! What a drawing of a scenario needs: where the nodes are, how far their radios reach, which
//! links exist and which route each flow takes, all as the simulator builds them (the same
//! placement, propagation and routing a run uses), without simulating.
//!
//! Ranges are the distances at which the *mean* received power (path loss only, no fading) falls
//! to the receive and carrier-sense thresholds; with fading a frame may reach further or fall
//! short. A route is given for static routing only: AODV finds its routes while the run goes,
//! so a drawing of an AODV scenario shows link usage from a finished run instead.

use serde::Serialize;

use super::build::build;
use super::config::{RoutingConfig, ScenarioConfig};
use super::topology::place;
use crate::phy::propagation::PathLoss;
use crate::sim::NodeId;
use crate::ConfigError;

/// A scenario laid out for drawing.
#[derive(Debug, Clone, Serialize)]
pub struct Layout {
    /// Every node, in node-id order (wired-only nodes first).
    pub nodes: Vec<LayoutNode>,
    /// Mean receive and carrier-sense ranges of the radios, m (None without radios).
    pub radio: Option<RadioRanges>,
    /// Every directed link a packet can cross.
    pub links: Vec<LayoutLink>,
    /// Each flow's route, in scenario order.
    pub flows: Vec<LayoutFlow>,
}

/// One node.
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
}

/// Builds the scenario (with every check a run makes) and lays it out.
pub fn layout(cfg: &ScenarioConfig) -> Result<Layout, ConfigError> {
    let world = build(cfg)?;
    let net = &world.net;
    let name = |n: NodeId| net.node_names[n as usize].clone();
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
        RadioRanges {
            receive_m: loss.reach(r.tx_power, r.rx_threshold_dbm()),
            carrier_sense_m: loss.reach(r.tx_power, r.cs_threshold_dbm()),
        }
    });

    let mut links: Vec<LayoutLink> = net
        .channels
        .iter()
        .map(|c| LayoutLink {
            from: name(c.from),
            to: name(c.to),
            kind: "wired",
            channel: None,
        })
        .collect();
    if let Some(bs) = &net.base_station {
        // The users' uplinks are wired channels above; the downlink itself is not a channel.
        links.extend(bs.users.iter().map(|&u| LayoutLink {
            from: name(bs.node),
            to: name(u),
            kind: "downlink",
            channel: None,
        }));
    }
    if let Some(r) = &cfg.radio {
        // The links routing uses: neighbours whose mean power reaches the receive threshold.
        let rx_mw = 10f64.powf(r.rx_threshold_dbm() / 10.0);
        let radios = &net.wireless.radios;
        for radio in radios {
            for nb in radio.neighbors.iter().filter(|nb| nb.mean_mw >= rx_mw) {
                links.push(LayoutLink {
                    from: name(radio.node),
                    to: name(radios[nb.radio as usize].node),
                    kind: "radio",
                    channel: Some(radio.channel),
                });
            }
        }
    }

    let static_routes = matches!(cfg.routing, RoutingConfig::Static { .. });
    let flows = world
        .flows
        .iter()
        .map(|f| LayoutFlow {
            id: f.name.clone(),
            src: name(f.src),
            dst: name(f.dst),
            route: static_routes
                .then(|| route(net, f.src, f.dst))
                .flatten()
                .map(|r| r.into_iter().map(name).collect()),
        })
        .collect();
    Ok(Layout {
        nodes,
        radio,
        links,
        flows,
    })
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
    fn aodv_routes_are_not_known_before_the_run() {
        let l = layout(&chain("aodv")).unwrap();
        assert!(l.flows[0].route.is_none());
        assert_eq!(l.links.len(), 6);
    }
}
