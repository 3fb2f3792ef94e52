//! The results document of a finished run (`metrics::results::RunResults`): a row per flow (with
//! its goodput series and, when traced, its RTT samples), the drops and queue counters of every
//! queue, the downlink's per-user rows, the radio links' counters, the forwarding layers' tables,
//! the packet-conservation check and the run's timing.

use super::{Endpoints, Flow, ShimSlot, World};
use crate::metrics::goodput::jain_index;
use crate::metrics::results::{
    Conservation, DownlinkRow, DropRow, FlowResult, LayerTables, LinkRateRow, LinkRow, QueueRow,
    RunResults, TimeSeries, Timing,
};
use crate::net::flow_paths::FlowPath;
use crate::net::Network;
use crate::sim::time::{to_secs, Time};
use crate::sim::{DropReason, NodeId};

impl World {
    /// The results, taking the recorded series out of the world.
    pub(super) fn results(mut self, wall_s: f64, events: u64) -> RunResults {
        let started = std::time::Instant::now();
        let mut series = TimeSeries {
            cwnd: std::mem::take(&mut self.traces.cwnd),
            queue: std::mem::take(&mut self.traces.queues),
            ..Default::default()
        };
        let trace = self.net.finish_traces();
        let net = &self.net;
        let flows = flow_rows(net, &mut self.flows, self.duration, &mut series);
        let (mut drops, mut queues) = queue_rows(net);
        let downlink = downlink_rows(net, &mut drops, &mut queues);
        drops.extend(node_drop_rows(net));
        let links = link_rows(net);
        let link_rates = link_rate_rows(net, &mut series);
        let mut reported = net.forwarding_report();
        reported.extend(net.routers.report(&net.node_names));
        let forwarding = LayerTables::new(reported, self.forwarding_tables);
        let goodputs: Vec<f64> = flows.iter().map(|f| f.goodput_bps).collect();
        let conservation = conservation(net);
        let results_s = started.elapsed().as_secs_f64();
        RunResults {
            name: self.name,
            seed: self.seed,
            duration_s: to_secs(self.duration),
            jain: jain_index(&goodputs),
            flows,
            drops,
            queues,
            links,
            link_rates,
            downlink,
            forwarding,
            conservation,
            trace,
            timeseries: series,
            timing: Timing {
                wall_s,
                events,
                events_per_s: if wall_s > 0.0 {
                    events as f64 / wall_s
                } else {
                    0.0
                },
                setup_s: self.setup_s,
                results_s,
            },
        }
    }
}

fn name_of(net: &Network, n: NodeId) -> String {
    net.node_names[n as usize].clone()
}

/// A row per flow, in scenario order; each flow's goodput series (and RTT samples, when traced)
/// go into `series`.
fn flow_rows(
    net: &Network,
    flows: &mut [Flow],
    duration: Time,
    series: &mut TimeSeries,
) -> Vec<FlowResult> {
    let mut rows = Vec::with_capacity(flows.len());
    for flow in flows {
        for (t, g) in flow.meter.series(duration) {
            series.goodput.flow.push(flow.name.clone());
            series.goodput.t_s.push(t);
            series.goodput.goodput_bps.push(g);
        }
        let mut row = FlowResult {
            id: flow.name.clone(),
            src: name_of(net, flow.src),
            dst: name_of(net, flow.dst),
            transport: String::new(),
            cc: String::new(),
            sack: false,
            start_s: to_secs(flow.start),
            stop_s: to_secs(flow.stop),
            bytes_delivered: flow.meter.bytes,
            goodput_bps: flow.meter.goodput_bps(),
            completion_s: flow.completion.map(to_secs),
            packets_sent: 0,
            retransmissions: 0,
            recoveries: 0,
            timeouts: 0,
            mean_rtt_s: None,
            mean_window: None,
            decode_delay_mean_s: None,
            decode_delay_p95_s: None,
            decode_delay_p99_s: None,
            paths: None,
            shim: None,
        };
        let paths = net.flow_paths.paths(rows.len() as u32);
        if !paths.is_empty() {
            let named = |p: &FlowPath| p.nodes().iter().map(|&v| name_of(net, v)).collect();
            row.paths = Some(paths.iter().map(named).collect());
        }
        transport_counters(flow, duration, &mut row, series);
        rows.push(row);
    }
    rows
}

/// The transport's counters of `flow` into its row (and a TCP sender's RTT samples into
/// `series`).
fn transport_counters(
    flow: &mut Flow,
    duration: Time,
    row: &mut FlowResult,
    series: &mut TimeSeries,
) {
    match &mut flow.endpoints {
        Endpoints::Tcp { sender, shim, .. } => {
            row.shim = shim.as_deref().and_then(ShimSlot::report);
            let s = &sender.stats;
            row.transport = "tcp".into();
            row.cc = sender.cc_name().into();
            row.sack = sender.recovery() == crate::transport::tcp::sender::Recovery::Sack;
            row.packets_sent = s.packets_sent;
            row.retransmissions = s.retransmissions;
            row.recoveries = s.recoveries;
            row.timeouts = s.timeouts;
            row.mean_rtt_s = (s.rtt_samples > 0).then(|| s.rtt_sum / s.rtt_samples as f64 * 1e-9);
            if let Some(log) = sender.rtt_log.take() {
                for (t, r, srtt) in log {
                    series.rtt.flow.push(flow.name.clone());
                    series.rtt.t_s.push(to_secs(t));
                    series.rtt.rtt_s.push(to_secs(r));
                    series.rtt.srtt_s.push(to_secs(srtt));
                }
            }
        }
        Endpoints::Seam { transport, .. } => transport.report(row, duration),
        Endpoints::Udp { source, .. } => {
            row.transport = "udp".into();
            row.packets_sent = source.sent();
        }
    }
}

/// The drops (by reason) and counters of every wired channel's, radio's and router's queue.
fn queue_rows(net: &Network) -> (Vec<DropRow>, Vec<QueueRow>) {
    let mut drops = Vec::new();
    let mut queues = Vec::new();
    let channels = net.channels.iter().map(|c| (&c.name, &c.stats));
    let radios = net.wireless.radios.iter().map(|r| (&r.name, &r.stats));
    let routers = net.routers.list.iter().map(|r| (&r.name, &r.stats));
    for (name, stats) in channels.chain(radios).chain(routers) {
        for r in DropReason::ALL {
            let n = stats.drops[r as usize];
            if n > 0 {
                drops.push(DropRow {
                    queue: name.clone(),
                    reason: net.drop_name(r).into(),
                    packets: n,
                });
            }
        }
        queues.push(QueueRow {
            queue: name.clone(),
            enqueued: stats.enqueued,
            transmitted: stats.transmitted,
            max_backlog: stats.max_backlog,
        });
    }
    (drops, queues)
}

/// The downlink's row per user; its drops and per-user queues join `drops` and `queues`.
fn downlink_rows(
    net: &Network,
    drops: &mut Vec<DropRow>,
    queues: &mut Vec<QueueRow>,
) -> Vec<DownlinkRow> {
    let mut downlink = Vec::new();
    let Some(bs) = &net.base_station else {
        return downlink;
    };
    for (queue, reason, packets) in net.downlink_drops() {
        drops.push(DropRow {
            queue,
            reason: net.drop_name(reason).into(),
            packets,
        });
    }
    let d = &bs.downlink;
    let run_s = (d.slots() * d.slot_len()) as f64 * 1e-9;
    for (u, st) in d.stats().iter().enumerate() {
        queues.push(QueueRow {
            queue: bs.queue_names[u].clone(),
            enqueued: st.packets_enqueued,
            transmitted: st.packets_served,
            max_backlog: bs.max_backlog[u],
        });
        downlink.push(DownlinkRow {
            user: name_of(net, bs.users[u]),
            mean_snr_db: bs.mean_snr_db[u],
            slots_scheduled: st.slots_scheduled,
            outage_slots: st.outage_slots,
            mean_rate_bps: if run_s > 0.0 {
                st.rate_bits_sum as f64 / run_s
            } else {
                0.0
            },
            packets_served: st.packets_served,
            bytes_served: st.bytes_served,
            packets_erased: st.packets_erased,
            packets_dropped: st.packets_dropped,
            unused_bytes: st.unused_bytes,
        });
    }
    downlink
}

/// Packets dropped at nodes (no route, TTL, ...), by node and reason.
fn node_drop_rows(net: &Network) -> Vec<DropRow> {
    let mut drops = Vec::new();
    for (node, counts) in net.node_drops.iter().enumerate() {
        for r in DropReason::ALL {
            if counts[r as usize] > 0 {
                drops.push(DropRow {
                    queue: format!("node {}", net.node_names[node]),
                    reason: net.drop_name(r).into(),
                    packets: counts[r as usize],
                });
            }
        }
    }
    drops
}

/// A radio as an end of a link: its node, with the channel ("b1 ch6") if the node has several.
fn end_name(net: &Network, radio: &crate::net::wireless::RadioState) -> String {
    if net.wireless.is_multi_radio(radio.node) {
        format!("{} ch{}", name_of(net, radio.node), radio.channel)
    } else {
        name_of(net, radio.node)
    }
}

/// With adaptive rate control: a row per directed radio pair and rate with data frames, and the
/// traced changes of each link's rate into `series`.
fn link_rate_rows(net: &Network, series: &mut TimeSeries) -> Vec<LinkRateRow> {
    let mut rows = Vec::new();
    let radios = &net.wireless.radios;
    for radio in radios {
        let Some(rc) = radio.rate_control.as_deref() else {
            continue;
        };
        for (slot, &peer) in radio.peers.iter().enumerate() {
            for (rate, c) in rc.counts(slot).filter(|(_, c)| c.attempts > 0) {
                rows.push(LinkRateRow {
                    from: end_name(net, radio),
                    to: end_name(net, &radios[peer as usize]),
                    rate_mbps: rate as f64 / 1e6,
                    attempts: c.attempts,
                    acked: c.acked,
                });
            }
        }
        for (t, slot, rate) in rc.changes() {
            let peer = &radios[radio.peers[slot] as usize];
            series.rates.from.push(end_name(net, radio));
            series.rates.to.push(end_name(net, peer));
            series.rates.t_s.push(to_secs(t));
            series.rates.rate_mbps.push(rate as f64 / 1e6);
        }
    }
    rows
}

/// The rate table's entry for the link from radio `r` to `peer`; the MAC's data rate for a moving
/// neighbour no longer listed.
fn table_rate(net: &Network, r: u32, peer: u32) -> u64 {
    net.wireless
        .rate_to(r, peer)
        .unwrap_or_else(|| net.wireless.macs[r as usize].data_rate())
}

/// The mean rate of a link's data frames under rate control, bit/s (0 without any).
fn mean_rate(rc: &crate::mac::rate::RateControl, nb: usize) -> f64 {
    let (frames, bits) = rc.counts(nb).fold((0u64, 0f64), |(n, b), (rate, c)| {
        (n + c.attempts, b + rate as f64 * c.attempts as f64)
    });
    if frames == 0 {
        0.0
    } else {
        bits / frames as f64
    }
}

/// One row per directed radio pair with traffic: attempts are counted at the sender, overhearing
/// at the receiver. An end on a node with several radios is named with the channel ("b1 ch6").
fn link_rows(net: &Network) -> Vec<LinkRow> {
    let mut links = Vec::new();
    let radios = &net.wireless.radios;
    let end_name = |radio| end_name(net, radio);
    for (r, radio) in radios.iter().enumerate() {
        for (slot, (&peer_radio, st)) in radio.peers.iter().zip(&radio.neighbor_stats).enumerate() {
            let peer = &radios[peer_radio as usize];
            let overheard = net
                .wireless
                .slot_of(peer_radio, r as u32)
                .map_or(0, |s| peer.neighbor_stats[s].overheard);
            if st.attempts == 0 && overheard == 0 {
                continue;
            }
            let aggregates = net.wireless.macs[r].aggregation_stats().is_some();
            let amsdus = net.wireless.macs[r].builds_amsdus();
            let ratio = |a: u64, b: u64| (b > 0).then(|| a as f64 / b as f64);
            links.push(LinkRow {
                ampdus: aggregates.then_some(st.ampdus),
                mpdus_per_ampdu: aggregates
                    .then(|| ratio(st.ampdu_mpdus, st.ampdus))
                    .flatten(),
                mpdu_retry_share: aggregates
                    .then(|| ratio(st.mpdus_retried, st.mpdus))
                    .flatten(),
                amsdus: amsdus.then_some(st.amsdus),
                msdus_per_amsdu: amsdus.then(|| ratio(st.amsdu_msdus, st.amsdus)).flatten(),
                from: end_name(radio),
                to: end_name(peer),
                attempts: st.attempts,
                answered: st.answered,
                delivery_ratio: st.delivery_ratio(),
                overheard,
                rate_mbps: match radio.rate_control.as_deref() {
                    Some(rc) => mean_rate(rc, slot),
                    None => table_rate(net, r as u32, peer_radio) as f64,
                } / 1e6,
            });
        }
    }
    links
}

/// Packet conservation: every packet created is delivered, dropped, retired or still in flight
/// (counted two ways), and none was freed twice.
fn conservation(net: &Network) -> Conservation {
    let in_flight = net.packets.live();
    let created = net.packets.created();
    let retired = net.packets.retired();
    let ok = created == net.delivered + net.dropped + retired + in_flight
        && in_flight == net.count_in_flight()
        && net.packets.double_frees() == 0;
    Conservation {
        created,
        delivered: net.delivered,
        dropped: net.dropped,
        retired,
        in_flight,
        ok,
    }
}
