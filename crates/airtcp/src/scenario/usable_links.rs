//! The routing's delivery threshold (`routing.min_delivery`): which radio links may carry data.
//!
//! A radio link is in the routing graph when the receiver locks onto the sender's frames: their
//! mean power reaches its receive threshold ([`radio_edges`]). Locking on is not decoding. In
//! 802.11a the threshold is the sensitivity of the 6 Mbps mode (-82 dBm, 12 dB above the noise)
//! while a 54 Mbps frame needs about 22 dB, so hop-count routing, which prefers the longest links,
//! picks links whose data frames nearly all fail, and so does AODV, whose broadcasts go at the
//! basic rate and reach further than data at the data rate (the "communication gray zones" of
//! Lundgren, Nordström and Tschudin, "Coping with communication gray zones in IEEE 802.11b based
//! ad hoc networks", WoWMoM 2002).
//!
//! The rule (docs/routing_paths.md#the-delivery-threshold): the link between two radios is
//! *usable* when, in each direction, a reference data frame at that direction's rate (its rate
//! table entry, so rate control and `link_rates` count) is received at the mean SNR without
//! interference or fading with probability at least `min_delivery`, that probability multiplied by
//! the direction's extra error process (its `link_errors` entry, else `radio.frame_error`). The
//! reference frame is a 1500-byte packet (the one ETT weighs links by) plus the MAC's overhead
//! bytes: 1536 bytes by default. Wired links, the downlink and routers are always usable.
//!
//! Both directions, because the traffic a route carries goes both ways (TCP's ACKs come back over
//! the reverse route, and ETX counts both directions too), and because it keeps the usable graph
//! symmetric: a flow has a route forward exactly when it has one back.

use super::route_weights::ETT_PACKET_BYTES;
use super::wireless_build::radio_edges;
use crate::mac::frame::RadioId;
use crate::net::routing::{Edge, Iface};
use crate::net::wireless::Wireless;
use crate::sim::NodeId;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// What one radio link delivers of the reference frame, both ways.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinkDelivery {
    /// Fraction delivered from the sender to the receiver, per attempt.
    pub forward: f64,
    /// Fraction delivered back, per attempt.
    pub back: f64,
    /// The forward direction's data rate, bit/s.
    pub rate_bps: u64,
    /// The reverse direction's data rate, bit/s.
    pub back_rate_bps: u64,
    /// Size of the reference frame the sender judged by, bytes.
    pub bytes: u32,
}

impl LinkDelivery {
    /// The weaker direction's delivery: what the threshold is held against.
    pub fn worse(&self) -> f64 {
        self.forward.min(self.back)
    }

    /// The link in words, for messages: `delivers 0.0012 of 1536-byte frames at 54 Mbps (0.0012
    /// back at 54 Mbps)`.
    pub fn describe(&self) -> String {
        format!(
            "delivers {} of {}-byte frames at {} Mbps ({} back at {} Mbps)",
            share(self.forward),
            self.bytes,
            mbps(self.rate_bps),
            share(self.back),
            mbps(self.back_rate_bps)
        )
    }
}

/// The reference frame of radio `r`: the 1500-byte packet plus its MAC's overhead bytes.
fn reference_bytes(wireless: &Wireless, r: RadioId) -> u32 {
    ETT_PACKET_BYTES + wireless.macs[r as usize].mac_overhead()
}

/// What the link from radio `rf` to radio `rt` delivers of the reference frame each way.
pub fn between_radios(wireless: &Wireless, rf: RadioId, rt: RadioId) -> LinkDelivery {
    let (bytes, back_bytes) = (reference_bytes(wireless, rf), reference_bytes(wireless, rt));
    LinkDelivery {
        forward: wireless.delivery_of(rf, rt, bytes),
        back: wireless.delivery_of(rt, rf, back_bytes),
        rate_bps: wireless
            .rate_to(rf, rt)
            .unwrap_or_else(|| wireless.macs[rf as usize].data_rate()),
        back_rate_bps: wireless
            .rate_to(rt, rf)
            .unwrap_or_else(|| wireless.macs[rt as usize].data_rate()),
        bytes,
    }
}

/// What a radio edge delivers (`None` for the other kinds of edge, which always deliver, and for
/// a radio edge whose receiver has no radio on the sender's channel).
pub fn of_edge(wireless: &Wireless, e: &Edge) -> Option<LinkDelivery> {
    let Iface::Radio(r) = e.iface else {
        return None;
    };
    let peer = wireless.peer_radio(e.to, wireless.radios[r as usize].channel)?;
    Some(between_radios(wireless, r, peer))
}

/// Whether edge `e` may carry data under the threshold `min_delivery` (the same decision as
/// [`LinkDelivery::worse`] of [`of_edge`], without computing the way back of a link whose way
/// forward already fails: the error model is most of the set-up cost of a dense mesh).
pub fn usable(wireless: &Wireless, e: &Edge, min_delivery: f64) -> bool {
    let Iface::Radio(r) = e.iface else {
        return true;
    };
    let Some(peer) = wireless.peer_radio(e.to, wireless.radios[r as usize].channel) else {
        return false;
    };
    wireless.delivery_of(r, peer, reference_bytes(wireless, r)) >= min_delivery
        && wireless.delivery_of(peer, r, reference_bytes(wireless, peer)) >= min_delivery
}

/// Keeps the edges that may carry data under the threshold, in their order (so that with every
/// link usable the routes and their tie-breaks are those of the whole graph). A threshold of 0
/// keeps every edge without computing anything.
pub fn retain_usable(edges: &mut Vec<Edge>, wireless: &Wireless, min_delivery: f64) {
    if min_delivery <= 0.0 {
        return;
    }
    edges.retain(|e| usable(wireless, e, min_delivery));
}

/// Every edge the receivers lock onto, the unusable ones included: the edges of `usable_edges`
/// that are not radio links (never taken out) and every radio edge. Built only to explain an
/// error, so the usable graph alone stays in memory during a run.
pub fn all_edges(usable_edges: &[Edge], wireless: &Wireless) -> Vec<Edge> {
    let mut all: Vec<Edge> = usable_edges
        .iter()
        .filter(|e| !matches!(e.iface, Iface::Radio(_)))
        .copied()
        .collect();
    all.extend(radio_edges(wireless));
    all
}

/// The radio link from node `a` to node `b` that delivers best (on any channel the two share
/// whose receiver locks onto the sender's frames), if there is one.
pub fn best_between_nodes(wireless: &Wireless, a: NodeId, b: NodeId) -> Option<LinkDelivery> {
    let mut best: Option<LinkDelivery> = None;
    for ra in wireless.radios_of(a) {
        let Some(rb) = wireless.peer_radio(b, wireless.radios[ra as usize].channel) else {
            continue;
        };
        let nbs = &wireless.radios[ra as usize].neighbors;
        let Ok(i) = nbs.binary_search_by_key(&rb, |n| n.radio) else {
            continue;
        };
        if nbs[i].mean_mw < wireless.radios[rb as usize].phy.rx_mw() {
            continue;
        }
        let d = between_radios(wireless, ra, rb);
        if best.is_none_or(|b| d.worse() > b.worse()) {
            best = Some(d);
        }
    }
    best
}

/// Why the hop from `a` to `b` is not in the usable graph although the receiver locks onto the
/// sender's frames (`None` if it does not, or if the hop is usable after all).
pub fn why_unusable(
    wireless: &Wireless,
    (a, b): (NodeId, NodeId),
    names: &[String],
    min_delivery: f64,
) -> Option<String> {
    let d = best_between_nodes(wireless, a, b)?;
    (d.worse() < min_delivery).then(|| {
        format!(
            "the link from '{}' to '{}' {}, below routing.min_delivery {min_delivery}: a path \
             over it carries next to nothing (go through a relay, or lower routing.min_delivery; \
             0 allows every link the receiver locks onto)",
            names[a as usize],
            names[b as usize],
            d.describe()
        )
    })
}

/// The sorted senders each node hears over usable links (`edges` holds the usable graph): AODV
/// processes control messages from these only.
pub fn usable_senders(nodes: usize, edges: &[Edge]) -> Vec<Vec<NodeId>> {
    let mut senders: Vec<Vec<NodeId>> = vec![Vec::new(); nodes];
    for e in edges {
        if let Iface::Radio(_) = e.iface {
            senders[e.to as usize].push(e.from);
        }
    }
    for list in &mut senders {
        list.sort_unstable();
        list.dedup();
    }
    senders
}

/// The message for a flow from `src` to `dst` that the usable graph does not connect but the
/// graph of every link does (`None` if that one does not either: the nodes are out of range,
/// which other messages say): the path whose weakest link is strongest, and that link.
pub fn no_usable_path(
    wireless: &Wireless,
    all: &[Edge],
    names: &[String],
    (src, dst): (NodeId, NodeId),
    min_delivery: f64,
) -> Option<String> {
    let width = |e: usize| of_edge(wireless, &all[e]).map_or(1.0, |d| d.worse());
    let widths: Vec<f64> = (0..all.len()).map(width).collect();
    let path = widest_path(names.len(), all, &|e| widths[e], src, dst)?;
    widest_path(names.len(), all, &|e| widths[e], dst, src)?;
    let nodes: Vec<&str> = std::iter::once(src)
        .chain(path.iter().map(|&e| all[e].to))
        .map(|v| names[v as usize].as_str())
        .collect();
    let weakest = *path
        .iter()
        .min_by(|&&x, &&y| widths[x].total_cmp(&widths[y]))
        .expect("a path between two different nodes has an edge");
    let e = all[weakest];
    let link = of_edge(wireless, &e).map_or_else(String::new, |d| d.describe());
    let bytes = of_edge(wireless, &e).map_or(ETT_PACKET_BYTES, |d| d.bytes);
    Some(format!(
        "no path of links that deliver at their data rate from '{}' to '{}' (routing.min_delivery \
         {min_delivery} of {bytes}-byte frames, both ways); the best path, {}, is held back by \
         '{}' -> '{}', which {link}: move the nodes closer, lower the data rate, or lower \
         routing.min_delivery (0 allows every link the receiver locks onto)",
        names[src as usize],
        names[dst as usize],
        nodes.join(" -> "),
        names[e.from as usize],
        names[e.to as usize],
    ))
}

/// A label of the widest-path search: the path's bottleneck (larger is better), then its hops
/// (fewer is better), then the node (for a total order).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Label {
    width: f64,
    hops: u32,
    node: NodeId,
}

impl Eq for Label {}

impl Ord for Label {
    fn cmp(&self, other: &Self) -> Ordering {
        self.width
            .total_cmp(&other.width)
            .then(other.hops.cmp(&self.hops))
            .then(other.node.cmp(&self.node))
    }
}

impl PartialOrd for Label {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The path from `src` to `dst` whose narrowest edge is widest (then the one of fewest hops), as
/// edge indices: Dijkstra's search with (min, max) in place of (+, min), exact since a path's
/// bottleneck never grows along it. `None` if `dst` cannot be reached.
pub fn widest_path(
    n: usize,
    edges: &[Edge],
    width: &dyn Fn(usize) -> f64,
    src: NodeId,
    dst: NodeId,
) -> Option<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, e) in edges.iter().enumerate() {
        out[e.from as usize].push(i);
    }
    let mut best: Vec<Option<(f64, u32)>> = vec![None; n];
    let mut via: Vec<usize> = vec![usize::MAX; n];
    let mut done = vec![false; n];
    let mut heap = BinaryHeap::new();
    best[src as usize] = Some((f64::INFINITY, 0));
    heap.push(Label {
        width: f64::INFINITY,
        hops: 0,
        node: src,
    });
    while let Some(Label {
        width: w,
        hops,
        node,
    }) = heap.pop()
    {
        if std::mem::replace(&mut done[node as usize], true) {
            continue;
        }
        if node == dst {
            break;
        }
        for &e in &out[node as usize] {
            let to = edges[e].to as usize;
            let label = (w.min(width(e)), hops + 1);
            let better = match best[to] {
                None => true,
                Some((bw, bh)) => label.0 > bw || (label.0 == bw && label.1 < bh),
            };
            if !done[to] && better {
                best[to] = Some(label);
                via[to] = e;
                heap.push(Label {
                    width: label.0,
                    hops: label.1,
                    node: to as NodeId,
                });
            }
        }
    }
    if src == dst || via[dst as usize] == usize::MAX {
        return None;
    }
    let mut path = Vec::new();
    let mut at = dst;
    while at != src {
        let e = via[at as usize];
        path.push(e);
        at = edges[e].from;
    }
    path.reverse();
    Some(path)
}

/// A delivery ratio for messages: three significant digits, or scientific notation below 0.001.
fn share(d: f64) -> String {
    if d == 0.0 || d >= 0.001 {
        let text = format!("{d:.3}");
        let text = text.trim_end_matches('0').trim_end_matches('.');
        if text.is_empty() {
            "0".into()
        } else {
            text.into()
        }
    } else {
        format!("{d:.1e}")
    }
}

/// A rate in Mbit/s as scenarios write it (5.5, 54).
fn mbps(rate: u64) -> String {
    format!("{}", rate as f64 / 1e6)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edge(from: NodeId, to: NodeId) -> Edge {
        Edge {
            from,
            to,
            iface: Iface::Channel(0),
        }
    }

    #[test]
    fn the_widest_path_maximises_its_weakest_link_then_its_hops() {
        // 0 -> 3 directly (0.2), by 1 (0.9, 0.5) or by 2 (0.6, 0.6 then 0.6 to 3 over 4).
        let edges = [
            edge(0, 3),
            edge(0, 1),
            edge(1, 3),
            edge(0, 2),
            edge(2, 4),
            edge(4, 3),
            edge(2, 3),
        ];
        let widths = [0.2, 0.9, 0.5, 0.6, 0.6, 0.6, 0.6];
        let path = widest_path(5, &edges, &|e| widths[e], 0, 3).expect("reachable");
        // Through 2 with its direct edge to 3 (0.6 in two hops, not three).
        assert_eq!(path, vec![3, 6]);
        assert_eq!(widest_path(5, &edges, &|e| widths[e], 3, 0), None);
        assert_eq!(widest_path(5, &edges, &|e| widths[e], 0, 0), None);
    }

    /// The SNR (dB) at which a 1536-byte frame at `rate` gets through with probability `p`.
    fn snr_for(model: crate::phy::ErrorModel, rate: u64, p: f64) -> f64 {
        let (mut low, mut high) = (-10.0, 60.0);
        for _ in 0..60 {
            let mid: f64 = (low + high) / 2.0;
            if model.frame_success(10f64.powf(mid / 10.0), rate, 1536) < p {
                low = mid;
            } else {
                high = mid;
            }
        }
        (low + high) / 2.0
    }

    /// The threshold matters little for the PHY's part: a link's delivery at its rate goes from
    /// 0.1 to 0.9 within a dB or two of SNR (docs/routing_paths.md's table), so any threshold in
    /// between moves the edge of the usable range by a fraction of a dB.
    #[test]
    fn the_gray_zone_of_every_rate_is_narrow() {
        use crate::phy::ErrorModel::{Dsss, OfdmNist};
        let rates: [(crate::phy::ErrorModel, &[u64]); 2] = [
            (
                OfdmNist,
                &[6, 9, 12, 18, 24, 36, 48, 54].map(|r| r * 1_000_000),
            ),
            (Dsss, &[1_000_000, 2_000_000, 5_500_000, 11_000_000]),
        ];
        for (model, list) in rates {
            for &rate in list {
                let [p10, p50, p90] = [0.1, 0.5, 0.9].map(|p| snr_for(model, rate, p));
                eprintln!(
                    "{model:?} {} Mbps: 0.1 at {p10:.2} dB, 0.5 at {p50:.2} dB, 0.9 at {p90:.2} dB",
                    mbps(rate)
                );
                assert!(p90 - p10 < 2.0, "{rate}: {p10} .. {p90}");
            }
        }
        // 54 Mbps needs 22.0 dB for half of its 1536-byte frames (the example's 17.8 dB is far
        // below; 10 m, at 28.3 dB, far above).
        let p50 = snr_for(OfdmNist, 54_000_000, 0.5);
        assert!((p50 - 22.0).abs() < 0.05, "{p50}");
    }

    #[test]
    fn shares_are_written_briefly() {
        assert_eq!(share(1.0), "1");
        assert_eq!(share(0.5), "0.5");
        assert_eq!(share(0.99949), "0.999");
        assert_eq!(share(0.0), "0");
        assert_eq!(share(0.000_012_34), "1.2e-5");
    }
}
