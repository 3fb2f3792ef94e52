//! The scenario's `coding:` block: inter-session network coding at the relays (paper 001; COPE,
//! Katti et al., IEEE/ACM ToN 16(3), 2008), its checks, and the mapping onto the layer's
//! [`CopeParams`]. The layer itself is `net::forwarding::cope` (docs/cope.md); the block's
//! defaults are [`CopeParams::default`]'s.

use serde::{Deserialize, Serialize};

use super::config::{Nanos, QueueConfig, RoutingConfig, ScenarioConfig};
use crate::error::ConfigError;
use crate::net::forwarding::cope::{CopeParams, KnowledgeModel, QueueKind, Recovery, Scheme};

/// Inter-session coding at the relays (the scenario's `coding:` block). Every field has a
/// default, so `coding: {}` asks for COPE as the paper runs it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CodingConfig {
    /// The coding scheme: `cope` (one-hop codes) or `bfly` (two-hop pairs first, then COPE's).
    #[serde(default)]
    pub scheme: CodingScheme,
    /// BFLY's recovery rule (`bfly` only): `coder_ack` (default) or `none`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovery: Option<CodingRecovery>,
    /// The output queue of every coding node: COPE's `fifo` of natives, or NCAQM's queue of
    /// entries (`ncaqm`). Its capacity is the radio's `queue.packets`.
    #[serde(default)]
    pub queue: CodingQueue,
    /// How a coder learns what its neighbours hold.
    #[serde(default)]
    pub knowledge: CodingKnowledge,
    /// COPE's decodability threshold G: a coding is sent only if every next hop decodes it with
    /// at least this probability; in (0, 1].
    #[serde(default = "default_cope_threshold")]
    #[schemars(range(max = 1), extend("exclusiveMinimum" = 0))]
    pub threshold: f64,
    /// How long a native stays in a node's pool (and a report about it stays valid), T, ns (> 0).
    #[serde(default = "default_cope_pool_lifetime")]
    #[schemars(transform = crate::quantity::duration, range(min = 1))]
    pub pool_lifetime: Nanos,
    /// A node with natives to report that sends nothing for this long sends a reception report
    /// alone, ns (> 0).
    #[serde(default = "default_cope_report_idle")]
    #[schemars(transform = crate::quantity::duration, range(min = 1))]
    pub report_idle: Nanos,
    /// A next hop with natives to acknowledge that sends nothing for this long sends a COPE ACK
    /// alone, ns (> 0).
    #[serde(default = "default_cope_ack_delay")]
    #[schemars(transform = crate::quantity::duration, range(min = 1))]
    pub ack_delay: Nanos,
    /// How long a coder waits for a native's COPE ACK before it queues the native again, Ta, ns
    /// (> 0).
    #[serde(default = "default_cope_ack_timeout")]
    #[schemars(transform = crate::quantity::duration, range(min = 1))]
    pub ack_timeout: Nanos,
    /// COPE retransmissions of a native before it is dropped (0: none).
    #[serde(default = "default_cope_retry_limit")]
    pub retry_limit: u32,
    /// Whether TCP's ACKs are coded like any native (COPE codes them).
    #[serde(default = "default_cope_code_acks")]
    pub code_acks: bool,
    /// The most natives one reception report lists (>= 1); the rest wait for the next header.
    #[serde(default = "default_cope_max_report")]
    #[schemars(range(min = 1))]
    pub max_report: u32,
}

impl Default for CodingConfig {
    fn default() -> Self {
        CodingConfig {
            scheme: CodingScheme::default(),
            recovery: None,
            queue: CodingQueue::default(),
            knowledge: CodingKnowledge::default(),
            threshold: default_cope_threshold(),
            pool_lifetime: default_cope_pool_lifetime(),
            report_idle: default_cope_report_idle(),
            ack_delay: default_cope_ack_delay(),
            ack_timeout: default_cope_ack_timeout(),
            retry_limit: default_cope_retry_limit(),
            code_acks: default_cope_code_acks(),
            max_report: default_cope_max_report(),
        }
    }
}

/// The coding scheme of a `coding:` block.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum CodingScheme {
    /// COPE: opportunistic XOR coding of packets of different flows at the relays.
    #[default]
    Cope,
    /// BFLY (Omiwade, Zheng & Hua, NetCod 2008): a relay XORs two natives for the same next hop,
    /// which forwards the XOR undecoded to their two next hops after it; COPE's codes besides.
    Bfly,
}

/// BFLY's recovery rule ([`Recovery`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CodingRecovery {
    /// The coder keeps a pair's natives until their decoders acknowledge them, through the
    /// second relay, and re-sends them uncoded after 2 Ta.
    CoderAck,
    /// None: each hop's MAC ACK settles the pair.
    None,
}

/// The output queue of every coding node ([`QueueKind`]).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum CodingQueue {
    /// COPE's drop-tail FIFO of natives, coding at the transmit opportunity (TCP+COPE).
    #[default]
    Fifo,
    /// NCAQM's queue of entries (paper 001 §V-A, Algs. 1-2).
    Ncaqm,
}

/// How a coder learns what its neighbours hold ([`KnowledgeModel`]).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum CodingKnowledge {
    /// Reception reports, and COPE's guess from link delivery where no report says (COPE's own).
    #[default]
    ReportsAndGuessing,
    /// Reception reports only.
    Reports,
    /// Guessing only: no reception reports are sent.
    Guessing,
    /// The coder reads its neighbours' pools (tests; no reports are sent).
    Oracle,
}

// The defaults are written out (not `CopeParams::default()`'s fields) so that the Python side's
// test reads them from this file; a test below holds them equal to `CopeParams::default()`.
fn default_cope_threshold() -> f64 {
    0.8
}
fn default_cope_pool_lifetime() -> Nanos {
    500_000_000
}
fn default_cope_report_idle() -> Nanos {
    10_000_000
}
fn default_cope_ack_delay() -> Nanos {
    10_000_000
}
fn default_cope_ack_timeout() -> Nanos {
    100_000_000
}
fn default_cope_retry_limit() -> u32 {
    3
}
fn default_cope_code_acks() -> bool {
    true
}
fn default_cope_max_report() -> u32 {
    32
}

fn err(path: impl Into<String>, message: impl Into<String>) -> ConfigError {
    ConfigError::new(path, message)
}

/// The checks of the `coding:` block (none without one): its own parameters, then what coding
/// needs of the scenario (radios, one per node; static routes; no wired links, downlink or
/// routers). Flows' paths are allowed: under static routing the routing service follows them.
pub fn check(cfg: &ScenarioConfig) -> Result<(), ConfigError> {
    let Some(coding) = &cfg.coding else {
        return Ok(());
    };
    // Worded as the Python front end words them, for the values as the core receives them.
    let threshold = coding.threshold;
    if !(threshold > 0.0 && threshold <= 1.0) {
        return Err(err(
            "coding.threshold",
            format!("must be a probability above 0 and at most 1, got {threshold}"),
        ));
    }
    for (field, value) in [
        ("pool_lifetime", coding.pool_lifetime),
        ("report_idle", coding.report_idle),
        ("ack_delay", coding.ack_delay),
        ("ack_timeout", coding.ack_timeout),
    ] {
        if value == 0 {
            return Err(err(
                format!("coding.{field}"),
                "must be greater than 0, got 0",
            ));
        }
    }
    if coding.max_report == 0 {
        return Err(err("coding.max_report", "must be at least 1, got 0"));
    }
    if coding.recovery.is_some() && coding.scheme != CodingScheme::Bfly {
        return Err(err(
            "coding.recovery",
            "is BFLY's recovery rule; it needs scheme: bfly",
        ));
    }
    let Some(radio) = &cfg.radio else {
        return Err(err(
            "coding",
            "coding runs over radios; this scenario has none",
        ));
    };
    if !matches!(cfg.routing, RoutingConfig::Static { .. }) {
        return Err(err(
            "routing.kind",
            "coding forwards over static routes (use static)",
        ));
    }
    if !cfg.links.is_empty() || cfg.downlink.is_some() || !cfg.routers.is_empty() {
        return Err(err(
            "coding",
            "coding runs over radios only; this scenario has wired links, a downlink or routers",
        ));
    }
    if !radio.node_channels.is_empty() {
        return Err(err(
            "radio.node_channels",
            "coding runs on one radio per node",
        ));
    }
    Ok(())
}

/// The COPE layer's parameters for a checked scenario's `coding:` block (`None` without one):
/// the output queue holds the radio's `queue.packets`.
pub fn params(cfg: &ScenarioConfig) -> Option<CopeParams> {
    let coding = cfg.coding.as_ref()?;
    let radio = cfg.radio.as_ref().expect("checked: coding needs radios");
    let QueueConfig::Droptail { packets } = radio.queue;
    Some(CopeParams {
        scheme: match coding.scheme {
            CodingScheme::Cope => Scheme::Cope,
            CodingScheme::Bfly => Scheme::Bfly,
        },
        recovery: match coding.recovery {
            None | Some(CodingRecovery::CoderAck) => Recovery::CoderAck,
            Some(CodingRecovery::None) => Recovery::None,
        },
        queue: match coding.queue {
            CodingQueue::Fifo => QueueKind::Fifo,
            CodingQueue::Ncaqm => QueueKind::Ncaqm,
        },
        capacity: packets as usize,
        knowledge: match coding.knowledge {
            CodingKnowledge::ReportsAndGuessing => KnowledgeModel::ReportsAndGuessing,
            CodingKnowledge::Reports => KnowledgeModel::Reports,
            CodingKnowledge::Guessing => KnowledgeModel::Guessing,
            CodingKnowledge::Oracle => KnowledgeModel::Oracle,
        },
        threshold: coding.threshold,
        pool_lifetime: coding.pool_lifetime,
        report_idle: coding.report_idle,
        ack_delay: coding.ack_delay,
        ack_timeout: coding.ack_timeout,
        retry_limit: coding.retry_limit,
        code_acks: coding.code_acks,
        max_report: coding.max_report as usize,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    /// A chain of four radios 200 m apart, one flow end to end, with `coding` and `changes`.
    fn chain(coding: Value, changes: Value) -> ScenarioConfig {
        let mut scenario = json!({
            "name": "coding", "duration": 1_000_000_000u64, "seed": 1,
            "topology": {"kind": "chain", "hops": 3, "spacing": 200.0},
            "radio": {"standard": "802.11b", "data_rate": 2_000_000, "basic_rate": 1_000_000,
                      "propagation": {"kind": "range", "range": 250.0}},
            "coding": coding,
            "flows": [{"id": "f", "src": "n0", "dst": "n3", "app": {"kind": "bulk"},
                       "transport": {"kind": "tcp"}}]
        });
        let Value::Object(changes) = changes else {
            panic!("changes are a mapping")
        };
        for (key, value) in changes {
            scenario[key] = value;
        }
        serde_json::from_value(scenario).expect("valid scenario")
    }

    fn refusal(coding: Value, changes: Value) -> (String, String) {
        let e = check(&chain(coding, changes)).expect_err("refused");
        (e.path, e.message)
    }

    fn path_of(coding: Value, changes: Value) -> String {
        refusal(coding, changes).0
    }

    #[test]
    fn defaults_are_cope_params_defaults() {
        let cfg = chain(json!({}), json!({}));
        assert_eq!(cfg.coding, Some(CodingConfig::default()));
        check(&cfg).expect("valid");
        let radio_packets = match cfg.radio.as_ref().unwrap().queue {
            QueueConfig::Droptail { packets } => packets as usize,
        };
        let expected = CopeParams {
            capacity: radio_packets,
            ..CopeParams::default()
        };
        assert_eq!(params(&cfg), Some(expected));
        // With a 10-packet radio queue, exactly CopeParams::default().
        let ten = chain(
            json!({}),
            json!({"radio": {"standard": "802.11b", "data_rate": 2_000_000,
                             "basic_rate": 1_000_000, "queue": {"kind": "droptail", "packets": 10},
                             "propagation": {"kind": "range", "range": 250.0}}}),
        );
        assert_eq!(params(&ten), Some(CopeParams::default()));
    }

    #[test]
    fn no_block_no_params_no_checks() {
        let cfg = chain(Value::Null, json!({"routing": {"kind": "aodv"}}));
        assert_eq!(cfg.coding, None);
        check(&cfg).expect("nothing to check");
        assert_eq!(params(&cfg), None);
    }

    #[test]
    fn every_field_maps() {
        let cfg = chain(
            json!({"scheme": "bfly", "recovery": "none", "queue": "fifo", "knowledge": "oracle",
                   "threshold": 1.0,
                   "pool_lifetime": 1, "report_idle": 2, "ack_delay": 3, "ack_timeout": 4,
                   "retry_limit": 0, "code_acks": false, "max_report": 1}),
            json!({}),
        );
        check(&cfg).expect("valid");
        let p = params(&cfg).expect("a block");
        assert_eq!(
            p,
            CopeParams {
                scheme: Scheme::Bfly,
                recovery: Recovery::None,
                queue: QueueKind::Fifo,
                capacity: 50,
                knowledge: KnowledgeModel::Oracle,
                threshold: 1.0,
                pool_lifetime: 1,
                report_idle: 2,
                ack_delay: 3,
                ack_timeout: 4,
                retry_limit: 0,
                code_acks: false,
                max_report: 1,
            }
        );
        for (name, model) in [
            ("reports_and_guessing", KnowledgeModel::ReportsAndGuessing),
            ("reports", KnowledgeModel::Reports),
            ("guessing", KnowledgeModel::Guessing),
        ] {
            let cfg = chain(json!({ "knowledge": name }), json!({}));
            assert_eq!(params(&cfg).unwrap().knowledge, model, "{name}");
        }
    }

    #[test]
    fn unknown_fields_and_values_are_refused_by_serde() {
        for coding in [
            json!({"thresold": 0.5}),
            json!({"scheme": "xor"}),
            json!({"queue": "lifo"}),
            json!({"knowledge": "all"}),
        ] {
            let mut scenario = serde_json::to_value(chain(json!({}), json!({}))).unwrap();
            scenario["coding"] = coding.clone();
            assert!(
                serde_json::from_value::<ScenarioConfig>(scenario).is_err(),
                "{coding}"
            );
        }
    }

    #[test]
    fn bad_parameters_name_their_field() {
        for threshold in [0.0, -0.5, 1.5, f64::NAN] {
            let mut cfg = chain(json!({}), json!({}));
            cfg.coding.as_mut().unwrap().threshold = threshold;
            let e = check(&cfg).expect_err("refused");
            assert_eq!(e.path, "coding.threshold", "{threshold}");
        }
        assert_eq!(
            refusal(json!({"threshold": 1.5}), json!({})),
            (
                "coding.threshold".into(),
                "must be a probability above 0 and at most 1, got 1.5".into()
            )
        );
        for field in ["pool_lifetime", "report_idle", "ack_delay", "ack_timeout"] {
            assert_eq!(
                refusal(json!({ field: 0 }), json!({})),
                (
                    format!("coding.{field}"),
                    "must be greater than 0, got 0".into()
                )
            );
        }
        assert_eq!(
            refusal(json!({"max_report": 0}), json!({})),
            (
                "coding.max_report".into(),
                "must be at least 1, got 0".into()
            )
        );
        check(&chain(json!({"retry_limit": 0}), json!({}))).expect("no retries is allowed");
        assert_eq!(
            path_of(json!({"recovery": "coder_ack"}), json!({})),
            "coding.recovery",
            "recovery is BFLY's"
        );
        check(&chain(
            json!({"scheme": "bfly", "recovery": "coder_ack"}),
            json!({}),
        ))
        .expect("BFLY with its recovery");
    }

    #[test]
    fn scenarios_coding_cannot_run_in_are_refused() {
        let wired = json!({"topology": null, "radio": null, "nodes": ["A", "B"],
                           "links": [{"from": "A", "to": "B", "rate": 1_000_000, "delay": 0}],
                           "flows": []});
        assert_eq!(
            refusal(json!({}), wired),
            (
                "coding".into(),
                "coding runs over radios; this scenario has none".into()
            )
        );
        // (Every other kind alike; tests/python/test_coding_config.py tries each.)
        assert_eq!(
            refusal(json!({}), json!({"routing": {"kind": "aodv"}})),
            (
                "routing.kind".into(),
                "coding forwards over static routes (use static)".into()
            )
        );
        check(&chain(
            json!({}),
            json!({"routing": {"kind": "static", "metric": "etx"}}),
        ))
        .expect("static etx routes are fine");
        let mixed = json!({"nodes": ["srv"],
                           "links": [{"from": "srv", "to": "n0", "rate": 1_000_000, "delay": 0}]});
        assert_eq!(
            refusal(json!({}), mixed),
            (
                "coding".into(),
                "coding runs over radios only; this scenario has wired links, a downlink or routers"
                    .into()
            )
        );
        let downlink = json!({"nodes": ["bs", "u"],
                              "downlink": {"base_station": "bs",
                                           "users": [{"node": "u", "mean_snr": 10.0}]}});
        assert_eq!(path_of(json!({}), downlink), "coding");
        let routers = json!({"nodes": ["r", "u"],
                             "routers": [{"node": "r", "rate": 1_000_000, "users": [{"node": "u"}]}]});
        assert_eq!(path_of(json!({}), routers), "coding");
        let multi = json!({"radio": {"standard": "802.11b", "data_rate": 2_000_000,
                                     "basic_rate": 1_000_000,
                                     "propagation": {"kind": "range", "range": 250.0},
                                     "node_channels": {"n1": [1, 6]}}});
        assert_eq!(
            refusal(json!({}), multi),
            (
                "radio.node_channels".into(),
                "coding runs on one radio per node".into()
            )
        );
    }

    #[test]
    fn flow_paths_are_allowed() {
        let flows = json!({"flows": [{"id": "f", "src": "n0", "dst": "n3",
                                      "app": {"kind": "bulk"}, "transport": {"kind": "tcp"},
                                      "paths": {"kind": "disjoint", "k": 1}}]});
        check(&chain(json!({}), flows)).expect("paths are followed under static routing");
    }

    #[test]
    fn the_world_builder_runs_the_checks() {
        let cfg = chain(json!({"threshold": 2.0}), json!({}));
        let e = crate::scenario::build::build(&cfg).err().expect("refused");
        assert_eq!(e.path, "coding.threshold");
        let cfg = chain(json!({}), json!({"routing": {"kind": "aodv"}}));
        let e = crate::scenario::build::build(&cfg).err().expect("refused");
        assert_eq!(
            e.to_string(),
            "routing.kind: coding forwards over static routes (use static)"
        );
    }
}
