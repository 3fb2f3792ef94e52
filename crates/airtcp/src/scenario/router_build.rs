//! Building the routers of a scenario (`routers`): the routers, their ports and users' channels,
//! each user's wired uplink, and the priority pairs a router asks for.

use super::config::ScenarioConfig;
use super::routers::RouterPairsSetup;
use crate::error::ConfigError;
use crate::link::loss::LossProcess;
use crate::link::{Channel, ChannelStats};
use crate::net::router::{Port, RouterUser, Routers, WirelessRouter};
use crate::net::routing::{Edge, Iface};
use crate::sim::{NodeId, Rng};

fn err(path: String, message: impl Into<String>) -> ConfigError {
    ConfigError {
        path,
        message: message.into(),
    }
}

/// What [`build`] makes.
#[derive(Default)]
pub struct BuiltRouters {
    /// The routers and their ports.
    pub routers: Routers,
    /// Each port's edge (router -> user), for routing.
    pub edges: Vec<Edge>,
    /// The pairs the routers asked for (empty: no router has pairs).
    pub pairs: Vec<RouterPairsSetup>,
}

/// Builds `cfg.routers`, appending each user's uplink to `channels`.
pub fn build(
    cfg: &ScenarioConfig,
    names: &[String],
    node: &dyn Fn(String, &str) -> Result<NodeId, ConfigError>,
    channels: &mut Vec<Channel>,
) -> Result<BuiltRouters, ConfigError> {
    let mut out = BuiltRouters::default();
    let mut router_nodes: Vec<NodeId> = Vec::new();
    for (r, rc) in cfg.routers.iter().enumerate() {
        let p = |field: &str| format!("routers[{r}].{field}");
        let at = node(p("node"), &rc.node)?;
        if let Some(j) = router_nodes.iter().position(|&n| n == at) {
            return Err(err(
                p("node"),
                format!("'{}' is already routers[{j}]", rc.node),
            ));
        }
        if cfg
            .downlink
            .as_ref()
            .is_some_and(|d| d.base_station == rc.node)
        {
            return Err(err(p("node"), "the node is the downlink's base station"));
        }
        router_nodes.push(at);
        if rc.rate == 0 {
            return Err(err(p("rate"), "must be greater than zero"));
        }
        if rc.uplink_rate == 0 {
            return Err(err(p("uplink_rate"), "must be greater than zero"));
        }
        rc.queue.check(&p("queue"))?;
        if rc.users.is_empty() {
            return Err(err(p("users"), "a router needs at least one user"));
        }
        let mut users = Vec::with_capacity(rc.users.len());
        let mut capacity = Vec::with_capacity(rc.users.len());
        for (u, uc) in rc.users.iter().enumerate() {
            let up = |field: &str| format!("routers[{r}].users[{u}].{field}");
            let n = node(up("node"), &uc.node)?;
            if n == at {
                return Err(err(up("node"), "a router cannot be one of its own users"));
            }
            if let Some(j) = users.iter().position(|x: &RouterUser| x.node == n) {
                return Err(err(
                    up("node"),
                    format!("'{}' is already routers[{r}].users[{j}]", uc.node),
                ));
            }
            let channel = match &uc.channel {
                Some(c) => {
                    c.check(&up("channel"))?;
                    let stream = format!("routers/{r}/users/{u}/channel");
                    Some(c.erasure(Rng::stream(cfg.seed, &stream)))
                }
                None => None,
            };
            if let Some(pair) = rc.pair_capacity(r, u)? {
                capacity.push(pair);
            }
            users.push(RouterUser {
                node: n,
                channel,
                stats: Default::default(),
            });
            out.edges.push(Edge {
                from: at,
                to: n,
                iface: Iface::Router(out.routers.ports.len() as u32),
            });
            out.routers.ports.push(Port {
                router: r as u32,
                user: u as u32,
            });
            channels.push(Channel {
                name: format!("uplink {}->{}", names[n as usize], names[at as usize]),
                from: n,
                to: at,
                rate_bps: rc.uplink_rate,
                delay: rc.uplink_delay,
                queue: rc.queue.build(None),
                busy: false,
                loss: LossProcess::None,
                stats: ChannelStats::default(),
            });
        }
        let user_nodes = users.iter().map(|u| u.node).collect();
        if let Some(setup) = rc.pairs_setup(r, at, capacity, user_nodes)? {
            out.pairs.push(setup);
        }
        out.routers.list.push(WirelessRouter::new(
            at,
            rc.rate,
            users,
            rc.queue.build(None),
            names,
        ));
    }
    Ok(out)
}
