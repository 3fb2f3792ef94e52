//! From the flows' paths to Horizon's state: one commodity per ordered pair of nodes that some
//! transport flow sends between (its data one way, its ACKs the other; flows between the same
//! two nodes share one, spec A19), and at every node on a commodity's paths its downstream and
//! upstream neighbours with the rate of each link (paper 003 §5.4: `D_i(f)` are the successors on
//! the flow's paths; the reverse flow follows the same paths back).

use std::collections::BTreeMap;

use super::layer::{Commodity, HorizonLayer, NONE};
use super::node::{DownLink, FlowAt, HorizonNode, NextHopRule, PriceRule, RefreshRule, UpLink};
use super::{HorizonParams, HEADER_BYTES};
use crate::error::ConfigError;
use crate::net::flow_paths::{FlowPaths, Way};
use crate::net::forwarding::{Forwarding, LayerSetup, RoutingScheme, Surroundings};
use crate::net::horizon::config::{
    HorizonConfig, HzMacConfig, HzNextHopConfig, HzPriceConfig, HzRefreshPriorityConfig,
    HzRefreshRuleConfig,
};
use crate::net::routing::Iface;
use crate::net::routing::RouteMetric;
use crate::net::wireless::Wireless;
use crate::sim::{NodeId, Rng, Time};

/// The largest custody threshold: PLIDs are one byte, compared in serial arithmetic (fewer than
/// 128 outstanding).
pub const MAX_THRESHOLD: u32 = 100;

fn err(path: impl Into<String>, message: impl Into<String>) -> ConfigError {
    ConfigError::new(path, message)
}

/// The checks of a horizon routing block: radios only (a node may have several), and sound
/// parameters.
pub fn check(cfg: &HorizonConfig, around: &Surroundings) -> Result<(), ConfigError> {
    let HorizonConfig {
        paths,
        threshold,
        refresh_every,
        refresh_idle,
        refresh_repeat,
        refresh_budget,
        buffer,
        sample_interval,
        k,
        price_cap,
        min_window,
        ref reorder,
        ..
    } = *cfg;
    if around.wired_or_cell() {
        return Err(err(
            "routing.kind",
            "horizon forwards over radios only; this scenario has wired links, a downlink or routers",
        ));
    }
    if around.radio.is_none() {
        return Err(err(
            "routing.kind",
            "horizon forwards over radios; this scenario has none",
        ));
    }
    if !(1..=crate::net::flow_paths::MAX_PATHS as u32).contains(&paths) {
        return Err(err(
            "routing.paths",
            format!(
                "must be between 1 and {}, got {paths}",
                crate::net::flow_paths::MAX_PATHS
            ),
        ));
    }
    if !(1..=MAX_THRESHOLD).contains(&threshold) {
        return Err(err(
            "routing.threshold",
            format!("must be between 1 and {MAX_THRESHOLD}, got {threshold}"),
        ));
    }
    for (field, value) in [
        ("refresh_every", u64::from(refresh_every)),
        ("refresh_idle", refresh_idle),
        ("refresh_repeat", refresh_repeat),
        ("buffer", u64::from(buffer)),
        ("sample_interval", sample_interval),
    ] {
        if value == 0 {
            return Err(err(format!("routing.{field}"), "must be greater than zero"));
        }
    }
    for (field, value) in [("k", k), ("price_cap", price_cap)] {
        if !(value.is_finite() && value > 0.0) {
            return Err(err(
                format!("routing.{field}"),
                format!("must be a positive number, got {value}"),
            ));
        }
    }
    if !(min_window.is_finite() && min_window >= 0.0) {
        return Err(err(
            "routing.min_window",
            format!("must be a non-negative number, got {min_window}"),
        ));
    }
    if !(refresh_budget.is_finite() && refresh_budget > 0.0 && refresh_budget <= 1.0) {
        return Err(err(
            "routing.refresh_budget",
            format!("must be within (0, 1], got {refresh_budget}"),
        ));
    }
    for (field, value) in [("alpha", reorder.alpha), ("beta", reorder.beta)] {
        if !(value.is_finite() && value > 0.0 && value <= 1.0) {
            return Err(err(
                format!("routing.reorder.{field}"),
                format!("must be within (0, 1], got {value}"),
            ));
        }
    }
    Ok(())
}

/// The layer's parameters of a checked horizon routing block.
pub fn params(cfg: &HorizonConfig, around: &Surroundings) -> HorizonParams {
    let HorizonConfig {
        threshold,
        refresh_every,
        price,
        next_hop,
        mac,
        refresh_priority,
        refresh_rule,
        refresh_budget,
        refresh_idle,
        refresh_repeat,
        buffer,
        sample_interval,
        ..
    } = *cfg;
    let radio = around.radio.expect("checked: horizon needs radios");
    HorizonParams {
        threshold: threshold as usize,
        refresh_every,
        price: match price {
            HzPriceConfig::PerRate => PriceRule::PerRate,
            HzPriceConfig::Queue => PriceRule::Queue,
        },
        next_hop: match next_hop {
            HzNextHopConfig::Strict => NextHopRule::Strict,
            HzNextHopConfig::CheapestOpen => NextHopRule::CheapestOpen,
        },
        push: mac == HzMacConfig::Push,
        refresh_first: refresh_priority == HzRefreshPriorityConfig::Head,
        refresh_rule: match refresh_rule {
            HzRefreshRuleConfig::Paced => RefreshRule::Paced,
            HzRefreshRuleConfig::Eager => RefreshRule::Eager,
        },
        refresh_budget,
        refresh_idle,
        refresh_repeat,
        buffer: buffer as usize,
        ifq_capacity: radio.queue_packets,
        sample_interval,
    }
}

/// The PathID of each of flow `flow`'s paths (§5.1): every node draws one random byte from its
/// own stream (`horizon/pathid/NODE`); the source writes its byte and every forwarder XORs its
/// own in, so a path's ID is the XOR of the bytes of all its nodes but the destination. Paths
/// whose IDs collide (≈ 1/256 per pair) look like one to the destination, as on the testbed.
pub fn path_ids(seed: u64, paths: &FlowPaths, flow: u32) -> Vec<u8> {
    let nodes = paths
        .paths(flow)
        .iter()
        .flat_map(|p| p.nodes().iter().copied())
        .max()
        .map_or(0, |m| m as usize + 1);
    let byte: Vec<u8> = (0..nodes)
        .map(|n| (Rng::stream(seed, &format!("horizon/pathid/{n}")).next_u64() & 0xff) as u8)
        .collect();
    paths
        .paths(flow)
        .iter()
        .map(|p| {
            let n = p.nodes();
            n[..n.len() - 1]
                .iter()
                .fold(0u8, |id, &v| id ^ byte[v as usize])
        })
        .collect()
}

/// The commodities of the flows and, per flow, its (data, ACK) commodities.
fn commodities(flow_ends: &[(NodeId, NodeId)]) -> (Vec<Commodity>, Vec<[u16; 2]>) {
    let mut index: BTreeMap<(NodeId, NodeId), u16> = BTreeMap::new();
    let mut list: Vec<Commodity> = Vec::new();
    let mut of = |a: NodeId, b: NodeId, list: &mut Vec<Commodity>| {
        *index.entry((a, b)).or_insert_with(|| {
            list.push(Commodity {
                src: a,
                dst: b,
                reverse: NONE,
            });
            (list.len() - 1) as u16
        })
    };
    let per_flow: Vec<[u16; 2]> = flow_ends
        .iter()
        .map(|&(s, d)| [of(s, d, &mut list), of(d, s, &mut list)])
        .collect();
    for k in 0..list.len() {
        let c = list[k];
        list[k].reverse = list
            .iter()
            .position(|o| o.src == c.dst && o.dst == c.src)
            .map_or(NONE, |i| i as u16);
    }
    (list, per_flow)
}

/// The radio of `node` that reaches `next` on a path hop, and the hop's rate in Mbit/s.
fn link(wireless: &Wireless, iface: Iface, next: NodeId) -> Option<(u32, f64)> {
    let Iface::Radio(r) = iface else {
        return None;
    };
    let peer = wireless.peer_radio(next, wireless.channel_of[r as usize])?;
    let rate = wireless.rate_to(r, peer)? as f64 / 1e6;
    Some((r, rate))
}

/// Adds `f`'s downstream neighbour `next` (if new) at a node.
fn add_down(f: &mut FlowAt, next: NodeId, radio: u32, rate: f64, hops: u32) {
    if f.down.iter().any(|d| d.node == next) {
        return;
    }
    f.down.push(DownLink {
        node: next,
        radio,
        rate,
        hops,
        last_plid: 0,
        outstanding: Vec::new(),
        price: 0.0,
    });
}

/// The air time of one refreshment from radio `r` to radio `to`: its frame (Horizon's header
/// and the MAC's overhead) at the link's rate, SIFS, and the MAC ACK at its rate.
fn refresh_airtime(wireless: &Wireless, r: u32, to: u32) -> Time {
    let mac = &wireless.macs[r as usize];
    let timing = mac.timing();
    let rate = wireless.rate_to(r, to).unwrap_or_else(|| mac.data_rate());
    timing.airtime(HEADER_BYTES + mac.mac_overhead(), rate)
        + timing.sifs
        + timing.ack_time_for(rate)
}

/// Adds `f`'s upstream neighbour `prev` (if new) at a node; `airtime`: of a refreshment to it.
fn add_up(f: &mut FlowAt, prev: NodeId, radio: u32, airtime: Time) {
    if f.up.iter().any(|u| u.node == prev) {
        return;
    }
    f.up.push(UpLink {
        node: prev,
        radio,
        highest: None,
        events: 0,
        receptions: 0,
        held: false,
        sent: None,
        last_up: 0,
        last_rx: None,
        gap: 0,
        airtime,
    });
}

/// The flow state of commodity `c` at `node`, created on first use.
fn flow_at(flows: &mut [Vec<FlowAt>], node: NodeId, c: u16, dst: NodeId) -> &mut FlowAt {
    let list = &mut flows[node as usize];
    match list.iter().position(|f| f.commodity == c) {
        Some(k) => &mut list[k],
        None => {
            list.push(FlowAt::new(c, node == dst, Vec::new(), Vec::new()));
            list.last_mut().expect("just pushed")
        }
    }
}

/// The layer for `params` over the flows' paths in `setup`.
pub fn layer(params: HorizonParams, setup: &LayerSetup<'_>) -> HorizonLayer {
    let wireless = setup.wireless;
    let (list, per_flow) = commodities(setup.flow_ends);
    let mut flows: Vec<Vec<FlowAt>> = vec![Vec::new(); setup.nodes];
    let mut first_hops = Vec::with_capacity(per_flow.len());
    for (fi, &[fwd, back]) in per_flow.iter().enumerate() {
        let paths = setup.flow_paths.paths(fi as u32);
        let mut firsts: [Vec<NodeId>; 2] = [Vec::new(), Vec::new()];
        for (pi, path) in paths.iter().enumerate() {
            let nodes = path.nodes();
            let last = nodes.len() - 1;
            firsts[0].push(nodes.get(1).copied().unwrap_or(NodeId::MAX));
            firsts[1].push(
                nodes
                    .get(last.wrapping_sub(1))
                    .copied()
                    .unwrap_or(NodeId::MAX),
            );
            for (way, c, order) in [
                (Way::Forward, fwd, nodes.to_vec()),
                (
                    Way::Back,
                    back,
                    nodes.iter().rev().copied().collect::<Vec<_>>(),
                ),
            ] {
                let dst = *order.last().expect("a path has two nodes");
                for (i, w) in order.windows(2).enumerate() {
                    let (a, b) = (w[0], w[1]);
                    let Some(hop) = setup.flow_paths.next_hop(fi as u32, pi as u8, a, way) else {
                        continue; // no link that way: the reverse is routed
                    };
                    let Some((radio, rate)) = link(wireless, hop.iface, b) else {
                        continue;
                    };
                    let hops = (order.len() - 2 - i) as u32;
                    add_down(flow_at(&mut flows, a, c, dst), b, radio, rate, hops);
                    let back_radio = wireless
                        .peer_radio(b, wireless.channel_of[radio as usize])
                        .expect("a path hop links two radios on one channel");
                    let airtime = refresh_airtime(wireless, back_radio, radio);
                    add_up(flow_at(&mut flows, b, c, dst), a, back_radio, airtime);
                }
            }
        }
        first_hops.push(firsts);
    }
    let nodes = flows
        .into_iter()
        .enumerate()
        .map(|(n, f)| HorizonNode::new(n as NodeId, f))
        .collect();
    let radio_node = wireless.radios.iter().map(|r| r.node).collect();
    let flow_meta = setup
        .flow_ends
        .iter()
        .zip(&per_flow)
        .map(|(&(s, _), &c)| (s, c))
        .collect();
    HorizonLayer::new(params, list, flow_meta, first_hops, nodes, radio_node)
}

impl RoutingScheme for HorizonConfig {
    fn check(&self, around: &Surroundings) -> Result<(), ConfigError> {
        check(self, around)
    }

    fn min_delivery(&self) -> Option<f64> {
        Some(self.min_delivery)
    }

    /// Every flow without a `paths` block gets `paths` node-disjoint ones by `metric`, its
    /// reverse traffic on them too.
    fn implied_paths(&self) -> Option<(u32, RouteMetric)> {
        Some((self.paths, self.metric))
    }

    fn layer(&self, around: &Surroundings, setup: &LayerSetup<'_>) -> Box<dyn Forwarding> {
        Box::new(layer(params(self, around), setup))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flows_between_the_same_nodes_share_commodities() {
        let (list, per) = commodities(&[(0, 5), (5, 0), (0, 5), (1, 2)]);
        assert_eq!(per, vec![[0, 1], [1, 0], [0, 1], [2, 3]]);
        assert_eq!(list.len(), 4);
        assert_eq!(list[0].reverse, 1);
        assert_eq!(list[1].reverse, 0);
        assert_eq!(list[2].reverse, 3);
    }
}
