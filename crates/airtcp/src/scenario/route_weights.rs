//! The weight of every edge under a route metric (`routing.metric`): hops, ETX or ETT, from the
//! delivery ratios the radios' settings give each link (and 1 on wired links and the downlink).

use crate::link::loss::LossProcess;
use crate::link::Channel;
use crate::net::cellular::BaseStation;
use crate::net::paths::etx;
use crate::net::routing::{Edge, Iface, RouteMetric};
use crate::net::wireless::Wireless;
use crate::sim::NodeId;

/// The weight of every edge under a route metric: 1 (hops), its ETX ([`edge_etx`]) or its ETT
/// ([`edge_ett`]).
pub(super) fn edge_weights(
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::build::build;
    use crate::scenario::config::ScenarioConfig;

    /// Radios scattered so that some pairs are out of range, with an error process on one
    /// direction of one pair only: the two directions of that pair differ.
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
