//! From a scenario's `routing: {kind: backpressure}` block to the layer: the checks of its
//! parameters, the mapping of the configuration onto [`BpParams`], and the state of every node
//! (the commodities, the routing links, the hop and ETX distances).

use super::layer::BackpressureLayer;
use super::{
    hops_to, BpLink, BpNode, BpParams, BpShared, Commodities, Differential, KRule, LossEstimate,
    NextHops, Selection,
};
use crate::error::ConfigError;
use crate::net::backpressure::config::{
    BackpressureConfig, BpDifferentialConfig, BpLossEstimateConfig, BpNextHopsConfig,
    BpSelectionConfig,
};
use crate::net::forwarding::{Forwarding, LayerSetup, RoutingScheme, Surroundings};
use crate::net::paths::weighted_next_hops;
use crate::net::routing::Iface;
use crate::phy::propagation::dbm_to_mw;
use crate::sim::NodeId;

fn err(path: impl Into<String>, message: impl Into<String>) -> ConfigError {
    ConfigError::new(path, message)
}

/// The checks of a backpressure routing block: radios only (a node may have several), and sound
/// parameters.
pub fn check(cfg: &BackpressureConfig, around: &Surroundings) -> Result<(), ConfigError> {
    let BackpressureConfig {
        differential,
        k,
        estimate_interval,
        report_idle,
        report_repeat,
        ..
    } = *cfg;
    if around.wired_or_cell() {
        return Err(err(
            "routing.kind",
            "backpressure forwards over radios only; this scenario has wired links, a downlink or routers",
        ));
    }
    if let Some(k) = k {
        if differential == BpDifferentialConfig::Classical {
            return Err(err(
                "routing.k",
                "K belongs to the tcp_aware differential; classical backpressure has none",
            ));
        }
        if !(k.is_finite() && k >= 0.0) {
            return Err(err(
                "routing.k",
                format!("must be a non-negative number, got {k}"),
            ));
        }
    }
    for (field, value) in [
        ("estimate_interval", estimate_interval),
        ("report_idle", report_idle),
        ("report_repeat", report_repeat),
    ] {
        if value == 0 {
            return Err(err(format!("routing.{field}"), "must be greater than zero"));
        }
    }
    Ok(())
}

/// The parameters of a checked backpressure routing block.
pub fn params(cfg: &BackpressureConfig, around: &Surroundings) -> BpParams {
    let BackpressureConfig {
        differential,
        k,
        estimate_interval,
        report_idle,
        report_repeat,
        next_hops,
        loss_estimate,
        selection,
    } = *cfg;
    let radio = around.radio.expect("checked: backpressure needs radios");
    BpParams {
        differential: match (differential, k) {
            (BpDifferentialConfig::Classical, _) => Differential::Classical,
            (BpDifferentialConfig::TcpAware, None) => Differential::TcpAware(KRule::BufferShare),
            (BpDifferentialConfig::TcpAware, Some(k)) => Differential::TcpAware(KRule::Fixed(k)),
        },
        buffer: radio.queue_packets,
        estimate_interval,
        report_idle,
        report_repeat,
        rate_bps: radio.data_rate as f64,
        next_hops: match next_hops {
            BpNextHopsConfig::Any => NextHops::Any,
            BpNextHopsConfig::Closer => NextHops::Closer,
            BpNextHopsConfig::CloserEtx => NextHops::CloserEtx,
        },
        loss_estimate: match loss_estimate {
            BpLossEstimateConfig::PerPacket => LossEstimate::PerPacket,
            BpLossEstimateConfig::PerAttempt => LossEstimate::PerAttempt,
        },
        selection: match selection {
            BpSelectionConfig::PerLink => Selection::PerLink,
            BpSelectionConfig::FlowFirst => Selection::FlowFirst,
        },
    }
}

/// The layer for `params`: one commodity per direction of each flow, every radio's routing links
/// (neighbours whose mean power reaches the receive threshold), hop distances for tie-breaks and,
/// for `closer_etx`, ETX distances from the same link weights as static ETX routing.
pub fn layer(params: BpParams, rx_threshold_dbm: f64, setup: &LayerSetup<'_>) -> BackpressureLayer {
    let nodes = setup.nodes;
    let dst: Vec<NodeId> = setup
        .flow_ends
        .iter()
        .flat_map(|&(src, dst)| [dst, src])
        .collect();
    let pairs: Vec<(NodeId, NodeId)> = setup
        .edges
        .iter()
        .filter(|e| matches!(e.iface, Iface::Radio(_)))
        .map(|e| (e.from, e.to))
        .collect();
    let hops = dst.iter().map(|&d| hops_to(nodes, &pairs, d)).collect();
    let etx = if params.next_hops == NextHops::CloserEtx {
        let w = (setup.edge_weights)(crate::net::routing::RouteMetric::Etx);
        let routes = weighted_next_hops(nodes, setup.edges, &|i| w[i], &dst);
        dst.iter()
            .map(|&d| {
                (0..nodes as NodeId)
                    .map(|v| routes.cost(v, d).unwrap_or(f64::INFINITY))
                    .collect()
            })
            .collect()
    } else {
        Vec::new()
    };
    let commodities = Commodities { dst, hops, etx };
    let rx_mw = dbm_to_mw(rx_threshold_dbm);
    let wireless = setup.wireless;
    let mut ports = Vec::with_capacity(wireless.radios.len());
    let mut first_radio = Vec::with_capacity(nodes);
    let states =
        (0..nodes as NodeId)
            .map(|node| {
                let mut links = Vec::new();
                let mut port = 0u8;
                for r in wireless.radios_of(node) {
                    let radio = &wireless.radios[r as usize];
                    links.extend(radio.neighbors.iter().filter(|nb| nb.mean_mw >= rx_mw).map(
                        |nb| {
                            let peer = wireless.radios[nb.radio as usize].node;
                            BpLink::new(nb.radio, peer).on_port(port)
                        },
                    ));
                    debug_assert_eq!(ports.len(), r as usize, "radios are node-major");
                    ports.push((node, port));
                    port = port.checked_add(1).expect("at most 256 radios per node");
                }
                first_radio.push(wireless.radio_of_node[node as usize]);
                BpNode::with_ports(node, links, port as usize, commodities.len())
            })
            .collect();
    BackpressureLayer::new(
        BpShared {
            params,
            commodities,
        },
        states,
        ports,
        first_radio,
    )
}

impl RoutingScheme for BackpressureConfig {
    fn check(&self, around: &Surroundings) -> Result<(), ConfigError> {
        check(self, around)
    }

    /// Every link: backpressure weighs each by the loss it measures (paper 000 runs it over
    /// links losing up to half their frames).
    fn min_delivery(&self) -> Option<f64> {
        None
    }

    fn ignores_flow_paths(&self) -> Option<&'static str> {
        Some("backpressure chooses next hops itself; flow paths are followed under static routing")
    }

    fn layer(&self, around: &Surroundings, setup: &LayerSetup<'_>) -> Box<dyn Forwarding> {
        let rx_threshold_dbm = around
            .radio
            .expect("checked: backpressure needs radios")
            .rx_threshold_dbm;
        Box::new(layer(params(self, around), rx_threshold_dbm, setup))
    }
}
