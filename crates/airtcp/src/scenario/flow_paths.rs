//! From the flows' `paths` blocks to the paths service (`net::flow_paths`): the checks of each
//! block, with the field paths and messages of the Python front end, the node-disjoint paths of a
//! `disjoint` block, and the hops of every path.

use std::collections::BTreeMap;

use super::config::{
    FlowConfig, PathsConfig, ReverseConfig, RouteMetric, RoutingConfig, ScenarioConfig,
    StaticConfig,
};
use crate::error::ConfigError;
use crate::net::flow_paths::{FlowPaths, FlowSpec, MissingLink, MAX_PATHS};
use crate::net::paths::{node_disjoint_paths, MAX_DISJOINT_WEIGHT};
use crate::net::routing::Edge;
use crate::sim::NodeId;

fn err(path: impl Into<String>, message: impl Into<String>) -> ConfigError {
    ConfigError::new(path, message)
}

/// What the builder knows that the paths need: the nodes, the routing graph, each flow's ends.
pub struct PathsInput<'a> {
    /// Node ids by name.
    pub ids: &'a BTreeMap<&'a str, NodeId>,
    /// Node names by id.
    pub names: &'a [String],
    /// The routing graph's edges (wired channels, the downlink, radio neighbours).
    pub edges: &'a [Edge],
    /// Each flow's (source, destination), in scenario order (every flow, with paths or not).
    pub flow_ends: &'a [(NodeId, NodeId)],
    /// The weight of each edge under a route metric, computed when asked for.
    pub edge_weights: &'a dyn Fn(RouteMetric) -> Vec<f64>,
    /// The routing's delivery threshold, if it took links out of `edges`
    /// (`scenario::usable_links`).
    pub min_delivery: Option<f64>,
    /// Why the hop from one node to another is not in `edges` although the receiver locks onto
    /// the sender's frames (a link below the delivery threshold), if that is why.
    pub unusable: &'a dyn Fn(NodeId, NodeId) -> Option<String>,
    /// Every edge, the links below the delivery threshold included (built to explain an error).
    pub all_edges: &'a dyn Fn() -> Vec<Edge>,
    /// Whether two edges (indices into `edges`) contend for the air: one channel, within the
    /// range the radios hear each other (Horizon's interference-aware paths).
    pub contend: &'a dyn Fn(usize, usize) -> bool,
}

/// The checks a flow's `paths` block needs before any graph is built: the routing follows paths
/// (`static` only), the numbers are in range. Run with the routing block's checks.
pub fn check(cfg: &ScenarioConfig) -> Result<(), ConfigError> {
    for (i, f) in cfg.flows.iter().enumerate() {
        let Some(paths) = &f.paths else {
            continue;
        };
        let p = format!("flows[{i}].paths");
        if let Some(why) = cfg.routing.ignores_flow_paths() {
            return Err(err(p, why));
        }
        match paths {
            PathsConfig::Explicit { paths, .. } => {
                if paths.is_empty() {
                    return Err(err(
                        format!("{p}.paths"),
                        "needs at least 1 entry, got none",
                    ));
                }
                if paths.len() > MAX_PATHS {
                    return Err(err(
                        format!("{p}.paths"),
                        format!("at most {MAX_PATHS} entries, got {}", paths.len()),
                    ));
                }
            }
            PathsConfig::Disjoint { k, .. } => {
                if *k == 0 || *k as usize > MAX_PATHS {
                    return Err(err(
                        format!("{p}.k"),
                        format!("must be between 1 and {MAX_PATHS}, got {k}"),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// The flows' paths, checked: every explicit path runs from its flow's source to its destination
/// over known nodes, none twice, each hop a link of the routing graph (and one back unless the
/// reverse traffic is routed); a disjoint block finds its `k` paths. Empty when no flow has paths.
pub fn build(cfg: &ScenarioConfig, input: &PathsInput<'_>) -> Result<FlowPaths, ConfigError> {
    // A routing block that forwards every flow over paths (Horizon) gives a flow without a
    // `paths` block its own (fewer where fewer exist).
    let implied = cfg.routing.implied_paths();
    if implied.is_none() && cfg.flows.iter().all(|f| f.paths.is_none()) {
        return Ok(FlowPaths::default());
    }
    check(cfg)?;
    // Explicit paths weigh parallel links by the routing's metric.
    let routing_metric = match cfg.routing {
        RoutingConfig::Static(StaticConfig { metric, .. }) => metric,
        _ if implied.is_some() => implied.as_ref().map_or(RouteMetric::Hops, |p| match p {
            PathsConfig::Disjoint { metric, .. } => *metric,
            PathsConfig::Explicit { .. } => RouteMetric::Hops,
        }),
        _ => RouteMetric::Hops,
    };
    // The weights of the weighted specs: one metric per scenario (FlowPaths resolves parallel
    // links with one weight vector).
    let mut weights: Option<(RouteMetric, Vec<f64>)> = None;
    let mut specs = Vec::new();
    // Per spec: the flow's index, and whether its paths were given (or found).
    let mut origin = Vec::new();
    for (i, f) in cfg.flows.iter().enumerate() {
        let Some(block) = f.paths.as_ref().or(implied.as_ref()) else {
            continue;
        };
        let at_least_one = f.paths.is_none();
        let p = format!("flows[{i}].paths");
        let (src, dst) = input.flow_ends[i];
        let pin_back = block.reverse() == ReverseConfig::Paths;
        let metric = match block {
            PathsConfig::Explicit { .. } => routing_metric,
            PathsConfig::Disjoint { metric, .. } => *metric,
        };
        if metric != RouteMetric::Hops {
            match &weights {
                Some((m, _)) if *m != metric => {
                    return Err(err(
                        format!("{p}.metric"),
                        format!(
                            "weighs links by {}, another flow's paths by {}; one metric per \
                             scenario",
                            metric_name(metric),
                            metric_name(*m)
                        ),
                    ))
                }
                Some(_) => {}
                None => weights = Some((metric, (input.edge_weights)(metric))),
            }
        }
        let paths = match block {
            PathsConfig::Explicit { paths, .. } => {
                let mut nodes = Vec::with_capacity(paths.len());
                for (j, path) in paths.iter().enumerate() {
                    nodes.push(explicit_path(&format!("{p}.paths[{j}]"), path, f, input)?);
                }
                nodes
            }
            PathsConfig::Disjoint { k, .. } => {
                let n = input.names.len();
                // A link too heavy for the search's exact arithmetic is no link at all.
                let weight = |e: usize| match &weights {
                    Some((_, w)) if metric != RouteMetric::Hops => {
                        if w[e] > MAX_DISJOINT_WEIGHT {
                            f64::INFINITY
                        } else {
                            w[e]
                        }
                    }
                    _ => 1.0,
                };
                let found = if at_least_one {
                    cfg.routing.implied_paths_between(
                        n,
                        input.edges,
                        &weight,
                        (src, dst),
                        *k as usize,
                        input.contend,
                    )
                } else {
                    node_disjoint_paths(n, input.edges, &weight, src, dst, *k as usize)
                };
                if found.is_empty() && at_least_one {
                    return Err(err(
                        format!("flows[{i}]"),
                        format!("no path from '{}' to '{}'", f.src, f.dst),
                    ));
                }
                if found.len() < *k as usize && !at_least_one {
                    let message = too_few_disjoint(*k as usize, found.len(), f, (src, dst), input);
                    return Err(err(format!("{p}.k"), message));
                }
                found.into_iter().map(|d| d.nodes).collect()
            }
        };
        let mut spec = FlowSpec::new(i as u32, paths, pin_back);
        spec.etx = metric != RouteMetric::Hops;
        specs.push(spec);
        origin.push((i, matches!(block, PathsConfig::Explicit { .. })));
    }
    let nodes = input.names.len();
    let flows = cfg.flows.len();
    let weights = weights.as_ref().map(|(_, w)| w.as_slice());
    FlowPaths::new(nodes, input.edges, weights, flows, &specs)
        .map_err(|m| missing_link(m, &specs, &origin, input))
}

/// Why a flow's `paths: {kind: disjoint, k}` block is refused when only `n` paths join its ends:
/// and, when the links below the delivery threshold made the difference, how many there are
/// counting every link.
fn too_few_disjoint(
    k: usize,
    n: usize,
    f: &FlowConfig,
    (src, dst): (NodeId, NodeId),
    input: &PathsInput<'_>,
) -> String {
    let mut message = format!(
        "asks for {k} node-disjoint paths; there {} only {n} from '{}' to '{}'",
        if n == 1 { "is" } else { "are" },
        f.src,
        f.dst
    );
    // Say so when the links below the delivery threshold made the difference.
    if let Some(threshold) = input.min_delivery {
        let all = (input.all_edges)();
        let more = node_disjoint_paths(input.names.len(), &all, &|_| 1.0, src, dst, k).len();
        if more > n {
            message.push_str(&format!(
                " over links that deliver at their data rate (routing.min_delivery \
                 {threshold}; {more} counting every link the receivers lock onto)"
            ));
        }
    }
    message
}

/// An explicit path's node ids, checked: known names, from the flow's source to its destination,
/// no node twice. `p` is the path's field path (`flows[0].paths.paths[1]`).
fn explicit_path(
    p: &str,
    path: &[String],
    f: &super::config::FlowConfig,
    input: &PathsInput<'_>,
) -> Result<Vec<NodeId>, ConfigError> {
    if path.len() < 2 {
        return Err(err(
            p,
            format!(
                "a path runs from the flow's source '{}' to its destination '{}': two nodes at \
                 least, got {}",
                f.src,
                f.dst,
                path.len()
            ),
        ));
    }
    let mut nodes = Vec::with_capacity(path.len());
    // Where each node is on the path (a path may be as long as the network: no quadratic search).
    let mut seen: BTreeMap<NodeId, usize> = BTreeMap::new();
    for (m, name) in path.iter().enumerate() {
        let at = format!("{p}[{m}]");
        let Some(&id) = input.ids.get(name.as_str()) else {
            return Err(err(at, format!("no node named '{name}'")));
        };
        if let Some(before) = seen.insert(id, m) {
            return Err(err(
                at,
                format!(
                    "'{name}' is on the path already (at [{before}]); a path visits each node once"
                ),
            ));
        }
        nodes.push(id);
    }
    let last = path.len() - 1;
    if path[0] != f.src {
        return Err(err(
            format!("{p}[0]"),
            format!("must be the flow's source '{}', got '{}'", f.src, path[0]),
        ));
    }
    if path[last] != f.dst {
        return Err(err(
            format!("{p}[{last}]"),
            format!(
                "must be the flow's destination '{}', got '{}'",
                f.dst, path[last]
            ),
        ));
    }
    Ok(nodes)
}

/// The error for a hop without a link: at the node it does not reach, for a path given in the
/// file; at the block's `reverse` for a path found (only a link back can be missing there). A
/// hop over a radio link below the routing's delivery threshold is refused with what the link
/// delivers: the path's packets are all pinned to it, so the flow would carry next to nothing.
fn missing_link(
    m: MissingLink,
    specs: &[FlowSpec],
    origin: &[(usize, bool)],
    input: &PathsInput<'_>,
) -> ConfigError {
    let names = input.names;
    let (i, explicit) = origin[m.spec];
    let nodes = &specs[m.spec].paths[m.path];
    let name = |v: NodeId| &names[v as usize];
    let (a, b) = (name(nodes[m.hop]), name(nodes[m.hop + 1]));
    let hop = (nodes[m.hop], nodes[m.hop + 1]);
    let weak = if m.back {
        (input.unusable)(hop.1, hop.0)
    } else {
        (input.unusable)(hop.0, hop.1)
    };
    let message = if let Some(why) = weak {
        if m.back {
            format!("on the way back (reverse: paths), {why}")
        } else {
            why
        }
    } else if m.back {
        format!(
            "no link back from '{b}' to '{a}': the flow's packets back follow its paths reversed \
             (reverse: routes routes them instead)"
        )
    } else {
        format!(
            "no link from '{a}' to '{b}' (consecutive nodes must be neighbours: a wired link, the \
             downlink, or radios in range)"
        )
    };
    if explicit {
        err(
            format!("flows[{i}].paths.paths[{}][{}]", m.path, m.hop + 1),
            message,
        )
    } else {
        let listed: Vec<&str> = nodes.iter().map(|&v| name(v).as_str()).collect();
        err(
            format!("flows[{i}].paths.reverse"),
            format!("on the path {}: {message}", listed.join(", ")),
        )
    }
}

/// A route metric's name in scenarios.
fn metric_name(metric: RouteMetric) -> &'static str {
    match metric {
        RouteMetric::Hops => "hops",
        RouteMetric::Etx => "etx",
        RouteMetric::Ett => "ett",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::build::build as build_world;
    use crate::scenario::config::AodvConfig;
    use serde_json::{json, Value};

    /// Wired A-B-E and A-C-D-E: two ways from A to E, the short one through B.
    fn wired(paths: Value) -> ScenarioConfig {
        let link =
            |a: &str, b: &str| json!({"from": a, "to": b, "rate": 10_000_000, "delay": 1_000_000});
        serde_json::from_value(json!({
            "name": "paths", "duration": 1_000_000_000u64, "seed": 1,
            "nodes": ["A", "B", "C", "D", "E", "F"],
            "links": [link("A", "B"), link("B", "E"), link("A", "C"), link("C", "D"),
                      link("D", "E"), link("E", "F")],
            "flows": [{"id": "f", "src": "A", "dst": "E", "app": {"kind": "bulk"},
                       "transport": {"kind": "tcp"}, "paths": paths}]
        }))
        .expect("valid scenario")
    }

    fn error(paths: Value) -> String {
        match build_world(&wired(paths)) {
            Ok(_) => panic!("builds"),
            Err(e) => e.to_string(),
        }
    }

    fn explicit(paths: Value) -> Value {
        json!({"kind": "explicit", "paths": paths})
    }

    #[test]
    fn explicit_paths_are_checked_node_by_node() {
        for (paths, expected) in [
            (
                json!([]),
                "flows[0].paths.paths: needs at least 1 entry, got none",
            ),
            (
                json!([["A"]]),
                "flows[0].paths.paths[0]: a path runs from the flow's source 'A' \
              to its destination 'E': two nodes at least, got 1",
            ),
            (
                json!([["A", "X", "E"]]),
                "flows[0].paths.paths[0][1]: no node named 'X'",
            ),
            (
                json!([["B", "E"]]),
                "flows[0].paths.paths[0][0]: must be the flow's source 'A', \
              got 'B'",
            ),
            (
                json!([["A", "B", "E", "F"]]),
                "flows[0].paths.paths[0][3]: must be the flow's \
              destination 'E', got 'F'",
            ),
            (
                json!([["A", "C", "A", "B", "E"]]),
                "flows[0].paths.paths[0][2]: 'A' is on the \
              path already (at [0]); a path visits each node once",
            ),
            (
                json!([["A", "B", "E"], ["A", "C", "E"]]),
                "flows[0].paths.paths[1][2]: no link \
              from 'C' to 'E' (consecutive nodes must be neighbours: a wired link, the downlink, \
              or radios in range)",
            ),
        ] {
            assert_eq!(error(explicit(paths)), expected);
        }
        let many: Vec<Value> = (0..256).map(|_| json!(["A", "B", "E"])).collect();
        assert_eq!(
            error(explicit(json!(many))),
            "flows[0].paths.paths: at most 255 entries, got 256"
        );
    }

    #[test]
    fn disjoint_paths_are_found_or_refused() {
        let world = build_world(&wired(json!({"kind": "disjoint", "k": 2}))).expect("builds");
        let nodes = |j: usize| {
            let ids = world.net.flow_paths.paths(0)[j].nodes().to_vec();
            ids.iter()
                .map(|&v| world.net.node_names[v as usize].clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(nodes(0), ["A", "B", "E"]);
        assert_eq!(nodes(1), ["A", "C", "D", "E"]);
        assert_eq!(
            error(json!({"kind": "disjoint", "k": 3})),
            "flows[0].paths.k: asks for 3 node-disjoint paths; there are only 2 from 'A' to 'E'"
        );
        assert_eq!(
            error(json!({"kind": "disjoint", "k": 0})),
            "flows[0].paths.k: must be between 1 and 255, got 0"
        );
        assert_eq!(
            error(json!({"kind": "disjoint", "k": 256})),
            "flows[0].paths.k: must be between 1 and 255, got 256"
        );
    }

    #[test]
    fn paths_need_static_routing() {
        let mut cfg = wired(explicit(json!([["A", "B", "E"]])));
        cfg.routing = RoutingConfig::Aodv(AodvConfig::default());
        assert_eq!(
            check(&cfg).unwrap_err().to_string(),
            "flows[0].paths: aodv finds its routes itself; flow paths are followed under static \
             routing"
        );
    }
}
