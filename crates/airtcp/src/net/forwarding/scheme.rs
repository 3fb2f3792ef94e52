//! What a `routing:` block brings to a run, registered in one place: each block's config type
//! implements [`RoutingScheme`] beside its own code (static routes in `net/routing.rs`, AODV in
//! `net/aodv/config.rs`, backpressure and Horizon in their `setup.rs`), and the scenario's
//! routing block (`scenario::config::RoutingConfig::scheme`) names each variant's once.
//!
//! The methods have the plain answers as defaults (no checks of its own, routes followed, flows'
//! paths followed, store-and-forward), so a scheme says only where it differs.

use super::{Fifo, Forwarding, LayerSetup, Surroundings};
use crate::error::ConfigError;
use crate::net::on_demand::OnDemandRouting;
use crate::net::routing::RouteMetric;
use crate::sim::NodeId;

/// A routing block's part in a run: its checks, the links it routes over, the paths it gives
/// flows, and the forwarding layer it runs.
pub trait RoutingScheme {
    /// The block's own checks and what it needs of the scenario around it, with the paths of
    /// `routing.<field>`.
    fn check(&self, _around: &Surroundings) -> Result<(), ConfigError> {
        Ok(())
    }

    /// The delivery threshold of the links it routes over (`scenario::usable_links`); `None`:
    /// every link the receiver locks onto (backpressure, which measures each link's loss).
    fn min_delivery(&self) -> Option<f64>;

    /// The node-disjoint paths a flow without a `paths` block follows under it, as (how many,
    /// weighed by what); `None`: such a flow is routed.
    fn implied_paths(&self) -> Option<(u32, RouteMetric)> {
        None
    }

    /// Why flows cannot have paths of their own under it (its routes or choices are its own),
    /// if they cannot.
    fn ignores_flow_paths(&self) -> Option<&'static str> {
        None
    }

    /// The on-demand routing protocol it runs instead of static routes, if it does, for `nodes`
    /// nodes and the run's `seed`; `senders` gives each node's neighbours over links above the
    /// delivery threshold, whose control messages alone it then hears (`None`: no threshold).
    fn on_demand(
        &self,
        _nodes: usize,
        _seed: u64,
        _senders: Option<&dyn Fn() -> Vec<Vec<NodeId>>>,
    ) -> Option<OnDemandRouting> {
        None
    }

    /// The forwarding layer it runs in the checked scenario.
    fn layer(&self, _around: &Surroundings, _setup: &LayerSetup<'_>) -> Box<dyn Forwarding> {
        Box::new(Fifo)
    }
}
