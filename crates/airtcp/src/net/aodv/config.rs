//! The `aodv` routing block: RFC 3561's route discovery on demand, with the choices where ns-2
//! and ns-3 differ (local repair, HELLOs) as options.

use serde::{Deserialize, Serialize};

use super::HelloParams;
use crate::error::ConfigError;
use crate::net::forwarding::{RoutingScheme, Surroundings};
use crate::net::on_demand::OnDemandRouting;
use crate::net::routing::default_min_delivery;
use crate::sim::{NodeId, Time};

/// AODV (RFC 3561).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AodvConfig {
    /// What a node does with a packet it must forward but has no route for (after a link
    /// break or a RERR): `true` buffers it and starts a discovery there (local repair in
    /// the manner of ns-2's AODV); `false` drops it and reports the destination unreachable
    /// with a RERR, RFC 3561 §6.11 case (ii) without the optional §6.12 repair (ns-3's AODV).
    #[serde(default = "default_true")]
    pub local_repair: bool,
    /// HELLO messages (RFC 3561 §6.9) and a neighbour table whose expired entries break
    /// links, as ns-3's AODV has them (`EnableHello`, on by default there as here); `false`:
    /// links are watched by the MAC alone (ns-2's default, and airtcp's before HELLOs).
    #[serde(default = "default_true")]
    pub hello: bool,
    /// HELLO_INTERVAL, ns (ns-3's `HelloInterval`, 1 s).
    #[serde(default = "default_hello_interval")]
    #[schemars(transform = crate::quantity::duration, range(min = 1))]
    pub hello_interval: Time,
    /// ALLOWED_HELLO_LOSS: HELLO intervals a neighbour may stay silent before its link is
    /// broken (ns-3's `AllowedHelloLoss`, 2).
    #[serde(default = "default_allowed_hello_loss")]
    #[schemars(range(min = 1))]
    pub allowed_hello_loss: u32,
    /// A node ignores control messages that reach it over a link below this delivery
    /// threshold (as `Static`'s), so that discovered routes consist of links that carry
    /// data; 0: every message is processed, as RFC 3561 (and ns-2, ns-3) do.
    #[serde(default = "default_min_delivery")]
    #[schemars(transform = crate::quantity::probability)]
    #[schemars(extend("x-omit-default" = true))]
    pub min_delivery: f64,
}

impl Default for AodvConfig {
    fn default() -> Self {
        AodvConfig {
            local_repair: true,
            hello: true,
            hello_interval: default_hello_interval(),
            allowed_hello_loss: default_allowed_hello_loss(),
            min_delivery: default_min_delivery(),
        }
    }
}

impl RoutingScheme for AodvConfig {
    /// Its own values, and that it routes over radios only (checked even with HELLOs off, so
    /// that switching them on cannot reveal a bad value).
    fn check(&self, around: &Surroundings) -> Result<(), ConfigError> {
        if self.hello_interval == 0 {
            return Err(ConfigError::new(
                "routing.hello_interval",
                "must be greater than zero",
            ));
        }
        if self.allowed_hello_loss == 0 {
            return Err(ConfigError::new(
                "routing.allowed_hello_loss",
                "must be at least 1 (a neighbour's entry would expire as it is made)",
            ));
        }
        for (present, what) in [
            (around.wired_links, "wired links"),
            (around.downlink, "a downlink"),
            (around.routers, "routers"),
        ] {
            if present {
                return Err(ConfigError::new(
                    "routing.kind",
                    format!("aodv routes over radios only; this scenario has {what} (use static)"),
                ));
            }
        }
        Ok(())
    }

    /// AODV, hearing control messages only over usable links when routes obey a delivery
    /// threshold.
    fn on_demand(
        &self,
        nodes: usize,
        seed: u64,
        senders: Option<&dyn Fn() -> Vec<Vec<NodeId>>>,
    ) -> Option<OnDemandRouting> {
        let hello = self.hello.then_some(HelloParams {
            interval: self.hello_interval,
            allowed_loss: self.allowed_hello_loss,
        });
        let mut routing = OnDemandRouting::new(nodes, seed, self.local_repair, hello);
        if let Some(senders) = senders {
            routing.hear_only(senders());
        }
        Some(routing)
    }

    fn min_delivery(&self) -> Option<f64> {
        Some(self.min_delivery)
    }

    fn ignores_flow_paths(&self) -> Option<&'static str> {
        Some("aodv finds its routes itself; flow paths are followed under static routing")
    }
}

fn default_true() -> bool {
    true
}

fn default_hello_interval() -> Time {
    1_000_000_000
}

fn default_allowed_hello_loss() -> u32 {
    2
}
