//! The `trace:` block's files (docs/pcap.md): which radios and wired link ends are captured,
//! each file's name, and what the capture needs of the flows, planned once the network and the
//! flows are built. The folder is checked here, before any event; the files are opened when
//! the run starts (`World::run_controlled`), so that checking a scenario writes none.

use std::collections::{BTreeMap, BTreeSet};

use super::config::{ScenarioConfig, Standard};
use crate::error::ConfigError;
use crate::metrics::pcap::config::{NodeSet, TraceMedium};
use crate::metrics::pcap::dot11::channel_mhz;
use crate::metrics::pcap::packet::{Encoder, FlowWire};
use crate::net::pcap_tap::{PlannedFile, RadioWire, TracePlan, UNTRACED};
use crate::net::Network;
use crate::sim::NodeId;
use crate::world::{Endpoints, Flow};

/// The checks of `cfg`'s `trace:` block that need no network, made before it is built (a
/// refusal then costs nothing, whatever the network's size): the kinds of interface, the nodes
/// (`ids`: by name), and the folder, which is created and written to ([`TracePlan::check_dir`]).
/// Returns the captured nodes, in id order.
pub(crate) fn check(
    cfg: &ScenarioConfig,
    ids: &BTreeMap<&str, NodeId>,
) -> Result<Option<Vec<NodeId>>, ConfigError> {
    let Some(trace) = &cfg.trace else {
        return Ok(None);
    };
    if trace.what.is_empty() {
        return Err(ConfigError::new(
            "trace.what",
            "needs at least one of wifi, wired",
        ));
    }
    let nodes: Vec<NodeId> = match &trace.pcap {
        NodeSet::All => ids
            .values()
            .copied()
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect(),
        NodeSet::Nodes(names) if names.is_empty() => {
            let message = "lists no node: name at least one, or write all";
            return Err(ConfigError::new("trace.pcap", message));
        }
        NodeSet::Nodes(names) => {
            let mut listed = BTreeMap::new();
            for (i, name) in names.iter().enumerate() {
                let path = format!("trace.pcap[{i}]");
                let Some(&n) = ids.get(name.as_str()) else {
                    return Err(ConfigError::new(path, format!("no node named '{name}'")));
                };
                if let Some(j) = listed.insert(n, i) {
                    let message = format!("'{name}' is listed already (trace.pcap[{j}])");
                    return Err(ConfigError::new(path, message));
                }
            }
            listed.into_keys().collect()
        }
    };
    match trace.dir.as_deref() {
        None => return Err(ConfigError::new("trace.dir", NO_DIR)),
        Some("") => return Err(ConfigError::new("trace.dir", "must not be empty")),
        Some(dir) => TracePlan::check_dir(dir)?,
    }
    Ok(Some(nodes))
}

/// The plan of `cfg`'s `trace:` block for the network and flows built from it, given the nodes
/// [`check`] returned; refuses a listed node with nothing to capture and two nodes whose files
/// would have one name.
pub(crate) fn plan(
    cfg: &ScenarioConfig,
    nodes: Option<Vec<NodeId>>,
    net: &Network,
    flows: &[Flow],
) -> Result<Option<TracePlan>, ConfigError> {
    let (Some(trace), Some(nodes)) = (&cfg.trace, nodes) else {
        return Ok(None);
    };
    let wifi = trace.what.contains(&TraceMedium::Wifi);
    let wired = trace.what.contains(&TraceMedium::Wired);
    let ofdm = cfg
        .radio
        .as_ref()
        .is_some_and(|r| r.standard != Standard::Dot11b);
    // An 802.11n radio's HT PHY: its MCSs' rates, width and guard interval, and its band.
    let ht = cfg.radio.as_ref().and_then(|r| r.ht_phy());
    let ghz5 = ofdm && !ht.is_some_and(|h| h.band_2_4ghz());
    let mut plan = TracePlan {
        dir: trace.dir.clone(),
        channels: vec![(UNTRACED, UNTRACED); 2 * cfg.links.len()],
        encoder: encoder(cfg, net, flows),
        ..TracePlan::default()
    };
    let mut taken: BTreeMap<String, NodeId> = BTreeMap::new();
    let mut add = |plan: &mut TracePlan, node: NodeId, interface: String, radio: bool| {
        let name = net.node_names[node as usize].clone();
        let file = format!("{}-{interface}.pcap", file_stem(&name));
        if let Some(other) = taken.insert(file.clone(), node) {
            let message = format!(
                "nodes '{}' and '{name}' would both write '{file}': rename one",
                net.node_names[other as usize]
            );
            return Err(ConfigError::new("trace.pcap", message));
        }
        plan.files.push(PlannedFile {
            name: file,
            node: name,
            interface,
            radio,
        });
        Ok((plan.files.len() - 1) as u32)
    };
    for &node in &nodes {
        let before = plan.files.len();
        if wifi {
            for (k, radio) in net.wireless.radios_of(node).enumerate() {
                let file = add(&mut plan, node, format!("wifi{k}"), true)?;
                let channel = net.wireless.radios[radio as usize].channel;
                plan.radios.push(RadioWire {
                    radio,
                    file,
                    freq_mhz: channel_mhz(ghz5, channel),
                    ghz5,
                    ofdm,
                    ht,
                });
            }
        }
        if wired {
            // Link i is channels 2i (from -> to) and 2i + 1 (to -> from).
            for (i, link) in net.channels.iter().take(2 * cfg.links.len()).enumerate() {
                if link.from == node {
                    let file = add(&mut plan, node, format!("link{}", i / 2), false)?;
                    plan.channels[i].0 = file;
                    plan.channels[i ^ 1].1 = file;
                }
            }
        }
        if plan.files.len() == before && matches!(trace.pcap, NodeSet::Nodes(_)) {
            let i = listed_index(&trace.pcap, &net.node_names[node as usize]);
            let kinds = if wifi && wired {
                "no radio and no wired link"
            } else if wifi {
                "no radio"
            } else {
                "no wired link"
            };
            let message = format!(
                "'{}' has {kinds} to capture (trace.what)",
                net.node_names[node as usize]
            );
            return Err(ConfigError::new(format!("trace.pcap[{i}]"), message));
        }
    }
    if plan.files.is_empty() {
        return Err(ConfigError::new(
            "trace.what",
            "no node has an interface of these kinds: nothing to capture",
        ));
    }
    Ok(Some(plan))
}

/// Why a block without a folder is refused (the front end's `airtcp run` gives its output
/// folder, and the Python API a `trace_dir`, where the block has none).
pub const NO_DIR: &str =
    "required: the folder the pcap files go to (airtcp run puts them into <out>/pcap when the \
     block names none)";

/// Where `name` is in the list of `pcap`.
fn listed_index(pcap: &NodeSet, name: &str) -> usize {
    match pcap {
        NodeSet::Nodes(names) => names.iter().position(|n| n == name).unwrap_or(0),
        NodeSet::All => 0,
    }
}

/// A node's name as the start of a file name: letters, digits, `.`, `_` and `-` kept, every
/// other character `_` (a name may hold `/` or spaces).
fn file_stem(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// What the capture needs of each flow (segment size, transfer size, the scheme naming its
/// shim's or seam transport's packets) and the forwarding layer's name.
fn encoder(cfg: &ScenarioConfig, net: &Network, flows: &[Flow]) -> Encoder {
    use super::config::{AppConfig, TransportConfig};
    let wires = cfg
        .flows
        .iter()
        .zip(flows)
        .map(|(f, built)| {
            let total = match f.app {
                AppConfig::Bulk { bytes } => bytes,
                _ => None,
            };
            let (mss, timestamps) = match &f.transport {
                TransportConfig::Tcp(t) => (t.mss, t.header_bytes >= 52),
                _ => (0, false),
            };
            let scheme = match &built.endpoints {
                Endpoints::Tcp { shim, .. } => shim.as_ref().map_or("", |s| s.shim().name()),
                Endpoints::Seam { transport, .. } => transport.name(),
                Endpoints::Udp { .. } => "",
            };
            FlowWire {
                mss,
                total,
                timestamps,
                scheme,
            }
        })
        .collect();
    Encoder {
        flows: wires,
        layer: net.forwarding.as_ref().map_or("", |l| l.name()),
    }
}
