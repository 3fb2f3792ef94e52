//! A slotted simulator of paper 000 §2-3's idealised network: per-flow queues, i.i.d. ON/OFF
//! links, backpressure routing and max-weight inter-node scheduling over a conflict graph. It is
//! the testbed for the paper's Theorem 1 (TCP-aware backpressure keeps the queues stable inside the
//! stability region) and Theorem 2 (with the flow controller of eq. (5) the admitted rates approach
//! the utility optimum as `M` grows), and for NUM baselines.
//!
//! One slot `t`, in this order (all decisions from the state `U(t)` at the start of the slot):
//! 1. Channel states `C_l(t)` are drawn (§2; i.i.d. per link, [`super::ChannelStates`]).
//! 2. Routing and intra-node scheduling, eqs. (2)-(4): for every ON link `l = (i, j)` and flow
//!    `s`, `D_l^s(t) = max{K, U_i^s(t)} - U_j^s(t)` (TCP-aware, eq. (2)) or
//!    `U_i^s(t) - U_j^s(t)` (classical; the same with `K = 0`), with `U_j^s = 0` at the flow's
//!    destination; `D*_l = max_s D_l^s`, `s*_l` its argmax (eqs. (3), (4); ties: lowest flow
//!    index). A flow is not routed out of its own destination (it has no queue there), nor over
//!    links outside its [`SlottedFlow::allowed_links`] (default: all links).
//! 3. Inter-node scheduling (§3): a set of non-conflicting links maximising
//!    `Σ_l D*_l(t) f_l(t)` with `f_l = R_l`, i.e. link weights `D*_l R_l`, only for ON links with
//!    `D*_l > 0` ([`super::max_weight`]).
//! 4. Flow control, eq. (5), for controlled flows ([`super::flow_control`]) and exogenous
//!    arrivals `A_s(t)` (Bernoulli or Poisson, i.i.d. over slots, `E[A_s] = λ_s`) for the others.
//! 5. Queue update, eq. (1): every scheduled link moves `min(R_l, what is left of U_i^{s*})`
//!    packets of `s*_l` from `U_i` to `U_j` (delivered if `j` is the destination); then the
//!    admitted and arriving packets join `U_{o(s)}^s`. Packets move at most one hop per slot.
//!
//! Deviations and choices, all documented in `docs/conflict_graph.md`:
//! - Queues are real-valued, so eq. (5)'s real `x_s(t)` is admitted exactly; with exogenous
//!   arrivals only (integers) and integer capacities they stay integers.
//! - Controlled flows are saturated sources: eq. (5) decides how much enters `U_{o(s)}^s` and the
//!   source always has that much (Neely et al. 2008 add a transport reservoir; the paper does not).
//! - As eq. (3) says, `s*_l` may be a flow whose queue at `i` is empty (its `D` is `K - U_j`); the
//!   link is then scheduled and carries nothing, which Theorem 1's slack `Z = |L||S|K F_max`
//!   allows. [`SlottedConfig::backlogged_only`] restricts eq. (3) to non-empty queues instead.
//! - One constant `R^max` for every node in eq. (5).
//!
//! Random streams: channel `conflict_graph/link/<l>/channel`, arrivals
//! `conflict_graph/flow/<s>/arrivals`. No allocation per slot (apart from the optional backlog
//! trace growing).

use serde::{Deserialize, Serialize};

use super::flow_control::{self, Utility};
use super::max_weight::{Greedy, LinkScheduler, MaxWeight};
use super::{ChannelStates, ConflictGraph, Link};
use crate::error::ConfigError;
use crate::sim::memory::{MemoryBudget, DEFAULT_MEMORY_BYTES};
use crate::sim::{NodeId, Rng};

/// How interference is given.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Conflicts {
    /// Links conflict iff they share a node ([`ConflictGraph::node_exclusive`]).
    NodeExclusive,
    /// Protocol model with a fixed interference range ([`ConflictGraph::protocol_model`]).
    Protocol {
        /// `(x, y)` of every node, indexed by node id.
        positions: Vec<(f64, f64)>,
        /// Interference range, same unit as the positions.
        interference_range: f64,
    },
    /// Exactly these pairs of link indices conflict ([`ConflictGraph::from_pairs`]); node
    /// sharing is not added.
    Explicit {
        /// Conflicting pairs.
        pairs: Vec<(usize, usize)>,
    },
}

/// How packets enter a flow at its source.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum FlowSource {
    /// One packet with probability `lambda` per slot (`0 <= lambda <= 1`).
    Bernoulli {
        /// Mean arrivals per slot.
        lambda: f64,
    },
    /// A Poisson number of packets per slot with mean `lambda`.
    Poisson {
        /// Mean arrivals per slot.
        lambda: f64,
    },
    /// Saturated source admitted by the flow controller of eq. (5) with this utility (needs
    /// [`SlottedConfig::flow_control`]).
    Controlled {
        /// The flow's `g_s`.
        utility: Utility,
    },
}

/// A unicast flow `s` from `o(s) = src` to `dst`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SlottedFlow {
    /// Source node `o(s)`.
    pub src: NodeId,
    /// Destination node.
    pub dst: NodeId,
    /// Arrival process or flow control.
    pub source: FlowSource,
    /// Links the flow may use (indices into [`SlottedConfig::links`]), e.g. one fixed path for a
    /// single-path baseline; `None` (default): every link, as in backpressure routing.
    #[serde(default)]
    pub allowed_links: Option<Vec<usize>>,
}

/// The queue backlog differential used for routing.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Differential {
    /// Classical backpressure (Tassiulas & Ephremides 1992): `D = U_i - U_j`.
    Classical,
    /// TCP-aware backpressure, paper 000 eq. (2): `D = max{K, U_i} - U_j`.
    TcpAware {
        /// `K >= 0` (§4.1.4 suggests `B_i / |S_i|`).
        k: f64,
    },
}

impl Differential {
    /// `D_{i,j}^s` for backlogs `u_i` at the transmitter and `u_j` at the receiver.
    pub fn apply(&self, u_i: f64, u_j: f64) -> f64 {
        match *self {
            Differential::Classical => u_i - u_j,
            Differential::TcpAware { k } => k.max(u_i) - u_j,
        }
    }
}

/// Parameters of eq. (5).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowControl {
    /// `M > 0`: larger is closer to the utility optimum, with larger queues.
    pub m: f64,
    /// `R^max > 0`, admitted per node per slot at most; the paper asks for more than the node's
    /// largest outgoing rate.
    pub r_max: f64,
}

/// Inter-node scheduler.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum SchedulerKind {
    /// [`MaxWeight`]: exact up to `exact_limit` candidate links (capped at 64), greedy beyond.
    MaxWeight {
        /// See [`MaxWeight::exact_limit`].
        exact_limit: usize,
        /// See [`MaxWeight::node_budget`].
        node_budget: u64,
    },
    /// [`Greedy`] maximal independent set, heaviest first.
    Greedy,
}

impl Default for SchedulerKind {
    fn default() -> Self {
        let d = MaxWeight::default();
        SchedulerKind::MaxWeight {
            exact_limit: d.exact_limit,
            node_budget: d.node_budget,
        }
    }
}

/// A run of the slotted model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SlottedConfig {
    /// Number of nodes `N`; node ids are `0..N`.
    pub num_nodes: usize,
    /// Directed links with capacities and ON probabilities.
    pub links: Vec<Link>,
    /// Interference.
    pub conflicts: Conflicts,
    /// Flows.
    pub flows: Vec<SlottedFlow>,
    /// Classical or TCP-aware backpressure.
    pub differential: Differential,
    /// Eq. (5) parameters; required if any flow is [`FlowSource::Controlled`].
    #[serde(default)]
    pub flow_control: Option<FlowControl>,
    /// Restrict eq. (3)'s max to flows with packets at the transmitter (not in the paper).
    #[serde(default)]
    pub backlogged_only: bool,
    /// Inter-node scheduler.
    #[serde(default)]
    pub scheduler: SchedulerKind,
    /// Slots to run, `T`.
    pub slots: u64,
    /// Master seed of the random streams.
    pub seed: u64,
    /// Record the total backlog every this many slots (0: no trace).
    #[serde(default)]
    pub trace_every: u64,
}

/// What a run reports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SlottedResults {
    /// Slots run.
    pub slots: u64,
    /// Time-average total backlog `(1/T) Σ_{t=1..T} Σ_{i,s} U_i^s(t)` (after each slot).
    pub mean_backlog: f64,
    /// Total backlog after the last slot.
    pub final_backlog: f64,
    /// Packets admitted per flow (arrivals or eq. (5)).
    pub admitted: Vec<f64>,
    /// Packets delivered per flow.
    pub delivered: Vec<f64>,
    /// Slots in which each link was scheduled.
    pub link_active_slots: Vec<u64>,
    /// Packets each link carried.
    pub link_packets: Vec<f64>,
    /// Slots whose schedule is not proven maximum-weight (greedy fallback or node budget).
    pub inexact_slots: u64,
    /// `(slot, total backlog after it)` every `trace_every` slots.
    pub backlog_trace: Vec<(u64, f64)>,
    /// Time-average queue of each node for each flow, `U_i^s` averaged like `mean_backlog`,
    /// node-major (`[i * flows + s]`).
    pub mean_queues: Vec<f64>,
}

const NO_FLOW: u32 = u32::MAX;

/// The slotted simulator's state. Build with [`SlottedSim::new`], advance with
/// [`step`](Self::step) or [`run`](Self::run), read [`results`](Self::results).
pub struct SlottedSim {
    links: Vec<Link>,
    flows: Vec<SlottedFlow>,
    differential: Differential,
    flow_control: Option<FlowControl>,
    backlogged_only: bool,
    graph: ConflictGraph,
    channels: ChannelStates,
    scheduler: Box<dyn LinkScheduler>,
    arrival_rngs: Vec<Rng>,
    /// `U_i^s` at `i * S + s`.
    queues: Vec<f64>,
    /// Whether flow `s` may use link `l`, at `l * S + s`.
    allowed: Vec<bool>,
    /// Controlled flows grouped by source node, for eq. (5).
    controlled_groups: Vec<Vec<u32>>,
    trace_every: u64,
    /// The slot after which the next trace point is taken (`u64::MAX`: never).
    next_trace: u64,
    // Per-slot scratch.
    weights: Vec<f64>,
    best_flow: Vec<u32>,
    schedule: Vec<usize>,
    moved: Vec<f64>,
    arrivals: Vec<f64>,
    fc_utilities: Vec<Utility>,
    fc_backlogs: Vec<f64>,
    fc_admit: Vec<f64>,
    // Statistics.
    slot: u64,
    backlog_sum: f64,
    /// Per queue, the sum over slots of its size after each slot.
    queue_sums: Vec<f64>,
    total_backlog: f64,
    admitted: Vec<f64>,
    delivered: Vec<f64>,
    link_active_slots: Vec<u64>,
    link_packets: Vec<f64>,
    inexact_slots: u64,
    backlog_trace: Vec<(u64, f64)>,
}

fn err(path: impl Into<String>, message: impl Into<String>) -> ConfigError {
    ConfigError::new(path, message)
}

fn validate(cfg: &SlottedConfig) -> Result<(), ConfigError> {
    charge_memory(cfg)?;
    let n = cfg.num_nodes;
    for (i, l) in cfg.links.iter().enumerate() {
        if l.from as usize >= n || l.to as usize >= n {
            return Err(err(
                format!("links[{i}]"),
                format!("node out of range (N = {n})"),
            ));
        }
        if l.from == l.to {
            return Err(err(
                format!("links[{i}].to"),
                "a link needs two distinct nodes",
            ));
        }
        if !(0.0..=1.0).contains(&l.p_on) {
            return Err(err(format!("links[{i}].p_on"), "must be in [0, 1]"));
        }
    }
    match &cfg.conflicts {
        Conflicts::NodeExclusive => {}
        Conflicts::Protocol {
            positions,
            interference_range,
        } => {
            if positions.len() != n {
                return Err(err(
                    "conflicts.positions",
                    format!("{} positions for {n} nodes", positions.len()),
                ));
            }
            if !(interference_range.is_finite() && *interference_range >= 0.0) {
                return Err(err(
                    "conflicts.interference_range",
                    "must be finite and >= 0",
                ));
            }
        }
        Conflicts::Explicit { pairs } => {
            for (k, &(a, b)) in pairs.iter().enumerate() {
                if a >= cfg.links.len() || b >= cfg.links.len() || a == b {
                    return Err(err(
                        format!("conflicts.pairs[{k}]"),
                        "needs two distinct link indices in range",
                    ));
                }
            }
        }
    }
    for (s, f) in cfg.flows.iter().enumerate() {
        if f.src as usize >= n || f.dst as usize >= n || f.src == f.dst {
            return Err(err(
                format!("flows[{s}]"),
                "src and dst must be distinct nodes in range",
            ));
        }
        if let Some(allowed) = &f.allowed_links {
            if let Some(k) = allowed.iter().position(|&l| l >= cfg.links.len()) {
                return Err(err(
                    format!("flows[{s}].allowed_links[{k}]"),
                    "link index out of range",
                ));
            }
        }
        match f.source {
            FlowSource::Bernoulli { lambda } if !(0.0..=1.0).contains(&lambda) => {
                return Err(err(
                    format!("flows[{s}].source.lambda"),
                    "must be in [0, 1]",
                ));
            }
            FlowSource::Poisson { lambda } if !(lambda.is_finite() && lambda >= 0.0) => {
                return Err(err(
                    format!("flows[{s}].source.lambda"),
                    "must be finite and >= 0",
                ));
            }
            FlowSource::Controlled { utility } => {
                if !utility.is_valid() {
                    return Err(err(
                        format!("flows[{s}].source.utility"),
                        "parameters must be positive and finite",
                    ));
                }
                if cfg.flow_control.is_none() {
                    return Err(err("flow_control", "required by controlled flows"));
                }
            }
            _ => {}
        }
    }
    if let Some(fc) = cfg.flow_control {
        let pos = |v: f64| v.is_finite() && v > 0.0;
        if !pos(fc.m) {
            return Err(err("flow_control.m", "must be positive and finite"));
        }
        if !pos(fc.r_max) {
            return Err(err("flow_control.r_max", "must be positive and finite"));
        }
    }
    if let Differential::TcpAware { k } = cfg.differential {
        if !(k.is_finite() && k >= 0.0) {
            return Err(err("differential.k", "must be finite and >= 0"));
        }
    }
    Ok(())
}

/// Poisson variate by Knuth's product of uniforms, in chunks of mean <= 30 so `e^-mean` stays
/// representable (a sum of independent Poissons is Poisson).
fn poisson(rng: &mut Rng, mut mean: f64) -> f64 {
    let mut count = 0u64;
    while mean > 0.0 {
        let chunk = mean.min(30.0);
        mean -= chunk;
        let limit = (-chunk).exp();
        let mut p = rng.uniform();
        while p > limit {
            count += 1;
            p *= rng.uniform();
        }
    }
    count as f64
}

/// Refuses a model whose tables would exceed the default memory budget of a run
/// ([`DEFAULT_MEMORY_BYTES`]): per node a queue per flow and its running sum, the conflict graph's bit matrix (links
/// squared), the links each flow may use, and the backlog trace.
fn charge_memory(cfg: &SlottedConfig) -> Result<(), ConfigError> {
    let (n, nl, nf) = (
        cfg.num_nodes as u64,
        cfg.links.len() as u64,
        cfg.flows.len() as u64,
    );
    let mut budget = MemoryBudget::new(DEFAULT_MEMORY_BYTES);
    budget.charge(
        "num_nodes",
        "per-node queue entries",
        n.saturating_mul(2 * nf + 1),
        8,
    )?;
    budget.charge("links", "conflict graph bits", nl.saturating_mul(nl) / 8, 1)?;
    budget.charge("flows", "flow-link permissions", nl.saturating_mul(nf), 1)?;
    if let Some(samples) = cfg.slots.checked_div(cfg.trace_every) {
        budget.charge("trace_every", "backlog samples", samples, 16)?;
    }
    Ok(())
}

impl SlottedSim {
    /// Validates `cfg` and builds the simulator with the configured scheduler.
    pub fn new(cfg: &SlottedConfig) -> Result<Self, ConfigError> {
        let scheduler: Box<dyn LinkScheduler> = match cfg.scheduler {
            SchedulerKind::MaxWeight {
                exact_limit,
                node_budget,
            } => Box::new(MaxWeight::with_limits(exact_limit, node_budget)),
            SchedulerKind::Greedy => Box::new(Greedy::default()),
        };
        Self::with_scheduler(cfg, scheduler)
    }

    /// Like [`new`](Self::new) but with a caller-supplied inter-node scheduler (for baselines);
    /// `cfg.scheduler` is ignored.
    pub fn with_scheduler(
        cfg: &SlottedConfig,
        scheduler: Box<dyn LinkScheduler>,
    ) -> Result<Self, ConfigError> {
        validate(cfg)?;
        let ends: Vec<(NodeId, NodeId)> = cfg.links.iter().map(|l| (l.from, l.to)).collect();
        let graph = match &cfg.conflicts {
            Conflicts::NodeExclusive => ConflictGraph::node_exclusive(&ends),
            Conflicts::Protocol {
                positions,
                interference_range,
            } => ConflictGraph::protocol_model(&ends, positions, *interference_range),
            Conflicts::Explicit { pairs } => ConflictGraph::from_pairs(cfg.links.len(), pairs),
        };
        let p_on: Vec<f64> = cfg.links.iter().map(|l| l.p_on).collect();
        let (nl, nf) = (cfg.links.len(), cfg.flows.len());
        let mut controlled_groups: Vec<Vec<u32>> = Vec::new();
        let mut group_of_node = vec![usize::MAX; cfg.num_nodes];
        for (s, f) in cfg.flows.iter().enumerate() {
            if let FlowSource::Controlled { .. } = f.source {
                let g = &mut group_of_node[f.src as usize];
                if *g == usize::MAX {
                    *g = controlled_groups.len();
                    controlled_groups.push(Vec::new());
                }
                controlled_groups[*g].push(s as u32);
            }
        }
        let widest = controlled_groups.iter().map(Vec::len).max().unwrap_or(0);
        let mut allowed = vec![true; nl * nf];
        for (s, f) in cfg.flows.iter().enumerate() {
            if let Some(list) = &f.allowed_links {
                for l in 0..nl {
                    allowed[l * nf + s] = list.contains(&l);
                }
            }
        }
        Ok(SlottedSim {
            links: cfg.links.clone(),
            flows: cfg.flows.clone(),
            differential: cfg.differential,
            flow_control: cfg.flow_control,
            backlogged_only: cfg.backlogged_only,
            graph,
            channels: ChannelStates::new(cfg.seed, &p_on),
            scheduler,
            arrival_rngs: (0..nf)
                .map(|s| Rng::stream(cfg.seed, &format!("conflict_graph/flow/{s}/arrivals")))
                .collect(),
            queues: vec![0.0; cfg.num_nodes * nf],
            allowed,
            controlled_groups,
            trace_every: cfg.trace_every,
            next_trace: if cfg.trace_every == 0 {
                u64::MAX
            } else {
                cfg.trace_every
            },
            weights: vec![0.0; nl],
            best_flow: vec![NO_FLOW; nl],
            schedule: Vec::with_capacity(nl),
            moved: vec![0.0; nl],
            arrivals: vec![0.0; nf],
            fc_utilities: Vec::with_capacity(widest),
            fc_backlogs: Vec::with_capacity(widest),
            fc_admit: vec![0.0; widest],
            slot: 0,
            backlog_sum: 0.0,
            queue_sums: vec![0.0; cfg.num_nodes * nf],
            total_backlog: 0.0,
            admitted: vec![0.0; nf],
            delivered: vec![0.0; nf],
            link_active_slots: vec![0; nl],
            link_packets: vec![0.0; nl],
            inexact_slots: 0,
            backlog_trace: Vec::new(),
        })
    }

    /// Runs one slot (see the module doc for the order of operations).
    pub fn step(&mut self) {
        let nf = self.flows.len();
        let on = self.channels.sample();

        // Eqs. (2)-(4): best flow and weight D*_l R_l per link, from U(t).
        for (l, link) in self.links.iter().enumerate() {
            self.weights[l] = 0.0;
            self.best_flow[l] = NO_FLOW;
            if !on[l] || link.capacity == 0 {
                continue;
            }
            let (i, j) = (link.from as usize, link.to as usize);
            // D* must be > 0 to transmit; strict `>` keeps the lowest flow index on ties.
            let mut best = 0.0;
            for (s, f) in self.flows.iter().enumerate() {
                if f.dst as usize == i || !self.allowed[l * nf + s] {
                    continue;
                }
                let u_i = self.queues[i * nf + s];
                if self.backlogged_only && u_i <= 0.0 {
                    continue;
                }
                let u_j = if f.dst as usize == j {
                    0.0
                } else {
                    self.queues[j * nf + s]
                };
                let d = self.differential.apply(u_i, u_j);
                if d > best {
                    best = d;
                    self.best_flow[l] = s as u32;
                }
            }
            self.weights[l] = best * link.capacity as f64;
        }

        // Inter-node scheduling: max Σ D*_l f_l over independent sets of ON links.
        self.scheduler
            .schedule(&self.graph, &self.weights, &mut self.schedule);
        if !self.scheduler.last_exact() && !self.schedule.is_empty() {
            self.inexact_slots += 1;
        }

        // Eq. (5) and exogenous arrivals, decided from U(t) before any queue changes.
        for (s, f) in self.flows.iter().enumerate() {
            self.arrivals[s] = match f.source {
                FlowSource::Bernoulli { lambda } => {
                    self.arrival_rngs[s].bernoulli(lambda) as u8 as f64
                }
                FlowSource::Poisson { lambda } => poisson(&mut self.arrival_rngs[s], lambda),
                FlowSource::Controlled { .. } => 0.0,
            };
        }
        if let Some(fc) = self.flow_control {
            for group in &self.controlled_groups {
                self.fc_utilities.clear();
                self.fc_backlogs.clear();
                for &s in group {
                    let f = &self.flows[s as usize];
                    if let FlowSource::Controlled { utility } = f.source {
                        self.fc_utilities.push(utility);
                    }
                    self.fc_backlogs
                        .push(self.queues[f.src as usize * nf + s as usize]);
                }
                let k = group.len();
                flow_control::admit(
                    fc.m,
                    fc.r_max,
                    &self.fc_utilities,
                    &self.fc_backlogs,
                    &mut self.fc_admit[..k],
                );
                for (&s, &x) in group.iter().zip(&self.fc_admit) {
                    self.arrivals[s as usize] = x;
                }
            }
        }

        // Eq. (1): departures from U(t) first, then arrivals from neighbours and sources.
        for &l in &self.schedule {
            let s = self.best_flow[l] as usize;
            let link = self.links[l];
            let q = &mut self.queues[link.from as usize * nf + s];
            let amount = (link.capacity as f64).min(*q);
            *q -= amount;
            self.moved[l] = amount;
            self.link_active_slots[l] += 1;
            self.link_packets[l] += amount;
        }
        for &l in &self.schedule {
            let s = self.best_flow[l] as usize;
            let to = self.links[l].to;
            if to == self.flows[s].dst {
                self.delivered[s] += self.moved[l];
            } else {
                self.queues[to as usize * nf + s] += self.moved[l];
            }
        }
        for (s, f) in self.flows.iter().enumerate() {
            self.queues[f.src as usize * nf + s] += self.arrivals[s];
            self.admitted[s] += self.arrivals[s];
        }

        self.slot += 1;
        self.total_backlog = self.queues.iter().sum();
        self.backlog_sum += self.total_backlog;
        for (sum, q) in self.queue_sums.iter_mut().zip(&self.queues) {
            *sum += q;
        }
        if self.slot == self.next_trace {
            self.backlog_trace.push((self.slot, self.total_backlog));
            self.next_trace = self.next_trace.saturating_add(self.trace_every);
        }
    }

    /// Runs `slots` more slots.
    pub fn run(&mut self, slots: u64) {
        for _ in 0..slots {
            self.step();
        }
    }

    /// Slots run so far.
    pub fn slot(&self) -> u64 {
        self.slot
    }

    /// `U_node^flow` now.
    pub fn backlog(&self, node: NodeId, flow: usize) -> f64 {
        self.queues[node as usize * self.flows.len() + flow]
    }

    /// `Σ_{i,s} U_i^s` now.
    pub fn total_backlog(&self) -> f64 {
        self.total_backlog
    }

    /// The conflict graph in use.
    pub fn conflict_graph(&self) -> &ConflictGraph {
        &self.graph
    }

    /// The links scheduled in the last slot (ascending) and the flow each served.
    pub fn last_schedule(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.schedule
            .iter()
            .map(|&l| (l, self.best_flow[l] as usize))
    }

    /// Statistics so far.
    pub fn results(&self) -> SlottedResults {
        SlottedResults {
            slots: self.slot,
            mean_backlog: if self.slot == 0 {
                0.0
            } else {
                self.backlog_sum / self.slot as f64
            },
            final_backlog: self.total_backlog,
            admitted: self.admitted.clone(),
            delivered: self.delivered.clone(),
            link_active_slots: self.link_active_slots.clone(),
            link_packets: self.link_packets.clone(),
            inexact_slots: self.inexact_slots,
            backlog_trace: self.backlog_trace.clone(),
            mean_queues: self
                .queue_sums
                .iter()
                .map(|q| {
                    if self.slot == 0 {
                        0.0
                    } else {
                        q / self.slot as f64
                    }
                })
                .collect(),
        }
    }
}

/// Builds a [`SlottedSim`] from `cfg`, runs `cfg.slots` slots and returns the results.
pub fn run_slotted(cfg: &SlottedConfig) -> Result<SlottedResults, ConfigError> {
    let mut sim = SlottedSim::new(cfg)?;
    sim.run(cfg.slots);
    Ok(sim.results())
}

#[cfg(test)]
mod tests;
